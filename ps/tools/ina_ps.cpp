/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-ps: the parameter server daemon. Serves the jobs of the given job
 * descriptions on one transport, registers them with their switch, and prints
 * per-job statistics on exit (SIGINT/SIGTERM, or --duration).
 *
 * With --threads N the fragments are split into N shards (ps_shard()), each
 * served by one thread with its own ParameterServer, so no fragment state is
 * shared. A thread with a receive queue of its own (the udp transport: one
 * SO_REUSEPORT socket per thread, steered by fragment in the kernel) serves
 * what arrives there; on a transport with one queue, thread 0 receives for
 * all, hands each frame to its shard's thread over a single-producer ring and
 * sends the replies those threads hand back. Frames that reach the wrong
 * thread are handed over the same way. The control client (registration with
 * the switch) lives on thread 0 only.
 */
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ina/cli.h"
#include "ina/codec.h"
#include "ina/control_client.h"
#include "ina/frame_ring.h"
#include "ina/ps.h"
#include "ina/ps_config.h"
#include "ina/progress.h"
#include "ina/ps_steering.h"

#include "check_job.h"
#include "ina/transport.h"

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

uint64_t now_ns()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
					     std::chrono::steady_clock::now().time_since_epoch())
					     .count());
}

uint64_t now_us() { return now_ns() / 1000; }

/* The wall clock, for control-message counters (docs/protocol.md). */
uint64_t wall_ns()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
					     std::chrono::system_clock::now().time_since_epoch())
					     .count());
}

/* How long the unregistration at exit may take. */
constexpr uint64_t kUnregisterTimeoutUs = 1000000;

/* How long a full transport is retried before the rest of a batch is
 * dropped (a lost parameter packet costs its workers a retransmission
 * timeout, 20 ms at least). A count of retries was too short when the
 * receiver sharing this machine's CPUs was descheduled: 32 of 67k parameter
 * packets were lost over memif. */
constexpr uint64_t kTxStallNs = 2000000;

/* Sends every queued frame; a full transport is retried for kTxStallNs. */
uint64_t flush(ina::Transport &t, ina::TxQueue &tx, std::vector<ina::FrameBuf> &view)
{
	for (uint32_t i = 0; i < tx.size(); i++)
		view[i] = ina::FrameBuf{tx.data(i), tx.len(i), tx.len(i)};
	uint32_t done = 0;
	uint64_t stall_since = 0;
	while (done < tx.size()) {
		uint32_t n = t.send(view.data() + done, tx.size() - done);
		done += n;
		if (n) {
			stall_since = 0;
			continue;
		}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t now = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
		if (!stall_since)
			stall_since = now;
		else if (now - stall_since > kTxStallNs)
			break;
		sched_yield();
	}
	uint64_t lost = tx.size() - done;
	tx.clear();
	return lost;
}

