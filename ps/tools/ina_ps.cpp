/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-ps: the parameter server daemon's command line. Serves the jobs of the
 * given job descriptions on one transport (ina::PsDaemon, ps/src/daemon.cpp:
 * the shards, their hand-off rings, the registration with the switch), and
 * prints per-job statistics on exit (SIGINT/SIGTERM, or --duration).
 */
#include <CLI/CLI.hpp>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "ina/cli.h"
#include "ina/codec.h"
#include "ina/ps.h"
#include "ina/ps_config.h"
#include "ina/ps_daemon.h"

#include "check_job.h"
#include "ina/transport.h"

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

/* Threads `--threads auto` (or 0) may use at most: past a few, one PS is
 * limited by its receive queue, not by its shards. */
constexpr uint32_t kAutoThreadsMax = 8;

/* The command line. */
struct Options {
	std::vector<std::string> job_files;
	ina::TransportConfig tcfg;
	std::string ip_arg;
	std::string threads_arg = "1";
	bool json = false;
	ina::PsServeOptions serve;
	std::vector<std::string> resume; /* JOB=EPOCH: runs this PS continues */
};

/* The CPUs this process may run on (its affinity mask), at least 1. */
uint32_t cpus_given()
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return static_cast<uint32_t>(CPU_COUNT(&set));
	return std::max(1u, std::thread::hardware_concurrency());
}

/* --threads: a count 1..kPsMaxShards, or 0 / "auto" for one per CPU given
 * (up to kAutoThreadsMax). False on anything else. */
bool parse_threads(const std::string &text, uint32_t *out)
{
	if (text == "auto" || text == "0") {
		*out = std::min(cpus_given(), kAutoThreadsMax);
		return true;
	}
	if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos)
		return false;
	uint32_t n = static_cast<uint32_t>(std::stoul(text));
	if (n < 1 || n > ina::kPsMaxShards)
		return false;
	*out = n;
	return true;
}

/* Spellings of earlier versions, refused with what replaced them. */
const std::vector<ina::OldSpelling> kOldSpellings = {
	{"--eal-args", "EAL arguments go before \"--\": ina-ps [EAL args] -- --transport dpdk --job FILE"},
	{"--drop", "use --host-drop P (the host fault shim)"},
};

/* Returns -1 to go on, else the exit code. */
int parse_options(int argc, char **argv, Options &o)
{
	const ina::EalSplit split = ina::split_eal_args(argc, argv);
	int rc = ina::refuse_old_spellings("ina-ps", split.own, kOldSpellings);
	if (rc >= 0)
		return rc;
	CLI::App app{"ina-ps: parameter server for in-network aggregation (ATP/A2TP)", "ina-ps"};
	ina::add_standard_options(app, "ina-ps");
	app.footer("DPDK EAL arguments (--transport dpdk) come first, ours after \"--\":\n"
		   "  ina-ps [EAL args --] --job FILE [options]\n"
		   "  ina-ps --no-huge -m 512 --vdev net_memif0 -- --transport dpdk --job job.toml\n"
		   "ina-ps --check-job FILE...: check job files and print them as JSON, defaults filled in");
	ina::TransportConfig &tcfg = o.tcfg;
	app.add_option("--job", o.job_files, "job description (TOML), repeatable: one per job")
		->required()
		->default_str(""); /* required: no default to show */
	app.add_option("--transport", tcfg.kind, "auto, af_xdp, af_packet, udp, dpdk, rdma");
	app.add_option("--device", tcfg.device, "interface (kernel transports), RDMA device, or DPDK port");
	app.add_option("--ip", o.ip_arg, "local IPv4 address (default: the interface's)");
	app.add_option("--threads", o.threads_arg,
		       "serving threads, each owning a shard of the fragments: 1.." +
			       std::to_string(ina::kPsMaxShards) + ", or 0/auto = the CPUs given, up to " +
			       std::to_string(kAutoThreadsMax))
		->capture_default_str();
	app.add_option("--host-drop", tcfg.drop, "host fault shim: drop probability per frame")
		->check(ina::finite_range(0, 1));
	app.add_option("--duplicate", tcfg.duplicate, "host fault shim: duplicate probability")
		->check(ina::finite_range(0, 1));
	app.add_option("--reorder", tcfg.reorder, "host fault shim: reorder probability")->check(ina::finite_range(0, 1));
	app.add_option("--seed", tcfg.seed, "host fault shim seed");
	app.add_option("--duration", o.serve.duration, "stop after this many seconds (0: at SIGINT/SIGTERM)")
		->check(ina::finite_range(0, 1e9));
	app.add_option("--register-interval-ms", o.serve.register_interval_ms,
		       "repeat the job registration this often (0: once at start)")
		->check(CLI::Range(0u, 86400000u));
	app.add_flag("--udp-gso", tcfg.udp_gso, "udp transport: send runs of parameter packets as UDP GSO messages, receive runs as UDP GRO messages");
	app.add_flag("--no-register", o.serve.no_register,
		     "do not register the jobs with their switch (nor send their GOAT plans)");
	app.add_option("--resume", o.resume,
		       "JOB=EPOCH, repeatable: continue run EPOCH of JOB after a restart (docs/ps.md, "
		       "\"Restarting a PS\"); the switch refuses an epoch that is not the job's run")
		->type_name("JOB=EPOCH")
		->default_str("");
	app.add_flag("--json", o.json, "print the statistics as JSON");
	app.add_option("--stats-file", o.serve.stats_file,
		       "write every job's counters as JSON to this file once a second and at exit "
		       "(tools/ina-exporter reads it; default: none)");
	app.add_flag("-q,--quiet", o.serve.quiet, "no progress line on stderr (shown only when stderr is a terminal)");
	rc = ina::parse_cli("ina-ps", app, {split.own.rbegin(), split.own.rend()});
	if (rc >= 0)
		return rc;
	if (split.separated && !split.eal.empty() && tcfg.kind != "dpdk") {
		ina::print_error("ina-ps", "EAL arguments (before \"--\") are for --transport dpdk only");
		return ina::kExitUsage;
	}
	tcfg.eal_args = ina::join_args(split.eal);
	if (!parse_threads(o.threads_arg, &o.serve.threads)) {
		ina::print_error("ina-ps", "--threads: want 1.." + std::to_string(ina::kPsMaxShards) +
						   ", 0 or auto, not '" + o.threads_arg + "'");
		return ina::kExitUsage;
	}
	return -1;
}

