/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Receive and the loop round: poll this lcore's RX queues, classify each
 * packet, pass INA packets this lcore does not own to their owner's ring,
 * handle the rest; then the packets other lcores handed over, then the
 * egress queues; then one RCU quiescent state.
 */
#include <ctime>

#include <rte_prefetch.h>

#include "lcore_loop.h"

namespace switchd {

namespace {

constexpr uint16_t kMaxBurst = 256;
/* Loop rounds per reading of the thread's CPU clock (a system call of a
 * few hundred ns). */
constexpr unsigned kClockRounds = 256;

uint64_t thread_cpu_ns()
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

/*
 * CPU time this thread spends in rounds that carried packets: the cost per
 * packet of the data path, without idle polls and without the time the OS
 * gave to another thread. Each round is timed with the TSC; every
 * kClockRounds rounds the thread's CPU clock says which fraction of the
 * rounds' TSC time the thread was really on its CPU, and the busy rounds'
 * TSC time is counted at that fraction. Preemption strikes at timer ticks,
 * blind to whether a round is busy, so the fraction applies to busy rounds
 * alike; a reading per kClockRounds rounds keeps the clock off the
 * per-packet cost (a per-round reading cost 5 % of a loaded lcore's
 * samples).
 */
class BusyClock {
public:
	explicit BusyClock(uint64_t tsc_hz) : ns_per_tsc_(1e9 / double(tsc_hz)), cpu_(thread_cpu_ns()) {}
	void round_end(bool busy, uint64_t round_start, uint64_t *busy_ns)
	{
		const uint64_t d = rte_rdtsc() - round_start;
		rounds_tsc_ += d;
		busy_tsc_ += busy ? d : 0;
		if (++rounds_ < kClockRounds)
			return;
		const uint64_t cpu = thread_cpu_ns();
		if (busy_tsc_) {
			const double wall = double(rounds_tsc_) * ns_per_tsc_;
			const double on_cpu = std::min(1.0, double(cpu - cpu_) / wall);
			*busy_ns += uint64_t(double(busy_tsc_) * ns_per_tsc_ * on_cpu);
		}
		cpu_ = cpu;
		rounds_ = 0;
		rounds_tsc_ = busy_tsc_ = 0;
	}

private:
	const double ns_per_tsc_;
	uint64_t cpu_;
	uint64_t rounds_tsc_ = 0, busy_tsc_ = 0;
	unsigned rounds_ = 0;
};

} /* namespace */

LcoreLoop::LcoreLoop(App &app, Lcore &lc) : app_(app), lc_(lc), n_(static_cast<unsigned>(app.lcores.size()))
{
	out_.resize(n_);
	for (auto &o : out_)
		o.reserve(kMaxBurst);
}

void LcoreLoop::run()
{
	rte_mbuf *pkts[kMaxBurst];
	const uint16_t burst = std::min<uint16_t>(app_.cfg.burst, kMaxBurst);
	rte_rcu_qsbr_thread_register(app_.rcu, lc_.index);
	rte_rcu_qsbr_thread_online(app_.rcu, lc_.index);
	const uint32_t idle_sleep = app_.cfg.idle_sleep_us;
	BusyClock clock(rte_get_tsc_hz());
	while (!app_.quit.load(std::memory_order_relaxed)) {
		const uint64_t now = rte_rdtsc();
		jobs_ = app_.jobs.load(std::memory_order_acquire);
		if (jobs_->purges() != lc_.seen_purges)
			purge_stale();
		const uint32_t received = receive(pkts, burst, now) + receive_handoffs(pkts, burst, now);
		uint32_t queued = 0;
		for (size_t p = 0; p < lc_.egress.size(); p++) {
			EgressQueue &e = lc_.egress[p];
			if (app_.port_up[p].load(std::memory_order_relaxed))
				e.drain(now); /* down: the queue fills, then tail-drops (counted) */
			else
				e.show_depth(); /* what drain() would say: the packets it holds */
			queued += e.depth();
		}
		sweep(now);
		rte_rcu_qsbr_quiescent(app_.rcu, lc_.index);
		clock.round_end(received != 0, now, &lc_.ctr[LcoreCtr::busy_ns]);
		/* Optional back-off for machines shared with other work (labs,
		 * CI): only when a whole round found nothing to do. */
		if (idle_sleep && !received && !queued)
			rte_delay_us_sleep(idle_sleep);
	}
	rte_rcu_qsbr_thread_offline(app_.rcu, lc_.index);
	rte_rcu_qsbr_thread_unregister(app_.rcu, lc_.index);
}

/* One burst from each RX queue of this lcore on a port that is up. */
uint32_t LcoreLoop::receive(rte_mbuf **pkts, uint16_t burst, uint64_t now)
{
	uint32_t total = 0;
	for (const RxQueueRef &rx : lc_.rx) {
		if (!app_.port_up[rx.port].load(std::memory_order_relaxed))
			continue;
		const uint16_t nb = rte_eth_rx_burst(rx.port_id, rx.queue, pkts, burst);
		if (!nb)
			continue;
		total += nb;
		PortCounters &pc = lc_.port_ctr[rx.port];
		pc[PortCtr::rx_packets] += nb;
		const bool traced = lc_.trace.armed(); /* the trace's one test per burst */
		for (uint16_t i = 0; i < nb; i++) {
			rte_mbuf *m = pkts[i];
			pc[PortCtr::rx_bytes] += m->pkt_len;
			if (i + 1 < nb)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
			if (unlikely(traced) && lc_.trace.begin(lc_, TraceRecord::kNone, now))
				lc_.trace.end(lc_, handle_received(m, now, true));
			else
				handle_received(m, now, false);
		}
		if (n_ > 1)
			flush_handoffs();
	}
	return total;
}

/* Classify one received packet, then hand it to the lcore that owns it or
 * handle it here. Returns the lcore it was handed to, or kNone. */
uint8_t LcoreLoop::handle_received(rte_mbuf *m, uint64_t now, bool traced)
{
	if (!classify(m))
		return TraceRecord::kNone;
	const PacketDesc &d = *desc(m);
	if (traced)
		lc_.trace.classified(lc_, d);
	unsigned owner = lc_.index;
	if (n_ > 1 && d.cls == PacketClass::kIna && d.ina.type == INA_TYPE_DATA)
		owner = d.ina.agg_index % n_;
	/* One lcore holds the CLT and every ring's aggregators. */
	else if (d.cls == PacketClass::kRoce)
		owner = app_.cfg.netreduce_lcore;
	if (owner != lc_.index) {
		out_[owner].push_back(m);
		return static_cast<uint8_t>(owner);
	}
	dispatch(m, now);
	return TraceRecord::kNone;
}

/* The packets other lcores received for aggregators this lcore owns; they
 * were classified by the receiver (the descriptor travels in the mbuf). */
uint32_t LcoreLoop::receive_handoffs(rte_mbuf **pkts, uint16_t burst, uint64_t now)
{
	uint32_t total = 0;
	for (unsigned j = 0; j < n_; j++) {
		rte_ring *r = lc_.handoff_in[j];
		if (!r)
			continue;
		const unsigned nb = rte_ring_sc_dequeue_burst(r, reinterpret_cast<void **>(pkts), burst, nullptr);
		lc_.ctr[LcoreCtr::handoff_in] += nb;
		total += nb;
		const bool traced = lc_.trace.armed();
		for (unsigned i = 0; i < nb; i++) {
			if (unlikely(traced) && lc_.trace.begin(lc_, static_cast<uint8_t>(j), now)) {
				lc_.trace.classified(lc_, *desc(pkts[i]));
				dispatch(pkts[i], now);
				lc_.trace.end(lc_, TraceRecord::kNone);
			} else {
				dispatch(pkts[i], now);
			}
		}
	}
	return total;
}

void LcoreLoop::flush_handoffs()
{
	for (unsigned j = 0; j < n_; j++) {
		auto &o = out_[j];
		if (o.empty())
			continue;
		const unsigned done = rte_ring_sp_enqueue_burst(
			lc_.handoff_out[j], reinterpret_cast<void *const *>(o.data()),
			static_cast<unsigned>(o.size()), nullptr);
		lc_.ctr[LcoreCtr::handoff_out] += done;
		for (size_t k = done; k < o.size(); k++)
			drop(o[k], LcoreCtr::handoff_drops);
		o.clear();
	}
}

namespace {

struct PurgeCtx {
	Lcore *lc;
	const std::vector<uint32_t> *gen;
};

bool job_is_stale(uint16_t job, void *ctx)
{
	const auto *c = static_cast<const PurgeCtx *>(ctx);
	return (*c->gen)[job] != c->lc->seen_gen[job];
}

void count_purged(uint16_t job, void *ctx)
{
	Lcore *lc = static_cast<PurgeCtx *>(ctx)->lc;
	lc->ctr[LcoreCtr::purge_frees]++;
	lc->job_ctr[job][JobCtr::purge_frees]++;
}

void count_swept(uint16_t job, void *ctx)
{
	Lcore *lc = static_cast<Lcore *>(ctx);
	lc->ctr[LcoreCtr::sweep_frees]++;
	lc->job_ctr[job][JobCtr::gc_frees]++;
}

} /* namespace */

/*
 * The job table changed a job's generation (the job was removed, expired,
 * or registered with new content): before this round's first packet, free
 * every aggregator of this lcore held by such a job, so that nothing of the
 * old registration merges into what comes next. One pass over this lcore's
 * slots, only in the round that first sees the new table (not per packet);
 * the lcores read the table under RCU, so no lock is taken.
 */
void LcoreLoop::purge_stale()
{
	PurgeCtx ctx{&lc_, &jobs_->generations()};
	lc_.table->purge(job_is_stale, count_purged, &ctx);
	std::copy(ctx.gen->begin(), ctx.gen->end(), lc_.seen_gen.begin());
	lc_.seen_purges = jobs_->purges();
}

/* The idle sweep: a few slots per round (sweep_slots), freed when idle past
 * gc_timeout_ms, so that a dead job's aggregators come back without waiting
 * for another job's packet to land on them. */
void LcoreLoop::sweep(uint64_t now)
{
	if (lc_.nr)
		netreduce_expire(now);
	if (app_.cfg.sweep_slots)
		lc_.table->sweep(&lc_.sweep_cursor, app_.cfg.sweep_slots, now, lc_.table->config().gc_timeout,
				 count_swept, &lc_);
}

void LcoreLoop::to_control(rte_mbuf *m)
{
	if (rte_ring_mp_enqueue(app_.control_ring, m) != 0)
		return drop(m, LcoreCtr::control_drops);
	lc_.ctr[LcoreCtr::control_received]++;
}

void LcoreLoop::enqueue(uint16_t port, rte_mbuf *m, const ina::InaView *v)
{
	int marked;
	uint16_t dropped_job = 0;
	if (!lc_.egress[port].enqueue(m, v, &lc_.rng, &marked, &dropped_job)) {
		if (dropped_job)
			lc_.job_ctr[dropped_job][JobCtr::egress_drops]++;
	} else if (marked > 0) {
		lc_.job_ctr[marked][JobCtr::ecn_marks]++;
	}
}

int lcore_main(void *arg)
{
	Lcore *lc = static_cast<Lcore *>(arg);
	LcoreLoop loop(*lc->app, *lc);
	loop.run();
	return 0;
}

} /* namespace switchd */
