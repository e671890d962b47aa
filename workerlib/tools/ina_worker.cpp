/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-worker: ATP's microbenchmark. Each worker all-reduces a tensor of
 * --size bytes again and again (R rounds) and reports goodput, the share of fragments
 * aggregated in the switch, collisions, retransmits and the largest absolute
 * error against the float reference. Every worker generates the same
 * deterministic data per rank, so each one knows the exact expected sum.
 */
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "check_config.h"
#include "stats_trace.h"
#include "ina/cli.h"
#include "ina/goat_plan.h"
#include "ina/input_file.h"
#include "ina/progress.h"
#include "ina/worker.h"
#include "ina/worker/quantize.h"

namespace {

/* Value of element i at rank r: a multiple of 1e-4 in [-0.1, 0.1] (exact
 * sums for up to 200 workers stay inside int32 at scale 1e8). In the
 * "overflow" pattern, every 16th fragment holds 15.0 + that value, so the
 * int32 sum of two or more workers saturates and the PS takes the float
 * path for it. */
double value(uint32_t rank, uint64_t i, bool overflow, uint32_t epp)
{
	uint64_t x = (static_cast<uint64_t>(rank) + 1) * 0x9E3779B97F4A7C15ull ^ (i * 0xC2B2AE3D27D4EB4Full);
	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 32;
	double v = (static_cast<int64_t>(x % 2001) - 1000) * 1e-4;
	if (overflow && (i / epp) % 16 == 0)
		v += 15.0;
	return v;
}

/* Limits of the benchmark's own options: the tensor, its float copy and the
 * double-precision expected sum take 16 bytes per element. */
constexpr uint64_t kMaxSizeBytes = 4096ull << 20;
constexpr uint32_t kMaxTensors = 65536;
constexpr uint32_t kMaxWorkers = 65535;

/* The command line; cfg holds what maps onto the worker's config directly. */
struct Options {
	ina::WorkerConfig cfg;
	uint32_t workers = 0;
	uint64_t size_bytes = 1 << 20;
	uint32_t rounds = 10;
	uint32_t tensors = 1;
	bool json = false;
	bool quiet = false;
	bool check_config = false;
	std::string pattern = "normal";
	std::string cc = "atp";
	std::vector<std::string> sets;
	std::string ps, bits = "0", fan_in, next_hop_mac, ip;
	std::string elements = "auto";
	bool bits_given = false;
	uint32_t levels = 1, start_level = 0;
	uint32_t epoch = 0;
	CLI::Option *epoch_opt = nullptr; /* given: it wins over the PS's answer */
	double tolerance = -1;
	std::string goat_plan, goat_worker;
	std::string ready_file, go_file;
	double go_timeout_s = 120;
	std::string trace_path;
	uint32_t trace_interval_ms = 10;
	uint32_t compute_ms = 0;
};

/* This worker's part of a plan from ina-goat-plan (docs/goat.md): its
 * routes in sub-model order as the "goat" config key's text
 * (end:node[:first-end],...; ina::goat_worker_routes, the layout switchd
 * and ina-ps derive from the same plan), the plan's model checked to be a
 * round. Empty and *err on a bad plan. */
std::string goat_ranges_from_plan(const std::string &path, const std::string &worker, const ina::WorkerConfig &cfg,
				  size_t round, std::string *err)
{
	ina::GoatPlan plan;
	*err = ina::goat_plan_read(path, &plan);
	if (!err->empty())
		return "";
	size_t w = worker.empty() ? cfg.rank : plan.workers.size();
	for (size_t i = 0; !worker.empty() && i < plan.workers.size(); i++)
		if (plan.workers[i] == worker)
			w = i;
	if (w >= plan.workers.size()) {
		*err = path + ": no worker " + (worker.empty() ? "at rank " + std::to_string(cfg.rank) : "'" + worker + "'");
		return "";
	}
	if (plan.round() != round) {
		*err = path + ": the plan's model has " + std::to_string(plan.round()) + " elements, a round of --size has " +
		       std::to_string(round);
		return "";
	}
	/* The job's aggregators at a switch: goat_aggregators, else all. */
	auto span_of = [&](uint16_t id) {
		for (const ina::GoatAggregators &a : cfg.goat_aggregators)
			if (a.agg_node == id)
				return ina::GoatSlots{a.first, a.end, 0, 0};
		return ina::GoatSlots{0, cfg.aggregators, 0, 0};
	};
	std::vector<ina::GoatRoute> routes;
	*err = ina::goat_worker_routes(plan, w, span_of, &routes);
	if (!err->empty()) {
		*err = path + ": " + *err;
		return "";
	}
	std::string out;
	for (const ina::GoatRoute &r : routes) {
		out += (out.empty() ? "" : ",") + std::to_string(r.end_element) + ":" + std::to_string(r.node);
		/* A whole sub-model at a switch keeps the switch's aggregators
		 * (goat_aggregators); other ranges are spelled out. */
		const ina::GoatSlots whole = span_of(r.node);
		if (r.end > r.first && !(r.node && r.first == whole.first && r.end == whole.end))
			out += ":" + std::to_string(r.first) + "-" + std::to_string(r.end);
	}
	return out;
}

/* Spellings of earlier versions, refused with what replaced them. */
const std::vector<ina::OldSpelling> kOldSpellings = {
	{"--drop", "use --host-drop P (the host fault shim)"},
	{"--size-mb", "use --size BYTES, with K, M, G suffixes (--size 64M)"},
	{"--eal-args", "EAL arguments go before \"--\": ina-worker [EAL args] -- --transport dpdk ..."},
};

/* Elements of one round of --size bytes. */
size_t round_elements(const Options &o)
{
	return std::max<size_t>(1, static_cast<size_t>(o.size_bytes / sizeof(float)));
}

/* Returns -1 to go on, else the exit code. */
int parse_options(int argc, char **argv, Options &o)
{
	const ina::EalSplit split = ina::split_eal_args(argc, argv);
	int rc = ina::refuse_old_spellings("ina-worker", split.own, kOldSpellings);
	if (rc >= 0)
		return rc;
	CLI::App app{"ina-worker: all-reduce microbenchmark (ATP) through INA switches and a PS", "ina-worker"};
	ina::add_standard_options(app, "ina-worker");
	app.footer("DPDK EAL arguments (--transport dpdk) come first, ours after \"--\":\n"
		   "  ina-worker [EAL args --] --job N --rank R --workers W --ps IP [options]\n"
		   "  ina-worker --check-config --job N --rank R --workers W --ps IP [options]\n"
		   "Sizes: bytes, or K, M, G = KiB, MiB, GiB. Rates: Gb/s.");
	ina::WorkerConfig &cfg = o.cfg;
	/* A required option has no default to show, and an option whose default
	 * is derived from others says so in its text: default_str("") keeps
	 * the placeholder value out of --help. */
	app.add_option("--job", cfg.job_id, "job id (1..65535)")
		->required()
		->check(CLI::Range(1, 65535))
		->default_str("");
	o.epoch_opt = app.add_option("--epoch", o.epoch,
				     "the job's run (0..255); default: the one the PS answers, which the "
				     "switch gave its registration (ina-ps prints it)")
			      ->check(CLI::Range(0u, 255u));
	app.add_option("--rank", cfg.rank, "this worker's rank (0..workers-1)")->required()->default_str("");
	app.add_option("--workers", o.workers, "workers in the job (for the expected sum)")
		->required()
		->check(CLI::Range(1u, kMaxWorkers))
		->default_str("");
	app.add_option("--ps", o.ps, "PS list: IP[/MAC][,IP[/MAC]...] (required except with --transport roce)");
	app.add_option("--levels", o.levels, "in-network levels (0..4)")->check(CLI::Range(0u, INA_MAX_LEVELS));
	app.add_option("--start-level", o.start_level, "level of this worker's first aggregation point")
		->check(CLI::Range(0u, INA_MAX_LEVELS - 1));
	app.add_option("--bit", o.bits, "bitmap bit per level, comma separated (default: rank)")->default_str("");
	app.add_option("--fan-in", o.fan_in, "fan-in per level, comma separated (default: workers)");
	app.add_option("--next-hop-mac", o.next_hop_mac, "destination MAC of gradient frames (switch)");
	app.add_option("--transport", cfg.transport.kind, "auto, af_xdp, af_packet, udp, dpdk, rdma, roce (NetReduce ring: --set roce_*)");
	app.add_option("--device", cfg.transport.device, "interface (or RDMA/DPDK device)");
	app.add_option("--ip", o.ip, "local IPv4 address");
	app.add_option("--udp-port", cfg.transport.udp_port,
		       "local UDP port (udp transport; 0: 18766, the INA port; thread t binds it + t)");
	app.add_option("--elements", o.elements,
		       "values per fragment, 1.." + std::to_string(INA_MAX_ELEMENTS) +
			       ", or auto: the job's size, asked of the PS (docs/worker.md)")
		->check(CLI::IsMember({"auto"}) | CLI::Range(1u, unsigned(INA_MAX_ELEMENTS)))
		->capture_default_str();
	app.add_option("--aggregators", cfg.aggregators, "aggregators per switch (hash modulus)")
		->check(CLI::Range(1u, ina::kMaxAggregators));
	app.add_option("--cc", o.cc, "congestion control: none, atp, a2tp");
	app.add_option("--scale", cfg.scale, "float -> int32 scaling factor")->check(ina::finite_range(1e-30, 1e30));
	app.add_option("--threads", cfg.threads, "sender threads")->check(CLI::Range(1, 64));
	app.add_option("--host-drop", cfg.transport.drop, "host fault shim: drop probability")
		->check(ina::finite_range(0, 1));
	app.add_option("--duplicate", cfg.transport.duplicate, "host fault shim: duplicate probability")
		->check(ina::finite_range(0, 1));
	app.add_option("--reorder", cfg.transport.reorder, "host fault shim: reorder probability")
		->check(ina::finite_range(0, 1));
	app.add_option("--seed", cfg.transport.seed, "host fault shim seed");
	app.add_option("--size", o.size_bytes, "tensor size per round (bytes; K, M, G = KiB, MiB, GiB)")
		->transform(ina::size_bytes(1, kMaxSizeBytes))
		->default_str("1M");
	app.add_option("--rounds", o.rounds, "rounds")->check(CLI::Range(1u, 1000000000u));
	app.add_option("--tensors", o.tensors, "split each round into this many tensors in flight")
		->check(CLI::Range(1u, kMaxTensors));
	app.add_option("--pattern", o.pattern, "data: normal, overflow");
	app.add_option("--tolerance", o.tolerance, "fail (exit 3) if an element's error exceeds this plus "
						   "the float rounding of the sum, |sum| x 2^-24 (default: workers / scale)")
		->check(ina::finite_range(0, 1e30))
		->default_str("");
	app.add_option("--goat-plan", o.goat_plan, "GOAT plan (ina-goat-plan's output): agg_node per sub-model");
	app.add_option("--goat-worker", o.goat_worker, "this worker's name in the plan (default: workers[rank])");
	app.add_option("--ready-file", o.ready_file,
		       "create this file once the transport is up and the data generated (a start barrier)");
	app.add_option("--go-file", o.go_file, "then wait until this file exists before the first round");
	app.add_option("--go-timeout", o.go_timeout_s, "seconds to wait for --go-file")
		->check(ina::finite_range(0, 86400));
	app.add_option("--trace", o.trace_path,
		       "write the worker's counters every --trace-interval-ms to this file, one JSON object per line");
	app.add_option("--trace-interval-ms", o.trace_interval_ms, "the --trace interval")
		->check(CLI::Range(1u, 60000u));
	app.add_option("--compute-ms", o.compute_ms,
		       "between rounds, this long without traffic, as a training step's compute phase (an off phase)")
		->check(CLI::Range(0u, 3600000u));
	app.add_option("--set", o.sets, "any worker config key=value, repeatable (see ina/worker.h)")->default_str("");
	app.add_flag("--json", o.json, "print one JSON object");
	app.add_flag("--check-config", o.check_config,
		     "check the configuration these options make, print it as JSON with every default filled in "
		     "and exit (exit 2 if invalid); opens nothing");
	app.add_flag("-q,--quiet", o.quiet, "no progress line on stderr (shown only when stderr is a terminal)");
	rc = ina::parse_cli("ina-worker", app, {split.own.rbegin(), split.own.rend()});
	o.bits_given = app.count("--bit") > 0;
	if (rc >= 0)
		return rc;
	if (split.separated && !split.eal.empty() && cfg.transport.kind != "dpdk") {
		ina::print_error("ina-worker", "EAL arguments (before \"--\") are for --transport dpdk only");
		return ina::kExitUsage;
	}
	cfg.transport.eal_args = ina::join_args(split.eal);
	return -1;
}

/* The options that go through the worker's config keys; returns -1 to go
 * on, else the exit code. */
int configure(Options &o)
{
	ina::WorkerConfig &cfg = o.cfg;
	std::string err;
	auto set = [&cfg, &err](const std::string &k, const std::string &v) {
		if (!ina::set_config_key(&cfg, k, v, &err)) {
			ina::print_error("ina-worker", err);
			return false;
		}
		return true;
	};
	if (o.workers < 1 || cfg.rank >= o.workers) {
		ina::print_error("ina-worker", "need 0 <= rank < workers");
		return 2;
	}
	if (o.pattern != "normal" && o.pattern != "overflow") {
		ina::print_error("ina-worker", "unknown pattern '" + o.pattern + "' (normal, overflow)");
		return 2;
	}
	/* roce (NetReduce, docs/netreduce.md): a ring of --workers ranks and
	 * no PS; the successor and the window come from --set roce_*. */
	const bool roce = cfg.transport.kind == "roce";
	if (o.ps.empty() && !roce) {
		ina::print_error("ina-worker", "--ps is required (except with --transport roce)");
		return 2;
	}
	bool ok = (roce ? set("roce_ranks", std::to_string(o.workers)) : set("ps", o.ps)) &&
		  set("cc", o.cc) && set("levels", std::to_string(o.levels)) &&
		  (!o.epoch_opt->count() || set("epoch", std::to_string(o.epoch))) &&
		  set("start_level", std::to_string(o.start_level)) &&
		  set("bit", o.bits_given ? o.bits : std::to_string(cfg.rank)) &&
		  set("fan_in", o.fan_in.empty() ? std::to_string(o.workers) : o.fan_in) &&
		  (o.next_hop_mac.empty() || set("next_hop_mac", o.next_hop_mac)) &&
		  (o.ip.empty() || set("ip", o.ip)) && set("elements", o.elements);
	for (size_t k = 0; ok && k < o.sets.size(); k++) {
		const std::string &kv = o.sets[k];
		size_t eq = kv.find('=');
		if (eq == std::string::npos) {
			ina::print_error("ina-worker", "--set wants key=value, got '" + kv + "'");
			return 2;
		}
		if (kv.substr(0, eq) == "eal_args") {
			ina::print_error("ina-worker", "--set eal_args is no longer accepted: EAL arguments go before "
						       "\"--\": ina-worker [EAL args] -- --transport dpdk ...");
			return 2;
		}
		ok = set(kv.substr(0, eq), kv.substr(eq + 1));
	}
	if (ok && !o.goat_plan.empty()) {
		const size_t n = round_elements(o);
		const std::string ranges = goat_ranges_from_plan(o.goat_plan, o.goat_worker, cfg, n, &err);
		if (ranges.empty()) {
			ina::print_error("ina-worker", err);
			return 2;
		}
		ok = set("goat", ranges);
	}
	if (!ok)
		return 2;
	if (o.tolerance < 0)
		o.tolerance = o.workers / cfg.scale;
	return -1;
}

/* What the rounds gave. */
struct Outcome {
	size_t n = 0;          /* elements per round */
	double max_err = 0;
	uint64_t beyond = 0;   /* elements outside the bound */
	double busy_s = 0;
	double cpu_s = 0; /* process CPU time (all threads) over busy_s */
	bool ok = true;
	std::string err;
};

/* CPU time of every thread of this process: what the host stack costs,
 * without the set-up before the first round. */
double process_cpu_seconds()
{
	timespec ts{};
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/* The start barrier of a job's workers (--ready-file, --go-file): each
 * says it is ready, whoever starts the job creates the go file when all
 * are. Without it, one worker's start-up (its transport, its data) would
 * run while the others already send, and count in their time. */
bool wait_for_go(const Options &o, std::string *err)
{
	if (!o.ready_file.empty()) {
		FILE *f = fopen(o.ready_file.c_str(), "w");
		if (!f) {
			*err = o.ready_file + ": " + strerror(errno);
			return false;
		}
		fclose(f);
	}
	if (o.go_file.empty())
		return true;
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.go_timeout_s);
	while (access(o.go_file.c_str(), F_OK) != 0) {
		if (std::chrono::steady_clock::now() > deadline) {
			*err = "no " + o.go_file + " after " + std::to_string(o.go_timeout_s) + " s";
			return false;
		}
		usleep(500);
	}
	return true;
}

/* The live line (ina/progress.h): goodput since the last line, fragments,
 * retransmits and the share of fragments the switches aggregated. */
struct Progress {
	explicit Progress(bool quiet) : line(quiet) {}
	ina::ProgressLine line;
	uint64_t last_fragments = 0;
	uint64_t last_us = 0;
};

uint64_t steady_us()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
					     std::chrono::steady_clock::now().time_since_epoch())
					     .count());
}