/* --ip and the job files; returns -1 to go on, else the exit code. */
int load_jobs(Options &o, std::vector<ina::PsJobConfig> &jobs)
{
	if (!o.ip_arg.empty() && !ina::parse_ipv4(o.ip_arg, &o.tcfg.ip)) {
		ina::print_error("ina-ps", "--ip: not an IPv4 address: '" + o.ip_arg + "'");
		return ina::kExitUsage;
	}
	for (const auto &f : o.job_files) {
		ina::PsJobConfig c;
		std::string err;
		if (!ina::load_ps_job_file(f, &c, &err)) {
			ina::print_error("ina-ps", err);
			return ina::kExitUsage;
		}
		if (c.has_switch && !o.ip_arg.empty() && c.switch_ip == o.tcfg.ip) {
			ina::print_error("ina-ps", f + ": switch.ip: the PS's own address (--ip)");
			return ina::kExitUsage;
		}
		/* The switch's lease on the job counts in these intervals; an
		 * interval beyond what the field holds means none. */
		c.refresh_ms = o.serve.register_interval_ms <= 0xFFFF ? static_cast<uint16_t>(o.serve.register_interval_ms) : 0;
		jobs.push_back(c);
	}
	return -1;
}

} /* namespace */

/* main() without the last-resort catch. */
static int run_ps(int argc, char **argv)
{
	Options o;
	int rc = parse_options(argc, argv, o);
	if (rc >= 0)
		return rc;
	std::vector<ina::PsJobConfig> jobs;
	rc = load_jobs(o, jobs);
	if (rc >= 0)
		return rc;

	std::string err;
	auto transports = ina::ps_open_queues(o.tcfg, o.serve.threads, jobs, &err);
	if (transports.empty()) {
		fprintf(stderr, "ina-ps: transport: %s\n", err.c_str());
		return 1;
	}
	rc = ina::ps_size_for_interface(jobs, o.tcfg.device, *transports[0]);
	if (rc >= 0)
		return rc;
	ina::Endpoint self{};
	transports[0]->mac(self.mac);
	self.ip = transports[0]->ip();
	self.port = INA_UDP_PORT;
	ina::PsDaemon d(o.serve, jobs, transports, self, g_stop);
	if (!d.add_jobs(&err)) {
		fprintf(stderr, "ina-ps: %s\n", err.c_str());
		return 2;
	}

	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);

	if (!ina::ps_resume_runs(o.resume, jobs, d.control, &err)) {
		ina::print_error("ina-ps", "--resume: " + err);
		return ina::kExitUsage;
	}
	if (!d.control_all(false))
		return 1;
	rc = d.settle_jobs();
	if (rc >= 0) {
		d.control_all(true); /* leave the switches as they were */
		return rc;
	}
	/* Each job's epoch and fragment size, what its workers' JOB_QUERY
	 * gets (docs/ps.md). */
	ina::ps_print_plan(d, o.serve.threads);

	uint64_t start = ina::ps_now_us();
	double cpu0 = ina::ps_process_cpu_seconds();
	d.serve(start);
	double cpu = ina::ps_process_cpu_seconds() - cpu0;
	d.control_all(true); /* best effort: a failure is reported, the exit status stays */

	if (o.json)
		ina::ps_print_json(d, self.ip, start, cpu);
	else
		ina::ps_print_text(d, start, cpu);
	return 0;
}

int main(int argc, char **argv)
{
	return ina::run_main("ina-ps", [&] {
		/* `ina-ps --check-job FILE...`: the job files only, no network. */
		if (argc >= 2 && std::string(argv[1]) == "--check-job")
			return check_jobs(std::vector<std::string>(argv + 2, argv + argc));
		return run_ps(argc, argv);
	});
}
