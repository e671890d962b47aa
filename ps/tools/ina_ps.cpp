/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-ps: the parameter server daemon. Serves the jobs of the given job
 * descriptions on one transport, registers them with their switch, and prints
 * per-job statistics on exit (SIGINT/SIGTERM, or --duration).
 */
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "ina/cli.h"
#include "ina/codec.h"
#include "ina/control_client.h"
#include "ina/ps.h"
#include "ina/ps_config.h"
#include "ina/transport.h"

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

uint64_t now_us()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
					     std::chrono::steady_clock::now().time_since_epoch())
					     .count());
}

/* The wall clock, for control-message counters (docs/protocol.md). */
uint64_t wall_ns()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
					     std::chrono::system_clock::now().time_since_epoch())
					     .count());
}

/* How long the unregistration at exit may take. */
constexpr uint64_t kUnregisterTimeoutUs = 1000000;

/* Sends every queued frame; a full transport is retried briefly. */
uint64_t flush(ina::Transport &t, ina::TxQueue &tx, std::vector<ina::FrameBuf> &view)
{
	uint64_t lost = 0;
	for (uint32_t i = 0; i < tx.size(); i++)
		view[i] = ina::FrameBuf{tx.data(i), tx.len(i), tx.len(i)};
	uint32_t done = 0;
	int stalls = 0;
	while (done < tx.size()) {
		uint32_t n = t.send(view.data() + done, tx.size() - done);
		done += n;
		if (n == 0 && ++stalls > 1000) {
			lost += tx.size() - done;
			break;
		}
	}
	tx.clear();
	return lost;
}

std::string ip_text(uint32_t ip)
{
	return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
	       std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

/* The command line. */
struct Options {
	std::vector<std::string> job_files;
	ina::TransportConfig tcfg;
	std::string ip_arg;
	bool json = false;
	double duration = 0;
	uint32_t register_interval_ms = 0;
	bool no_register = false;
};

/* Returns -1 to go on, else the exit code. */
int parse_options(int argc, char **argv, Options &o)
{
	CLI::App app{"ina-ps: parameter server for in-network aggregation (ATP/A2TP)"};
	ina::TransportConfig &tcfg = o.tcfg;
	app.add_option("--job", o.job_files, "job description (TOML), one per job")->required();
	app.add_option("--transport", tcfg.kind, "auto, af_xdp, af_packet, udp, dpdk, rdma")->capture_default_str();
	app.add_option("--device", tcfg.device, "interface (kernel transports), RDMA device, or DPDK port");
	app.add_option("--eal-args", tcfg.eal_args, "EAL arguments for the dpdk transport");
	app.add_option("--ip", o.ip_arg, "local IPv4 address (default: the interface's)");
	app.add_option("--drop", tcfg.drop, "fault injection: drop probability per frame")->check(ina::finite_range(0, 1));
	app.add_option("--duplicate", tcfg.duplicate, "fault injection: duplicate probability")
		->check(ina::finite_range(0, 1));
	app.add_option("--reorder", tcfg.reorder, "fault injection: reorder probability")->check(ina::finite_range(0, 1));
	app.add_option("--seed", tcfg.seed, "fault injection seed");
	app.add_option("--duration", o.duration, "stop after this many seconds (0: at SIGINT/SIGTERM)")
		->check(ina::finite_range(0, 1e9));
	app.add_option("--register-interval-ms", o.register_interval_ms,
		       "repeat the job registration this often (0: once at start)")
		->check(CLI::Range(0u, 86400000u));
	app.add_flag("--no-register", o.no_register, "do not register the jobs with their switch");
	app.add_flag("--json", o.json, "print the statistics as JSON");
	return ina::parse_cli("ina-ps", app, argc, argv);
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
		jobs.push_back(c);
	}
	return -1;
}

/* The serving state: the PS on its transport, and its output queue. */
struct Daemon {
	static constexpr uint32_t kBatch = 64;

	const Options &o;
	const std::vector<ina::PsJobConfig> &jobs;
	ina::Transport &transport;
	ina::ParameterServer &ps;
	uint32_t max_workers;
	ina::TxQueue tx;
	std::vector<ina::FrameBuf> view;
	uint64_t tx_lost = 0;
	ina::ControlClient control;
	std::vector<std::vector<uint8_t>> rxmem;
	std::vector<ina::FrameBuf> rx;