void show_progress(Progress &p, const ina::Worker &w, uint64_t now)
{
	const ina::WorkerStats s = w.stats();
	const double dt = (now - p.last_us) / 1e6;
	/* Fragments rather than bytes_reduced, which counts whole tensors. */
	const double bytes = static_cast<double>(s.fragments - p.last_fragments) *
			     w.config().elements_per_packet * sizeof(float);
	char text[200];
	snprintf(text, sizeof(text), "ina-worker: %.3f Gb/s  fragments %llu  retransmits %llu  in switch %.1f%%",
		 dt > 0 ? bytes * 8 / dt / 1e9 : 0.0,
		 static_cast<unsigned long long>(s.fragments), static_cast<unsigned long long>(s.retransmits),
		 s.acks ? 100.0 * s.switch_acks / s.acks : 0.0);
	p.line.show(text);
	p.last_fragments = s.fragments;
	p.last_us = now;
}

/* h.wait(), with the progress line and the trace while it takes: clock
 * readings per progress line or trace interval, none per packet. */
bool wait_showing(ina::AllreduceHandle &h, const ina::Worker &w, Progress &p, StatsTrace &trace, std::string *err)
{
	if (p.line.enabled() || trace.enabled()) {
		const uint32_t step = trace.enabled() ? std::min<uint32_t>(250, trace.interval_ms()) : 250;
		bool done;
		do {
			done = h.wait_for(step);
			const uint64_t now = steady_us();
			if (p.line.enabled() && p.line.due(now))
				show_progress(p, w, now);
			/* Also when the round ended before the wait did: rounds
			 * shorter than the interval would leave no line at all. */
			if (trace.enabled())
				trace.sample(now, w.stats());
		} while (!done);
	}
	return h.wait(err);
}