std::string ip_text(uint32_t ip)
{
	return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
	       std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

/* Threads `--threads auto` (or 0) may use at most: past a few, one PS is
 * limited by its receive queue, not by its shards. */
constexpr uint32_t kAutoThreadsMax = 8;

/* The command line. */
struct Options {
	std::vector<std::string> job_files;
	ina::TransportConfig tcfg;
	std::string ip_arg;
	std::string threads_arg = "1";
	uint32_t threads = 1;
	bool json = false;
	double duration = 0;
	uint32_t register_interval_ms = 0;
	bool no_register = false;
	bool quiet = false;
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
	app.add_option("--duration", o.duration, "stop after this many seconds (0: at SIGINT/SIGTERM)")
		->check(ina::finite_range(0, 1e9));
	app.add_option("--register-interval-ms", o.register_interval_ms,
		       "repeat the job registration this often (0: once at start)")
		->check(CLI::Range(0u, 86400000u));
	app.add_flag("--udp-gso", tcfg.udp_gso, "udp transport: send runs of parameter packets as UDP GSO messages, receive runs as UDP GRO messages");
	app.add_flag("--no-register", o.no_register,
		     "do not register the jobs with their switch (nor send their GOAT plans)");
	app.add_option("--resume", o.resume,
		       "JOB=EPOCH, repeatable: continue run EPOCH of JOB after a restart (docs/ps.md, "
		       "\"Restarting a PS\"); the switch refuses an epoch that is not the job's run")
		->type_name("JOB=EPOCH")
		->default_str("");
	app.add_flag("--json", o.json, "print the statistics as JSON");
	app.add_flag("-q,--quiet", o.quiet, "no progress line on stderr (shown only when stderr is a terminal)");
	rc = ina::parse_cli("ina-ps", app, {split.own.rbegin(), split.own.rend()});
	if (rc >= 0)
		return rc;
	if (split.separated && !split.eal.empty() && tcfg.kind != "dpdk") {
		ina::print_error("ina-ps", "EAL arguments (before \"--\") are for --transport dpdk only");
		return ina::kExitUsage;
	}
	tcfg.eal_args = ina::join_args(split.eal);
	if (!parse_threads(o.threads_arg, &o.threads)) {
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
		c.refresh_ms = o.register_interval_ms <= 0xFFFF ? static_cast<uint16_t>(o.register_interval_ms) : 0;
		jobs.push_back(c);
	}
	return -1;
}

double thread_cpu_seconds()
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double process_cpu_seconds()
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One serving thread: its shard of the fragments, its receive queue if it
 * has one, and the rings to and from the other threads. */
struct Shard {
	static constexpr uint32_t kBatch = 64;

	uint32_t index;
	std::unique_ptr<ina::ParameterServer> ps;
	ina::Transport *io = nullptr; /* own receive (and send) queue, or none */
	ina::TxQueue tx;
	std::vector<ina::FrameBuf> view;
	std::vector<std::vector<uint8_t>> rxmem;
	std::vector<ina::FrameBuf> rx;
	std::vector<ina::PsFrameRing *> in;  /* frames handed to this shard */
	std::vector<ina::PsFrameRing *> out; /* by destination shard; null: none */
	ina::PsFrameRing *tx_ring = nullptr; /* without io: replies for thread 0 to send */
	ina::Doorbell bell;
	/* Counters, read after the thread ended. */
	uint64_t rx_frames = 0;    /* received from its own queue */
	uint64_t handed_off = 0;   /* of those, handed to another shard */
	uint64_t handoff_full = 0; /* not handed over: the ring was full (dropped) */
	uint64_t taken = 0;        /* frames handed to it by other threads */
	uint64_t tx_lost = 0;
	double cpu_seconds = 0;

	Shard(uint32_t i, uint32_t shards, const ina::Endpoint &self, uint32_t max_workers, bool has_io)
		: index(i), ps(std::make_unique<ina::ParameterServer>(self, i, shards)),
		  tx(kBatch * 8 + 2 * max_workers + 8), view(tx.capacity()), out(shards, nullptr)
	{
		if (has_io) {
			rxmem.assign(kBatch, std::vector<uint8_t>(INA_FRAME_LEN(INA_MAX_ELEMENTS)));
			rx.resize(kBatch);
		}
	}

	/* Sends (or hands to thread 0) what tx holds. */
	void flush_tx()
	{
		if (!tx.size())
			return;
		if (io) {
			tx_lost += flush(*io, tx, view);
			return;
		}
		for (uint32_t i = 0; i < tx.size(); i++) {
			/* Thread 0 drains this ring on every turn of its loop. */
			while (!tx_ring->put(tx.data(i), tx.len(i))) {
				tx_ring->publish();
				sched_yield();
			}
		}
		tx_ring->publish();
		tx.clear();
	}

	/* Receives one batch from the own queue, waiting up to timeout_us. */
	uint32_t receive(uint32_t timeout_us)
	{
		for (uint32_t i = 0; i < kBatch; i++)
			rx[i] = ina::FrameBuf{rxmem[i].data(), 0, static_cast<uint32_t>(rxmem[i].size())};
		uint32_t n = io->recv(rx.data(), kBatch, timeout_us);
		rx_frames += n;
		return n;
	}

	/* True while another thread still holds frames this one handed it. */
	bool handoff_busy() const
	{
		for (const ina::PsFrameRing *r : out)
			if (r && r->busy())
				return true;
		return false;
	}
};

/* The serving state: the shards on their transports, and the control client. */
struct Daemon {
	const Options &o;
	const std::vector<ina::PsJobConfig> &jobs;
	std::vector<std::unique_ptr<ina::Transport>> &transports;
	uint32_t max_workers;
	ina::ControlClient control;
	ina::Endpoint self_;
	/* Each served job's fragment size as workers are told it (JOB_INFO);
	 * 0 until the path is known, when queries go unanswered and the
	 * workers ask again. */
	std::map<uint16_t, uint16_t> job_size;
	/* Each served job's epoch, set with its size: the one the shards
	 * stamp and require, and the one JOB_INFO tells the workers, so that
	 * the two never differ (a refresh's ACK renews it; control.epoch()
	 * follows the switch, this follows the run). */
	std::map<uint16_t, uint8_t> job_epoch;
	std::vector<std::unique_ptr<Shard>> shards;
	std::set<uint16_t> epoch_warned; /* jobs check_epochs() reported */
	std::vector<std::unique_ptr<ina::PsFrameRing>> rings;

	Daemon(const Options &opts, const std::vector<ina::PsJobConfig> &j,
	       std::vector<std::unique_ptr<ina::Transport>> &t, uint32_t max_w, const ina::Endpoint &self)
		: o(opts), jobs(j), transports(t), max_workers(max_w), control(self), self_(self)
	{
		for (const auto &c : jobs)
			job_size[c.job] = 0;
		const uint32_t n = o.threads, queues = static_cast<uint32_t>(t.size());
		for (uint32_t i = 0; i < n; i++) {
			shards.push_back(std::make_unique<Shard>(i, n, self, max_w, i < queues));
			if (i < queues)
				shards[i]->io = t[i].get();
		}
		uint32_t largest = 1;
		for (const auto &c : jobs)
			largest = std::max<uint32_t>(largest, c.elements);
		const uint32_t bytes = std::max<uint32_t>(INA_FRAME_LEN(largest), ina::kCtrlMaxFrameLen);
		/* With a queue per thread the kernel steers by fragment and the
		 * rings carry only strays (control frames to thread 0); with one
		 * queue they carry every other shard's traffic. */
		const uint32_t ring_slots = queues == 1 ? 1024 : 64;
		for (uint32_t src = 0; src < queues; src++)
			for (uint32_t dst = 0; dst < n; dst++) {
				if (src == dst)
					continue;
				rings.push_back(std::make_unique<ina::PsFrameRing>(ring_slots, bytes));
				shards[src]->out[dst] = rings.back().get();
				shards[dst]->in.push_back(rings.back().get());
			}
		for (uint32_t i = queues; i < n; i++) {
			rings.push_back(std::make_unique<ina::PsFrameRing>(1024, bytes));
			shards[i]->tx_ring = rings.back().get();
		}
	}

	ina::ParameterServer &ps0() { return *shards[0]->ps; }
	const ina::ParameterServer &ps0() const { return *shards[0]->ps; }

	/* Thread 0: answers a worker's JOB_QUERY (docs/protocol.md, "Fragment
	 * size"); false if the frame is not one. */
	bool answer_query(const ina::RxFrame &rx, ina::TxQueue &tx)
	{
		uint16_t job;
		if (!ina::is_job_query(rx, self_, &job))
			return false;
		auto it = job_size.find(job);
		if (it != job_size.end() && it->second == 0)
			return true; /* not known yet: the worker asks again */
		uint8_t *out = tx.reserve();
		if (!out)
			return true;
		const uint16_t size = it == job_size.end() ? 0 : it->second;
		const uint32_t n = ina::build_job_info(rx, self_, size, size ? job_epoch[job] : 0, out,
						      INA_FRAME_LEN(INA_MAX_ELEMENTS));
		if (n)
			tx.commit(n);
		return true;
	}

	/* One frame for shard s, parsed once by the thread that received it:
	 * control acknowledgements (thread 0) to the control client, the rest
	 * to the shard's PS. */
	void handle(Shard &s, const ina::RxFrame &rx, uint64_t now_ns)
	{
		if (s.index == 0 && (answer_query(rx, s.tx) || control.take(rx)))
			return;
		if (s.tx.room() < max_workers + 1)
			s.flush_tx();
		s.ps->handle(rx, now_ns, s.tx);
	}

	/* The frames s received: its own handled, the others' handed over. */
	void dispatch(Shard &s, uint32_t n, uint64_t now)
	{
		for (uint32_t i = 0; i < n; i++) {
			const ina::FrameBuf &f = s.rx[i];
			const ina::RxFrame rx = ina::parse_rx_frame(f.data, f.len);
			uint32_t owner = ps0().shard_of(rx);
			if (owner == s.index) {
				handle(s, rx, now);
			} else if (s.out[owner]->put(rx)) {
				s.handed_off++;
			} else {
				s.handoff_full++;
			}
		}
		for (uint32_t d = 0; d < s.out.size(); d++)
			if (s.out[d] && s.out[d]->publish())
				shards[d]->bell.ring();
	}

	/* Handles what other threads handed to s; its replies are queued
	 * before the slots are released (see PsFrameRing). */
	uint32_t drain_in(Shard &s, uint64_t now)
	{
		uint32_t got = 0;
		for (ina::PsFrameRing *r : s.in) {
			uint32_t n = r->ready();
			if (!n)
				continue;
			for (uint32_t i = 0; i < n; i++)
				handle(s, r->rx(i), now);
			s.flush_tx();
			r->release(n);
			got += n;
		}
		s.taken += got;
		return got;
	}

	/* Thread 0: sends what the shards without a queue handed back. */
	void send_handed_back()
	{
		Shard &s0 = *shards[0];
		for (uint32_t i = transports.size(); i < shards.size(); i++) {
			ina::PsFrameRing *r = shards[i]->tx_ring;
			uint32_t n = r->ready();
			for (uint32_t k = 0; k < n; k++) {
				if (s0.tx.room() == 0)
					s0.flush_tx();
				uint32_t len;
				const uint8_t *f = r->frame(k, &len);
				uint8_t *out = s0.tx.reserve();
				memcpy(out, f, len);
				s0.tx.commit(len);
			}
			if (n)
				r->release(n);
		}
		s0.flush_tx();
	}

	/* One turn of thread 0's loop: receive, hand over, send. While other
	 * threads hold frames it handed them, it waits for new frames only
	 * kBusyWaitUs, so that their replies leave soon after they are queued;
	 * it sleeps in the transport rather than spinning, which on a host with
	 * fewer CPUs than busy threads would take the CPU from the very shard
	 * threads it waits for. */
	static constexpr uint32_t kBusyWaitUs = 50;
	void serve_turn0(uint64_t now)
	{
		Shard &s0 = *shards[0];
		uint32_t n = s0.receive(s0.handoff_busy() ? kBusyWaitUs : 1000);
		now = now_ns();
		dispatch(s0, n, now);
		drain_in(s0, now);
		s0.flush_tx();
		s0.ps->tick(now, s0.tx);
		s0.flush_tx();
		send_handed_back();
	}

	/* Threads 1..N-1 until the stop flag. */
	void serve_shard(Shard &s)
	{
		while (!g_stop.load(std::memory_order_relaxed)) {
			uint32_t got = 0;
			if (s.io) {
				uint32_t n = s.receive(s.handoff_busy() ? 0 : 1000);
				dispatch(s, n, now_ns());
				got += n;
			}
			got += drain_in(s, now_ns());
			s.flush_tx();
			s.ps->tick(now_ns(), s.tx);
			s.flush_tx();
			if (s.io || got)
				continue;
			s.bell.arm();
			bool idle = true;
			for (ina::PsFrameRing *r : s.in)
				idle = idle && r->ready() == 0;
			if (idle)
				s.bell.wait(1000);
			s.bell.disarm();
		}
		s.cpu_seconds = thread_cpu_seconds();
	}

	/* Starts a (un)registration of every job that has a switch. */
	void start_control(bool unregister, uint64_t now)
	{
		for (const auto &c : jobs)
			if (c.has_switch && control.state(c.job) != ina::ControlClient::State::kPending)
				control.start(c, unregister,
					      now, unregister ? kUnregisterTimeoutUs : c.register_timeout_ms * 1000ull);
	}

	/* Starts installing (or removing) every job's GOAT assignments on the
	 * switches of its plan. */
	void start_goat(bool remove, uint64_t now)
	{
		for (const auto &c : jobs)
			for (size_t i = 0; i < c.goat.size(); i++)
				if (control.goat_state(c.job, c.goat[i].id) != ina::ControlClient::State::kPending)
					control.start_goat(c, i, remove, now,
							   remove ? kUnregisterTimeoutUs : c.register_timeout_ms * 1000ull);
	}

	/* Receives one batch on thread 0's queue while no other thread serves
	 * (before they start, after they end): every shard's frames are handled
	 * here, replies through thread 0's queue. */
	void receive_alone(uint32_t timeout_us)
	{
		Shard &s0 = *shards[0];
		uint32_t n = s0.receive(timeout_us);
		uint64_t now = now_us();
		for (uint32_t i = 0; i < n; i++) {
			const ina::FrameBuf &f = s0.rx[i];
			const ina::RxFrame rx = ina::parse_rx_frame(f.data, f.len);
			if (answer_query(rx, s0.tx) || control.take(rx))
				continue;
			if (s0.tx.room() < max_workers + 1)
				s0.flush_tx();
			shards[ps0().shard_of(rx)]->ps->handle(rx, now, s0.tx);
		}
	}

	/* Sends what the control client has due. */
	void poll_control()
	{
		Shard &s0 = *shards[0];
		control.poll(now_us(), wall_ns(), s0.tx);
		s0.flush_tx();
	}

	/* Waits for the requests started; false if interrupted (while
	 * setting up: `patient` false). Runs while thread 0 is the only one. */
	bool wait_control(bool patient)
	{
		while (control.pending()) {
			if (!patient && g_stop.load(std::memory_order_relaxed))
				return false; /* interrupted while waiting for the switch */
			poll_control();
			receive_alone(10000);
		}
		return true;
	}

	/* Registers every job with its switch, then installs its GOAT
	 * assignments (the switch may refuse them for a job it does not know);
	 * on the way out removes the assignments, then unregisters. False
	 * (after a message per request) if one was not applied. */
	bool control_all(bool unregister)
	{
		if (o.no_register)
			return true;
		if (unregister) {
			start_goat(true, now_us());
			wait_control(true);
			start_control(true, now_us());
			wait_control(true);
		} else {
			start_control(false, now_us());
			if (!wait_control(false))
				return false;
			start_goat(false, now_us());
			if (!wait_control(false))
				return false;
		}
		return all_applied(unregister);
	}

	/* After a refresh: a switch renews the run's epoch (docs/protocol.md,
	 * "Epochs"), also after it restarted. One that started a new run
	 * instead now drops this run's packets (stale_epoch_drops), and only
	 * restarting the PS and the workers joins them again: said once per job. */
	void check_epochs()
	{
		for (const auto &c : jobs) {
			if (!c.has_switch || control.state(c.job) != ina::ControlClient::State::kApplied)
				continue;
			const uint8_t now = control.epoch(c.job);
			if (now != job_epoch[c.job] && epoch_warned.insert(c.job).second)
				fprintf(stderr,
					"ina-ps: job %u: switch %s gave the job epoch %u, a new run, while this PS "
					"and its workers run epoch %u: it drops their packets (stale_epoch_drops); "
					"restart ina-ps and the workers\n",
					c.job, ip_text(c.switch_ip).c_str(), now, job_epoch[c.job]);
		}
	}

	/* Reports each request that was not applied; true if none. */
	bool all_applied(bool unregister) const
	{
		bool ok = true;
		for (const auto &c : jobs) {
			if (c.has_switch && control.state(c.job) != ina::ControlClient::State::kApplied) {
				ok = false;
				report(c, unregister);
			}
			for (const ina::PsGoatSwitch &g : c.goat)
				if (control.goat_state(c.job, g.id) != ina::ControlClient::State::kApplied) {
					ok = false;
					report_goat(c, g, unregister);
				}
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
				"is it running, and does it share switch.control_key_file?)\n",
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

	void report_goat(const ina::PsJobConfig &c, const ina::PsGoatSwitch &g, bool remove) const
	{
		const auto st = control.goat_state(c.job, g.id);
		const char *what = remove ? "removal of its GOAT assignment" : "GOAT assignment";
		const char *why = st == ina::ControlClient::State::kTimedOut
					  ? "did not acknowledge"
				  : st == ina::ControlClient::State::kDenied
					  ? "denied (the job is another PS's, or its config's without control = \"allow\")"
					  : "rejected as invalid (ranges beyond its table or another job's)";
		fprintf(stderr, "ina-ps: job %u: switch %u (%s) %s the %s (%u attempts)\n", c.job, g.id,
			ip_text(g.ip).c_str(), why, what, control.goat_attempts(c.job, g.id));
	}

	/* Starts threads 1..N-1, runs thread 0 until a signal or --duration
	 * (repeating the registration every --register-interval-ms), then
	 * stops and joins the others. */
	void serve(uint64_t start)
	{
		std::vector<std::thread> threads;
		for (uint32_t i = 1; i < shards.size(); i++)
			threads.emplace_back([this, i] { serve_shard(*shards[i]); });
		uint64_t last_register = start;
		bool refreshing = false;
		ina::ProgressLine progress(o.quiet);
		while (!g_stop.load(std::memory_order_relaxed)) {
			serve_turn0(now_ns());
			uint64_t now = now_us();
			if (progress.due(now))
				progress.show(progress_text(now - start));
			if (!o.no_register && o.register_interval_ms &&
			    now - last_register >= o.register_interval_ms * 1000ull) {
				start_control(false, now);
				start_goat(false, now);
				last_register = now;
				refreshing = true;
			}
			if (refreshing) {
				poll_control();
				if (!control.pending()) {
					/* A refresh the switch missed is retried at the next interval. */
					all_applied(false);
					check_epochs();
					refreshing = false;
				}
			}
			if (o.duration > 0 && now - start >= o.duration * 1e6)
				break;
		}
		progress.finish();
		g_stop.store(true);
		for (uint32_t i = 1; i < shards.size(); i++)
			shards[i]->bell.ring();
		for (auto &t : threads)
			t.join();
		shards[0]->cpu_seconds = thread_cpu_seconds();
	}

	/* The progress line: every job's fragments so far. The other shards'
	 * counters are read while their threads count: they are OwnedCounters
	 * (ina/ps.h), relaxed atomics, so a value is a moment old at worst (a
	 * display, never a result) and never torn or a data race. */
	std::string progress_text(uint64_t elapsed_us)
	{
		uint64_t completed = 0, in_network = 0, retransmits = 0;
		for (uint16_t id : ps0().jobs()) {
			const ina::PsJobStats js = job_stats(id);
			completed += js.completed;
			in_network += js.completed_in_network;
			retransmits += js.retransmits;
		}
		const double s = elapsed_us / 1e6;
		const double rate = s > 0 ? (completed - last_completed) / (s - last_s) : 0;
		last_completed = completed;
		last_s = s;
		char line[200];
		snprintf(line, sizeof(line),
			 "ina-ps: %.0f s  %.0f fragments/s  fragments %llu  retransmits seen %llu  in switch %.1f%%", s,
			 rate, static_cast<unsigned long long>(completed), static_cast<unsigned long long>(retransmits),
			 completed ? 100.0 * in_network / completed : 0.0);
		return line;
	}
	uint64_t last_completed = 0;
	double last_s = 0;

	/* The shards' counters, summed. */
	ina::PsStats stats() const
	{
		ina::PsStats g;
		for (const auto &s : shards)
			ina::ps_add_stats(g, s->ps->stats());
		return g;
	}
	ina::PsJobStats job_stats(uint16_t id) const
	{
		ina::PsJobStats js;
		for (const auto &s : shards)
			ina::ps_add_stats(js, *s->ps->job_stats(id));
		return js;
	}
	uint64_t tx_lost() const
	{
		uint64_t n = 0;
		for (const auto &s : shards)
			n += s->tx_lost;
		return n;
	}
};

/* Per thread: what it received, handed over and took, and its CPU time. */
nlohmann::json threads_json(const Daemon &d)
{
	nlohmann::json a = nlohmann::json::array();
	for (const auto &s : d.shards) {
		nlohmann::json t;
		t["rx"] = s->rx_frames;
		t["handed_off"] = s->handed_off;
		t["handoff_full"] = s->handoff_full;
		t["taken"] = s->taken;
		t["cpu_seconds"] = s->cpu_seconds;
		a.push_back(t);
	}
	return a;
}

/* The statistics as one JSON object (--json). */
void print_json(const Daemon &d, uint32_t ip, uint64_t start, double cpu_seconds)
{
	const ina::PsStats g = d.stats();
	nlohmann::json j;
	j["transport"] = d.transports[0]->name();
	j["ip"] = ip_text(ip);
	j["seconds"] = (now_us() - start) / 1e6;
	j["threads"] = d.shards.size();
	j["queues"] = d.transports.size();
	j["cpu_seconds"] = cpu_seconds;
	j["not_ina"] = g.not_ina;
	j["bad_version"] = g.bad_version;
	j["bad_type"] = g.bad_type;
	j["bad_length"] = g.bad_length;
	j["unknown_job"] = g.unknown_job;
	j["tx_lost"] = d.tx_lost();
	uint64_t completed = 0;
	for (uint16_t id : d.ps0().jobs()) {
		const ina::PsJobStats s = d.job_stats(id);
		nlohmann::json jj;
		jj["job"] = id;
		for (const auto &c : ina::ps_job_counters())
			jj[c.name] = (s.*c.field).get();
		jj["share_in_network"] = s.completed ? double(s.completed_in_network) / s.completed : 0.0;
		j["jobs"].push_back(jj);
		completed += s.completed;
	}
	j["cpu_us_per_fragment"] = completed ? cpu_seconds * 1e6 / completed : 0.0;
	j["per_thread"] = threads_json(d);
	printf("%s\n", j.dump(2).c_str());
}

/* The statistics for people: a summary per job, then its nonzero counters. */
void print_text(const Daemon &d, uint64_t start, double cpu_seconds)
{
	const ina::PsStats g = d.stats();
	printf("ina-ps: %.1f s on %s, %zu thread(s), %zu queue(s), %.2f CPU s; not INA %lu, bad version %lu, "
	       "bad type %lu, bad length %lu, unknown job %lu, tx lost %lu\n",
	       (now_us() - start) / 1e6, d.transports[0]->name(), d.shards.size(), d.transports.size(),
	       cpu_seconds, (unsigned long)g.not_ina, (unsigned long)g.bad_version, (unsigned long)g.bad_type,
	       (unsigned long)g.bad_length, (unsigned long)g.unknown_job, (unsigned long)d.tx_lost());
	for (uint16_t id : d.ps0().jobs()) {
		const ina::PsJobStats js = d.job_stats(id);
		const ina::PsJobStats *s = &js;
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
	if (d.shards.size() > 1)
		for (const auto &s : d.shards)
			printf("  thread %u: received %lu, handed off %lu (ring full %lu), taken %lu, %.2f CPU s\n",
			       s->index, (unsigned long)s->rx_frames, (unsigned long)s->handed_off,
			       (unsigned long)s->handoff_full, (unsigned long)s->taken, s->cpu_seconds);
}

/* The transports: one receive queue per thread where the transport has
 * them (udp, steered by ps_steering_program()), else one. */
std::vector<std::unique_ptr<ina::Transport>> open_queues(Options &o, const std::vector<ina::PsJobConfig> &jobs,
							 std::string *err)
{
	uint32_t queues = o.threads;
	if (queues > 1) {
		std::string why;
		o.tcfg.steer = ina::ps_steering_program(jobs, o.threads, &why);
		if (o.tcfg.steer.empty()) {
			/* Correct either way: thread 0 then hands every frame over. */
			fprintf(stderr, "ina-ps: no kernel steering (%s); one receive queue\n", why.c_str());
			queues = 1;
		}
	}
	return ina::open_transport_queues(o.tcfg, queues, err);
}

/* This PS's own cap (docs/ps.md, "Fragment size"): the most elements a
 * frame of its transport carries. A job that leaves `elements` to the path
 * takes it for now (its slots are sized for it); a job that names more is
 * refused. -1 to go on, else the exit code. */
int size_for_interface(std::vector<ina::PsJobConfig> &jobs, const Options &o, const ina::Transport &t)
{
	const uint32_t own = ina::frame_elements(t.max_frame());
	const std::string where = std::string(t.name()) + (o.tcfg.device.empty() ? "" : " on " + o.tcfg.device);
	for (auto &c : jobs) {
		if (c.elements_auto ? own == 0 : c.elements > own) {
			ina::print_error("ina-ps", "job " + std::to_string(c.job) + ": elements " +
							   (c.elements_auto ? std::string("auto") : std::to_string(c.elements)) +
							   " does not fit this PS's interface: " + where + " carries " +
							   std::to_string(t.max_frame()) + "-byte frames, at most " +
							   std::to_string(own) + " elements (raise the MTU or lower elements)");
			return ina::kExitUsage;
		}
		if (c.elements_auto)
			c.elements = static_cast<uint16_t>(own);
	}
	return -1;
}

/* After the registrations: each job's size is the least of its own (this
 * PS's cap, or what the job file names) and its switches' caps; a named
 * size above a switch's cap is refused. Tells every shard and the query
 * answers the size and the epoch. -1 to go on, else the exit code. */
int settle_jobs(Daemon &d)
{
	for (const auto &c : d.jobs) {
		uint32_t sw = 0;
		const uint16_t cap = c.has_switch || !c.goat.empty() ? d.control.cap(c.job, &sw) : 0;
		uint16_t size = c.elements;
		if (cap && size > cap) {
			if (!c.elements_auto) {
				ina::print_error("ina-ps", "job " + std::to_string(c.job) + ": elements " +
								   std::to_string(c.elements) + " is more than switch " +
								   ip_text(sw) + " carries (" + std::to_string(cap) +
								   " elements): it would drop every fragment; name at most " +
								   std::to_string(cap) + " or leave elements to the path");
				return ina::kExitUsage;
			}
			size = cap;
		}
		/* The run's epoch from the switch's ACK (0 without a switch or
		 * registration): stamped on every packet the PS sends and told
		 * the workers in JOB_INFO, with the size. */
		const uint8_t epoch = c.has_switch ? d.control.epoch(c.job) : 0;
		for (auto &s : d.shards) {
			s->ps->set_elements(c.job, size);
			s->ps->set_epoch(c.job, epoch);
		}
		d.job_epoch[c.job] = epoch;
		d.job_size[c.job] = size;
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
	auto transports = open_queues(o, jobs, &err);
	if (transports.empty()) {
		fprintf(stderr, "ina-ps: transport: %s\n", err.c_str());
		return 1;
	}
	rc = size_for_interface(jobs, o, *transports[0]);
	if (rc >= 0)
		return rc;
	ina::Endpoint self{};
	transports[0]->mac(self.mac);
	self.ip = transports[0]->ip();
	self.port = INA_UDP_PORT;
	uint32_t max_workers = 0;
	for (const auto &c : jobs)
		max_workers = std::max<uint32_t>(max_workers, static_cast<uint32_t>(c.workers.size()));
	Daemon d(o, jobs, transports, max_workers, self);
	for (const auto &c : jobs) {
		for (auto &s : d.shards) {
			if (!s->ps->add_job(c, &err)) {
				fprintf(stderr, "ina-ps: %s\n", err.c_str());
				return 2;
			}
		}
	}

	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);

	if (!ina::ps_resume_runs(o.resume, jobs, d.control, &err)) {
		ina::print_error("ina-ps", "--resume: " + err);
		return ina::kExitUsage;
	}
	if (!d.control_all(false))
		return 1;
	rc = settle_jobs(d);
	if (rc >= 0) {
		d.control_all(true); /* leave the switches as they were */
		return rc;
	}
	/* Each job's epoch and fragment size, what its workers' JOB_QUERY
	 * gets (docs/ps.md). */
	for (const auto &c : d.jobs) {
		printf("ina-ps: job %u epoch %u elements %u\n", c.job, d.job_epoch[c.job], d.job_size[c.job]);
		for (const ina::PsGoatSwitch &g : c.goat) {
			std::string ranges, subs;
			for (const ina::GoatSlots &r : g.slots)
				ranges += " [" + std::to_string(r.first) + ", " + std::to_string(r.end) + ")";
			for (const std::string &n : g.submodels)
				subs += (subs.empty() ? " " : ", ") + n;
			printf("ina-ps: job %u GOAT switch %u (%s):%s in%s\n", c.job, g.id, ip_text(g.ip).c_str(),
			       subs.c_str(), ranges.c_str());
		}
	}
	printf("ina-ps: serving %zu job(s) on %s, %s, %u thread(s)\n", jobs.size(), transports[0]->name(),
	       ip_text(self.ip).c_str(), o.threads);
	fflush(stdout);

	uint64_t start = now_us();
	double cpu0 = process_cpu_seconds();
	d.serve(start);
	double cpu = process_cpu_seconds() - cpu0;
	d.control_all(true); /* best effort: a failure is reported, the exit status stays */

	if (o.json)
		print_json(d, self.ip, start, cpu);
	else
		print_text(d, start, cpu);
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
