/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The PS daemon's serving loop (ina/ps_daemon.h): the shards, the hand-off
 * rings between their threads, and the transports they send on.
 */
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "ina/cli.h"
#include "ina/codec.h"
#include "ina/progress.h"
#include "ina/stats_file.h"
#include "ina/ps_daemon.h"
#include "ina/ps_steering.h"

namespace ina {

namespace {

uint64_t now_ns() { return ps_clock_ns<std::chrono::steady_clock>(); }

/* How long a full transport is retried before the rest of a batch is
 * dropped (a lost parameter packet costs its workers a retransmission
 * timeout, 20 ms at least). A count of retries was too short when the
 * receiver sharing this machine's CPUs was descheduled: 32 of 67k parameter
 * packets were lost over memif. */
constexpr uint64_t kTxStallNs = 2000000;

/* Sends every queued frame; a full transport is retried for kTxStallNs. */
uint64_t flush(Transport &t, TxQueue &tx, std::vector<FrameBuf> &view)
{
	for (uint32_t i = 0; i < tx.size(); i++)
		view[i] = FrameBuf{tx.data(i), tx.len(i), tx.len(i)};
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

} /* namespace */

double ps_thread_cpu_seconds()
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double ps_process_cpu_seconds()
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t ps_now_us() { return now_ns() / 1000; }

PsShard::PsShard(uint32_t i, uint32_t shards, const Endpoint &self, uint32_t max_workers, bool has_io)
	: index(i), ps(std::make_unique<ParameterServer>(self, i, shards)), tx(kBatch * 8 + 2 * max_workers + 8),
	  view(tx.capacity()), out(shards, nullptr)
{
	if (has_io) {
		rxmem.assign(kBatch, std::vector<uint8_t>(INA_FRAME_LEN(INA_MAX_ELEMENTS)));
		rx.resize(kBatch);
	}
}

void PsShard::flush_tx()
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

uint32_t PsShard::receive(uint32_t timeout_us)
{
	for (uint32_t i = 0; i < kBatch; i++)
		rx[i] = FrameBuf{rxmem[i].data(), 0, static_cast<uint32_t>(rxmem[i].size())};
	uint32_t n = io->recv(rx.data(), kBatch, timeout_us);
	rx_frames += n;
	return n;
}

bool PsShard::handoff_busy() const
{
	for (const PsFrameRing *r : out)
		if (r && r->busy())
			return true;
	return false;
}

/* The largest job's workers: room a shard's TxQueue keeps for one fragment's ACKs. */
static uint32_t most_workers(const std::vector<PsJobConfig> &jobs)
{
	uint32_t n = 0;
	for (const auto &c : jobs)
		n = std::max<uint32_t>(n, static_cast<uint32_t>(c.workers.size()));
	return n;
}

PsDaemon::PsDaemon(const PsServeOptions &opts, const std::vector<PsJobConfig> &j,
		   std::vector<std::unique_ptr<Transport>> &t, const Endpoint &self, std::atomic<bool> &stop_flag)
	: o(opts), jobs(j), transports(t), stop(stop_flag), max_workers(most_workers(j)), control(self), self_(self)
{
	for (const auto &c : jobs)
		job_size[c.job] = 0;
	const uint32_t n = o.threads, queues = static_cast<uint32_t>(t.size());
	for (uint32_t i = 0; i < n; i++) {
		shards.push_back(std::make_unique<PsShard>(i, n, self, max_workers, i < queues));
		if (i < queues)
			shards[i]->io = t[i].get();
	}
	uint32_t largest = 1;
	for (const auto &c : jobs)
		largest = std::max<uint32_t>(largest, c.elements);
	const uint32_t bytes = std::max<uint32_t>(INA_FRAME_LEN(largest), kCtrlMaxFrameLen);
	/* With a queue per thread the kernel steers by fragment and the
	 * rings carry only strays (control frames to thread 0); with one
	 * queue they carry every other shard's traffic. */
	const uint32_t ring_slots = queues == 1 ? 1024 : 64;
	for (uint32_t src = 0; src < queues; src++)
		for (uint32_t dst = 0; dst < n; dst++) {
			if (src == dst)
				continue;
			rings.push_back(std::make_unique<PsFrameRing>(ring_slots, bytes));
			shards[src]->out[dst] = rings.back().get();
			shards[dst]->in.push_back(rings.back().get());
		}
	for (uint32_t i = queues; i < n; i++) {
		rings.push_back(std::make_unique<PsFrameRing>(1024, bytes));
		shards[i]->tx_ring = rings.back().get();
	}
}

bool PsDaemon::add_jobs(std::string *err)
{
	for (const auto &c : jobs)
		for (auto &s : shards)
			if (!s->ps->add_job(c, err))
				return false;
	return true;
}

/* Thread 0: answers a worker's JOB_QUERY (docs/protocol.md, "Fragment
 * size"); false if the frame is not one. */
bool PsDaemon::answer_query(const RxFrame &rx, TxQueue &tx)
{
	uint16_t job;
	if (!is_job_query(rx, self_, &job))
		return false;
	auto it = job_size.find(job);
	if (it != job_size.end() && it->second == 0)
		return true; /* not known yet: the worker asks again */
	uint8_t *out = tx.reserve();
	if (!out)
		return true;
	const uint16_t size = it == job_size.end() ? 0 : it->second;
	const uint32_t n = build_job_info(rx, self_, size, size ? job_epoch[job] : 0, out,
					      INA_FRAME_LEN(INA_MAX_ELEMENTS));
	if (n)
		tx.commit(n);
	return true;
}

/* One frame for shard s, parsed once by the thread that received it:
 * control acknowledgements (thread 0) to the control client, the rest
 * to the shard's PS. */
void PsDaemon::handle(PsShard &s, const RxFrame &rx, uint64_t now_ns)
{
	if (s.index == 0 && (answer_query(rx, s.tx) || control.take(rx)))
		return;
	if (s.tx.room() < max_workers + 1)
		s.flush_tx();
	s.ps->handle(rx, now_ns, s.tx);
}

/* The frames s received: its own handled, the others' handed over. */
void PsDaemon::dispatch(PsShard &s, uint32_t n, uint64_t now)
{
	for (uint32_t i = 0; i < n; i++) {
		const FrameBuf &f = s.rx[i];
		const RxFrame rx = parse_rx_frame(f.data, f.len);
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
uint32_t PsDaemon::drain_in(PsShard &s, uint64_t now)
{
	uint32_t got = 0;
	for (PsFrameRing *r : s.in) {
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
void PsDaemon::send_handed_back()
{
	PsShard &s0 = *shards[0];
	for (uint32_t i = transports.size(); i < shards.size(); i++) {
		PsFrameRing *r = shards[i]->tx_ring;
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
void PsDaemon::serve_turn0(uint64_t now)
{
	PsShard &s0 = *shards[0];
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
void PsDaemon::serve_shard(PsShard &s)
{
	while (!stop.load(std::memory_order_relaxed)) {
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
		for (PsFrameRing *r : s.in)
			idle = idle && r->ready() == 0;
		if (idle)
			s.bell.wait(1000);
		s.bell.disarm();
	}
	s.cpu_seconds = ps_thread_cpu_seconds();
}

/* Receives one batch on thread 0's queue while no other thread serves
 * (before they start, after they end): every shard's frames are handled
 * here, replies through thread 0's queue. */
void PsDaemon::receive_alone(uint32_t timeout_us)
{
	PsShard &s0 = *shards[0];
	uint32_t n = s0.receive(timeout_us);
	uint64_t now = ps_now_us();
	for (uint32_t i = 0; i < n; i++) {
		const FrameBuf &f = s0.rx[i];
		const RxFrame rx = parse_rx_frame(f.data, f.len);
		if (answer_query(rx, s0.tx) || control.take(rx))
			continue;
		if (s0.tx.room() < max_workers + 1)
			s0.flush_tx();
		shards[ps0().shard_of(rx)]->ps->handle(rx, now, s0.tx);
	}
}

/* Starts threads 1..N-1, runs thread 0 until a signal or --duration
 * (repeating the registration every --register-interval-ms), then
 * stops and joins the others. */
void PsDaemon::serve(uint64_t start)
{
	std::vector<std::thread> threads;
	for (uint32_t i = 1; i < shards.size(); i++)
		threads.emplace_back([this, i] { serve_shard(*shards[i]); });
	uint64_t last_register = start;
	uint64_t last_stats = 0;
	bool refreshing = false;
	ProgressLine progress(o.quiet);
	while (!stop.load(std::memory_order_relaxed)) {
		serve_turn0(now_ns());
		uint64_t now = ps_now_us();
		if (progress.due(now))
			progress.show(progress_text(now - start));
		if (!o.stats_file.empty() && now - last_stats >= 1000000) {
			write_stats(now - start);
			last_stats = now;
		}
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
	stop.store(true);
	for (uint32_t i = 1; i < shards.size(); i++)
		shards[i]->bell.ring();
	for (auto &t : threads)
		t.join();
	shards[0]->cpu_seconds = ps_thread_cpu_seconds();
	if (!o.stats_file.empty())
		write_stats(ps_now_us() - start); /* the final counters */
}

/* --stats-file: the jobs' counters, read as progress_text() reads them. */
void PsDaemon::write_stats(uint64_t elapsed_us)
{
	std::vector<PsStatsFileJob> js;
	for (uint16_t id : ps0().jobs())
		js.push_back({id, job_epoch[id], job_stats(id)});
	std::string err;
	if (!ps_write_stats_file(o.stats_file, elapsed_us / 1e6, js, &err) && !stats_warned) {
		fprintf(stderr, "ina-ps: warning: --stats-file: %s\n", err.c_str());
		stats_warned = true;
	}
}

/* The progress line: every job's fragments so far. The other shards'
 * counters are read while their threads count: they are OwnedCounters
 * (ina/ps.h), relaxed atomics, so a value is a moment old at worst (a
 * display, never a result) and never torn or a data race. */
std::string PsDaemon::progress_text(uint64_t elapsed_us)
{
	uint64_t completed = 0, in_network = 0, retransmits = 0;
	for (uint16_t id : ps0().jobs()) {
		const PsJobStats js = job_stats(id);
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

/* The shards' counters, summed. */
PsStats PsDaemon::stats() const
{
	PsStats g;
	for (const auto &s : shards)
		ps_add_stats(g, s->ps->stats());
	return g;
}

PsJobStats PsDaemon::job_stats(uint16_t id) const
{
	PsJobStats js;
	for (const auto &s : shards)
		ps_add_stats(js, *s->ps->job_stats(id));
	return js;
}

uint64_t PsDaemon::tx_lost() const
{
	uint64_t n = 0;
	for (const auto &s : shards)
		n += s->tx_lost;
	return n;
}

std::vector<std::unique_ptr<Transport>> ps_open_queues(TransportConfig &tcfg, uint32_t threads,
						      const std::vector<PsJobConfig> &jobs, std::string *err)
{
	uint32_t queues = threads;
	if (queues > 1) {
		std::string why;
		tcfg.steer = ps_steering_program(jobs, threads, &why);
		if (tcfg.steer.empty()) {
			/* Correct either way: thread 0 then hands every frame over. */
			fprintf(stderr, "ina-ps: no kernel steering (%s); one receive queue\n", why.c_str());
			queues = 1;
		}
	}
	return open_transport_queues(tcfg, queues, err);
}

/* The job's slots are sized for the size it takes here. */
int ps_size_for_interface(std::vector<PsJobConfig> &jobs, const std::string &device, const Transport &t)
{
	const uint32_t own = frame_elements(t.max_frame());
	const std::string where = std::string(t.name()) + (device.empty() ? "" : " on " + device);
	for (auto &c : jobs) {
		if (c.elements_auto ? own == 0 : c.elements > own) {
			print_error("ina-ps", "job " + std::to_string(c.job) + ": elements " +
						      (c.elements_auto ? std::string("auto") : std::to_string(c.elements)) +
						      " does not fit this PS's interface: " + where + " carries " +
						      std::to_string(t.max_frame()) + "-byte frames, at most " +
						      std::to_string(own) + " elements (raise the MTU or lower elements)");
			return kExitUsage;
		}
		if (c.elements_auto)
			c.elements = static_cast<uint16_t>(own);
	}
	return -1;
}

} /* namespace ina */