/* --compute-ms: the off phase between two rounds, traced like the rounds. */
void compute_phase(uint32_t ms, const ina::Worker &w, StatsTrace &trace)
{
	const uint64_t end = steady_us() + ms * 1000ull;
	for (uint64_t now = steady_us(); now < end; now = steady_us()) {
		const uint64_t step = trace.enabled() ? trace.interval_ms() * 1000ull : end - now;
		std::this_thread::sleep_for(std::chrono::microseconds(std::min(step, end - now)));
		if (trace.enabled())
			trace.sample(steady_us(), w.stats());
	}
}

Outcome run_rounds(ina::Worker &w, Options &o)
{
	const ina::WorkerConfig &cfg = w.config(); /* the fragment size the job uses */
	Outcome r;
	const size_t n = round_elements(o);
	r.n = n;
	const bool overflow = o.pattern == "overflow";
	const uint32_t epp = cfg.elements_per_packet;
	std::vector<float> input(n), buf(n);
	std::vector<double> expected(n, 0.0);
	for (size_t i = 0; i < n; i++) {
		input[i] = static_cast<float>(value(cfg.rank, i, overflow, epp));
		for (uint32_t k = 0; k < o.workers; k++)
			expected[i] += static_cast<float>(value(k, i, overflow, epp));
	}
	o.tensors = std::max<uint32_t>(1, std::min<size_t>(o.tensors, n));
	std::vector<ina::AllreduceHandle> hs(o.tensors);
	StatsTrace trace;
	if ((!o.trace_path.empty() && !trace.open(o.trace_path, o.trace_interval_ms, &r.err)) ||
	    !wait_for_go(o, &r.err)) {
		r.ok = false;
		ina::print_error("ina-worker", r.err);
		return r;
	}
	trace.start(steady_us());
	Progress progress(o.quiet);
	progress.line.due(steady_us()); /* starts its clock */
	progress.last_us = steady_us();
	for (uint32_t round = 0; round < o.rounds && r.ok; round++) {
		if (round)
			compute_phase(o.compute_ms, w, trace);
		memcpy(buf.data(), input.data(), n * sizeof(float));
		auto t0 = std::chrono::steady_clock::now();
		const double cpu0 = process_cpu_seconds();
		size_t per = (n + o.tensors - 1) / o.tensors;
		for (uint32_t t = 0; t < o.tensors; t++) {
			size_t off = std::min(n, t * per), len = std::min(per, n - off);
			hs[t] = w.allreduce_async(buf.data() + off, len, &r.err);
			if (!hs[t].valid()) {
				r.ok = false;
				break;
			}
		}
		for (uint32_t t = 0; t < o.tensors && r.ok; t++)
			if (!wait_showing(hs[t], w, progress, trace, &r.err))
				r.ok = false;
		r.busy_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		r.cpu_s += process_cpu_seconds() - cpu0;
		if (!r.ok)
			break;
		for (size_t i = 0; i < n; i++) {
			double e = std::fabs(buf[i] - expected[i]);
			r.max_err = std::max(r.max_err, e);
			r.beyond += e > o.tolerance + std::fabs(expected[i]) * 0x1p-24;
		}
	}
	progress.line.finish();
	trace.finish(steady_us(), w.stats());
	if (!r.ok)
		ina::print_error("ina-worker", "all-reduce failed: " + r.err);
	return r;
}