	Daemon(const Options &opts, const std::vector<ina::PsJobConfig> &j, ina::Transport &t,
	       ina::ParameterServer &p, uint32_t max_w, const ina::Endpoint &self)
		: o(opts), jobs(j), transport(t), ps(p), max_workers(max_w), tx(kBatch * 8 + 2 * max_w + 8),
		  view(tx.capacity()), control(self),
		  rxmem(kBatch, std::vector<uint8_t>(INA_FRAME_LEN(INA_MAX_ELEMENTS))), rx(kBatch)
	{
	}

	/* Starts a (un)registration of every job that has a switch. */
	void start_control(bool unregister, uint64_t now)
	{
		for (const auto &c : jobs)
			if (c.has_switch && control.state(c.job) != ina::ControlClient::State::kPending)
				control.start(c, unregister,
					      now, unregister ? kUnregisterTimeoutUs : c.register_timeout_ms * 1000ull);
	}

	/* Receives one batch (waiting up to timeout_us): acknowledgements to
	 * the control client, the rest to the PS. */
	void receive(uint32_t timeout_us)
	{
		for (uint32_t i = 0; i < kBatch; i++)
			rx[i] = ina::FrameBuf{rxmem[i].data(), 0, static_cast<uint32_t>(rxmem[i].size())};
		uint32_t n = transport.recv(rx.data(), kBatch, timeout_us);
		uint64_t now = now_us();
		for (uint32_t i = 0; i < n; i++) {
			if (control.take(rx[i].data, rx[i].len))
				continue;
			if (tx.room() < max_workers + 1)
				tx_lost += flush(transport, tx, view);
			ps.handle(rx[i].data, rx[i].len, now, tx);
		}
	}

	/* Sends what the control client has due. */
	void poll_control()
	{
		control.poll(now_us(), wall_ns(), tx);
		if (tx.size())
			tx_lost += flush(transport, tx, view);
	}

	/* (Un)registers every job with its switch and waits for the answers;
	 * false (after a message per job) if one was not applied. */
	bool control_all(bool unregister)
	{
		if (o.no_register)
			return true;
		start_control(unregister, now_us());
		while (control.pending()) {
			if (!unregister && g_stop.load(std::memory_order_relaxed))
				return false; /* interrupted while waiting for the switch */
			poll_control();
			receive(10000);
		}
		bool ok = true;
		for (const auto &c : jobs) {
			if (!c.has_switch || control.state(c.job) == ina::ControlClient::State::kApplied)
				continue;
			ok = false;
			report(c, unregister);
		}
		return ok;
	}

	void report(const ina::PsJobConfig &c, bool unregister) const
	{
		const auto st = control.state(c.job);
		const char *what = unregister ? "unregistration" : "registration";
		if (st == ina::ControlClient::State::kTimedOut)
			fprintf(stderr,
				"ina-ps: job %u: switch %s did not acknowledge the %s within %.1f s (%u attempts; "
				"is it running, and does it share switch.key_file?)\n",
				c.job, ip_text(c.switch_ip).c_str(), what,
				(unregister ? kUnregisterTimeoutUs : c.register_timeout_ms * 1000ull) / 1e6,
				control.attempts(c.job));
		else if (st == ina::ControlClient::State::kDenied)
			fprintf(stderr,
				"ina-ps: job %u: switch %s denied the %s (the job is in its config, or another "
				"PS registered it)\n",
				c.job, ip_text(c.switch_ip).c_str(), what);
		else
			fprintf(stderr, "ina-ps: job %u: switch %s rejected the %s as invalid\n", c.job,
				ip_text(c.switch_ip).c_str(), what);
	}

	/* Receives and answers frames until a signal or --duration, repeating
	 * the registration every --register-interval-ms. */
	void serve(uint64_t start)
	{
		uint64_t last_register = start;
		bool refreshing = false;
		while (!g_stop.load(std::memory_order_relaxed)) {
			receive(1000);
			if (tx.size())
				tx_lost += flush(transport, tx, view);
			uint64_t now = now_us();
			if (!o.no_register && o.register_interval_ms &&
			    now - last_register >= o.register_interval_ms * 1000ull) {
				start_control(false, now);
				last_register = now;
				refreshing = true;
			}
			if (refreshing) {
				poll_control();
				if (!control.pending()) {
					/* A refresh the switch missed is retried at the next interval. */
					for (const auto &c : jobs)
						if (c.has_switch &&
						    control.state(c.job) != ina::ControlClient::State::kApplied)
							report(c, false);
					refreshing = false;
				}
			}
			if (o.duration > 0 && now - start >= o.duration * 1e6)
				break;
		}
	}
};