void print_json(const ina::Worker &w, const Options &o, const Outcome &r, const ina::WorkerStats &s,
		double goodput, double switch_share)
{
	const ina::WorkerConfig &cfg = o.cfg;
	nlohmann::json j = {
		{"rank", cfg.rank},
		{"workers", o.workers},
		{"transport", w.transport_name()},
		{"cc", ina::cc_kind_name(cfg.cc.kind)},
		{"elements", w.config().elements_per_packet},
		{"epoch", w.config().epoch},
		{"quantize", ina::quantize_impl()},
		{"size_bytes", r.n * sizeof(float)},
		{"rounds", o.rounds},
		{"tensors_per_round", o.tensors},
		{"seconds", r.busy_s},
		{"cpu_seconds", r.cpu_s},
		{"goodput_gbps", goodput},
		{"fragments", s.fragments},
		{"packets_sent", s.packets_sent},
		{"acks", s.acks},
		{"switch_acks", s.switch_acks},
		{"switch_share", switch_share},
		{"remaps", s.remaps},
		{"col_acks", s.col_acks},
		{"ecn_acks", s.ecn_acks},
		{"delay_acks", s.delay_acks},
		{"retransmits", s.retransmits},
		{"fast_retransmits", s.fast_retransmits},
		{"timeouts", s.timeouts},
		{"duplicate_acks", s.duplicate_acks},
		{"out_of_order_acks", s.out_of_order_acks},
		{"stale_acks", s.stale_acks},
		{"bypass_sent", s.bypass_sent},
		{"overflow_requests", s.overflow_requests},
		{"resend_requests", s.resend_requests},
		{"float_fragments_sent", s.float_fragments_sent},
		{"float_acks", s.float_acks},
		{"saturated_values", s.saturated_values},
		{"rx_malformed", s.rx_malformed},
		{"rx_not_ina", s.rx_not_ina},
		{"rx_other_job", s.rx_other_job},
		{"rx_not_from_ps", s.rx_not_from_ps},
		{"rx_not_for_worker", s.rx_not_for_worker},
		{"tx_backpressure", s.tx_backpressure},
		{"rx_transport_drops", s.rx_transport_drops},
		{"window", s.window},
		{"agg_window", s.agg_window},
		{"straggling", s.straggling},
		{"srtt_us", s.srtt_ns / 1000.0},
		{"rto_us", s.rto_ns / 1000.0},
		{"max_abs_error", r.max_err},
		{"error_bound", o.tolerance},
		{"elements_beyond_bound", r.beyond},
		{"within_bound", r.ok && r.beyond == 0},
	};
	if (!r.ok)
		j["error"] = r.err;
	printf("%s\n", j.dump().c_str());
}

void print_text(const ina::Worker &w, const Options &o, const Outcome &r, const ina::WorkerStats &s,
		double goodput, double switch_share)
{
	const ina::WorkerConfig &cfg = o.cfg;
	printf("rank %u/%u  %s  cc %s  %zu B x %u rounds in %.3f s\n", cfg.rank, o.workers,
	       w.transport_name().c_str(), ina::cc_kind_name(cfg.cc.kind), r.n * sizeof(float), o.rounds,
	       r.busy_s);
	printf("goodput %.3f Gb/s  fragments %llu  packets %llu\n", goodput,
	       static_cast<unsigned long long>(s.fragments), static_cast<unsigned long long>(s.packets_sent));
	printf("aggregated in switch %.1f%%  collisions: remaps %llu, Col ACKs %llu  ECN ACKs %llu\n",
	       100 * switch_share, static_cast<unsigned long long>(s.remaps),
	       static_cast<unsigned long long>(s.col_acks), static_cast<unsigned long long>(s.ecn_acks));
	printf("retransmits %llu (fast %llu, timeout %llu)  duplicate ACKs %llu  float fragments %llu\n",
	       static_cast<unsigned long long>(s.retransmits), static_cast<unsigned long long>(s.fast_retransmits),
	       static_cast<unsigned long long>(s.timeouts), static_cast<unsigned long long>(s.duplicate_acks),
	       static_cast<unsigned long long>(s.float_fragments_sent));
	printf("max abs error %.3g (bound %.3g + |sum| 2^-24) %s\n", r.max_err, o.tolerance,
	       r.ok && r.beyond == 0 ? "ok" : "EXCEEDED");
}

} /* namespace */