/* The statistics as one JSON object (--json). */
void print_json(const Daemon &d, uint32_t ip, uint64_t start)
{
	const ina::ParameterServer &ps = d.ps;
	const ina::PsStats &g = ps.stats();
	nlohmann::json j;
	j["transport"] = d.transport.name();
	j["ip"] = ip_text(ip);
	j["seconds"] = (now_us() - start) / 1e6;
	j["not_ina"] = g.not_ina;
	j["bad_version"] = g.bad_version;
	j["bad_type"] = g.bad_type;
	j["bad_length"] = g.bad_length;
	j["unknown_job"] = g.unknown_job;
	j["tx_lost"] = d.tx_lost;
	for (uint16_t id : ps.jobs()) {
		const ina::PsJobStats *s = ps.job_stats(id);
		nlohmann::json jj;
		jj["job"] = id;
		for (const auto &c : ina::ps_job_counters())
			jj[c.name] = s->*c.field;
		jj["share_in_network"] = s->completed ? double(s->completed_in_network) / s->completed : 0.0;
		j["jobs"].push_back(jj);
	}
	printf("%s\n", j.dump(2).c_str());
}

/* The statistics for people: a summary per job, then its nonzero counters. */
void print_text(const Daemon &d, uint64_t start)
{
	const ina::ParameterServer &ps = d.ps;
	const ina::PsStats &g = ps.stats();
	printf("ina-ps: %.1f s on %s; not INA %lu, bad version %lu, bad type %lu, bad length %lu, "
	       "unknown job %lu, tx lost %lu\n",
	       (now_us() - start) / 1e6, d.transport.name(), (unsigned long)g.not_ina,
	       (unsigned long)g.bad_version, (unsigned long)g.bad_type, (unsigned long)g.bad_length,
	       (unsigned long)g.unknown_job, (unsigned long)d.tx_lost);
	for (uint16_t id : ps.jobs()) {
		const ina::PsJobStats *s = ps.job_stats(id);
		double share = s->completed ? 100.0 * s->completed_in_network / s->completed : 0.0;
		printf("job %u: fragments completed %lu (in network %lu = %.1f%%, at PS %lu), collisions %lu, "
		       "retransmits seen %lu, overflows %lu, duplicates %lu, ACKs resent %lu\n",
		       id, (unsigned long)s->completed, (unsigned long)s->completed_in_network, share,
		       (unsigned long)s->completed_at_ps, (unsigned long)s->collisions,
		       (unsigned long)s->retransmits, (unsigned long)s->overflows,
		       (unsigned long)s->duplicates, (unsigned long)s->ack_resent);
		for (const auto &c : ina::ps_job_counters())
			if (s->*c.field)
				printf("  %-22s %12lu  %s\n", c.name, (unsigned long)(s->*c.field), c.help);
	}
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
	auto transport = ina::open_transport(o.tcfg, &err);
	if (!transport) {
		fprintf(stderr, "ina-ps: transport: %s\n", err.c_str());
		return 1;
	}
	ina::Endpoint self{};
	transport->mac(self.mac);
	self.ip = transport->ip();
	self.port = INA_UDP_PORT;
	ina::ParameterServer ps(self);
	uint32_t max_workers = 0;
	for (const auto &c : jobs) {
		if (!ps.add_job(c, &err)) {
			fprintf(stderr, "ina-ps: %s\n", err.c_str());
			return 2;
		}
		max_workers = std::max<uint32_t>(max_workers, static_cast<uint32_t>(c.workers.size()));
	}

	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);

	Daemon d(o, jobs, *transport, ps, max_workers, self);
	if (!d.control_all(false))
		return 1;
	printf("ina-ps: serving %zu job(s) on %s, %s\n", jobs.size(), transport->name(), ip_text(self.ip).c_str());
	fflush(stdout);

	uint64_t start = now_us();
	d.serve(start);
	d.control_all(true); /* best effort: a failure is reported, the exit status stays */

	if (o.json)
		print_json(d, self.ip, start);
	else
		print_text(d, start);
	return 0;
}

int main(int argc, char **argv)
{
	return ina::run_main("ina-ps", [&] { return run_ps(argc, argv); });
}