/* main() without the last-resort catch. */
static int run_worker(int argc, char **argv)
{
	Options o;
	int rc = parse_options(argc, argv, o);
	if (rc < 0)
		rc = configure(o);
	if (rc >= 0)
		return rc;
	if (o.check_config)
		return check_worker_config(o.cfg);
	std::string err;
	auto w = ina::Worker::open(o.cfg, &err);
	if (!w) {
		ina::print_error("ina-worker", err);
		/* roce checks its ring config and looks for the RDMA device
		 * before anything goes on the network: what it refuses is the
		 * command line's or the host's, an error of use. */
		return o.cfg.transport.kind == "roce" ? 2 : 1;
	}
	const Outcome r = run_rounds(*w, o);
	const ina::WorkerStats s = w->stats();
	const double bytes = static_cast<double>(r.n) * sizeof(float) * o.rounds;
	const double goodput = r.busy_s > 0 ? bytes * 8 / r.busy_s / 1e9 : 0;
	const double switch_share = s.acks ? static_cast<double>(s.switch_acks) / s.acks : 0;
	if (o.json)
		print_json(*w, o, r, s, goodput, switch_share);
	else
		print_text(*w, o, r, s, goodput, switch_share);
	if (!r.ok)
		return 1;
	return r.beyond == 0 ? 0 : 3;
}

int main(int argc, char **argv)
{
	return ina::run_main("ina-worker", [&] { return run_worker(argc, argv); });
}
