/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The loop round and the chain: each burst of this lcore's RX queues runs
 * through the stages (stages.h) in order, the packets of aggregators other
 * lcores own leaving for their rings after classify; then the packets
 * other lcores handed over, from admission on; then the egress queues;
 * then one RCU quiescent state. Each stage costs the chain one TSC read per
 * burst (lap()), for the lcore's StageRuntime.
 */
#include <algorithm>

#include "busy_clock.h"
#include "lcore_loop.h"

namespace switchd {

LcoreLoop::LcoreLoop(Lcore &lc)
	: sh_(*lc.shared), lc_(lc), n_(sh_.n_lcores),
	  burst_(std::min<uint16_t>(sh_.cfg->burst, kMaxBurst)),
	  classify_{sh_.port_index, sh_.port_ids, !sh_.cfg->netreduce.rings.empty(), sh_.cfg->ip, &lc.ctr,
		    &lc.pipeline},
	  handoff_{lc.index, n_, sh_.cfg->netreduce_lcore},
	  admission_{nullptr,
		     nullptr,
		     sh_.fwd,
		     lc.egress.data(),
		     std::any_of(sh_.cfg->ports.begin(), sh_.cfg->ports.end(),
				 [](const PortConfig &p) { return p.egress.ecn_threshold > 0; }),
		     sh_.cfg->ip,
		     sh_.cfg->switch_id,
		     &lc.ctr,
		     lc.port_ctr.data(),
		     lc.job_ctr.data()},
	  pipeline_{lc.table.get(), &lc.pipeline, lc.index, 0, &lc.ctr, lc.job_ctr.data()},
	  netreduce_{lc.nr.get(), &lc.nr_ctr, sh_.pool, 0, &lc.ctr},
	  forward_{sh_.fwd, sh_.port_mac, sh_.cfg->ip, &lc.ctr},
	  replicate_{sh_.pool, sh_.hdr_pool, sh_.ind_pool, sh_.port_multiseg, sh_.ports, &lc.ctr},
	  egress_{lc.egress.data(), &lc.rng, lc.job_ctr.data()},
	  trace_ctr_{&lc.ctr, &lc.pipeline, lc.port_ctr.data(), lc.job_ctr.data()}
{
	out_.resize(n_);
}

void LcoreLoop::run()
{
	rte_rcu_qsbr_thread_register(sh_.rcu, lc_.index);
	rte_rcu_qsbr_thread_online(sh_.rcu, lc_.index);
	const uint32_t idle_sleep = sh_.cfg->idle_sleep_us;
	BusyClock clock(rte_get_tsc_hz());
	while (!sh_.quit->load(std::memory_order_relaxed)) {
		const uint64_t now = rte_rdtsc();
		uint32_t queued = 0;
		const uint32_t received = round(now, &queued);
		clock.round_end(received != 0, now, lc_.ctr[LcoreCtr::busy_ns]);
		/* Optional back-off for machines shared with other work (labs,
		 * CI): only when a whole round found nothing to do. */
		if (idle_sleep && !received && !queued)
			rte_delay_us_sleep(idle_sleep);
	}
	rte_rcu_qsbr_thread_offline(sh_.rcu, lc_.index);
	rte_rcu_qsbr_thread_unregister(sh_.rcu, lc_.index);
}

uint32_t LcoreLoop::round(uint64_t now, uint32_t *queued)
{
	jobs_ = sh_.jobs->load(std::memory_order_acquire);
	admission_.jobs = jobs_;
	admission_.goat = sh_.goat->load(std::memory_order_acquire);
	pipeline_.now = netreduce_.now = now;
	if (jobs_->purges() != lc_.seen_purges)
		purge_stale();
	const uint32_t received = receive(burst_) + receive_handoffs(burst_);
	drain(now, queued);
	sweep(now);
	rte_rcu_qsbr_quiescent(sh_.rcu, lc_.index);
	return received;
}

/* tx: every egress queue of a port that is up sends what it may. */
uint32_t LcoreLoop::drain(uint64_t now, uint32_t *queued)
{
	uint64_t t = rte_rdtsc();
	uint32_t sent = 0;
	for (size_t p = 0; p < lc_.egress.size(); p++) {
		EgressQueue &e = lc_.egress[p];
		if (sh_.port_up[p].load(std::memory_order_relaxed))
			sent += e.drain(now); /* down: the queue fills, then tail-drops (counted) */
		else
			e.show_depth(); /* what drain() would say: the packets it holds */
		*queued += e.depth();
	}
	if (sent)
		lap(Stage::tx, sent, &t);
	return sent;
}

/* rx: one burst from each RX queue of this lcore on a port that is up,
 * through the chain. */
uint32_t LcoreLoop::receive(uint16_t burst)
{
	uint32_t total = 0;
	for (const RxQueueRef &rx : lc_.rx) {
		if (!sh_.port_up[rx.port].load(std::memory_order_relaxed))
			continue;
		uint64_t t = rte_rdtsc();
		const uint16_t nb = rte_eth_rx_burst(rx.port_id, rx.queue, pkts_, burst);
		if (!nb)
			continue;
		total += nb;
		PortCounters &pc = lc_.port_ctr[rx.port];
		uint64_t bytes = 0;
		for (uint16_t i = 0; i < nb; i++)
			bytes += pkts_[i]->pkt_len;
		pc[PortCtr::rx_packets] += nb;
		pc[PortCtr::rx_bytes] += bytes;
		lap(Stage::rx, nb, &t);
		if (likely(!lc_.trace.armed())) { /* the trace's one test per burst */
			chain_rx(pkts_, nb, t, false, nullptr);
		} else {
			/* Traced: one packet at a time, between two snapshots
			 * of the counters (trace.h). */
			for (uint16_t i = 0; i < nb; i++) {
				if (!lc_.trace.begin(trace_ctr_, TraceRecord::kNone, t)) {
					chain_rx(&pkts_[i], 1, t, false, nullptr);
					continue;
				}
				uint8_t to = TraceRecord::kNone;
				chain_rx(&pkts_[i], 1, t, true, &to);
				lc_.trace.end(trace_ctr_, to);
			}
		}
		if (n_ > 1)
			flush_handoffs();
	}
	return total;
}

void LcoreLoop::chain_rx(rte_mbuf *const *pkts, uint32_t n, uint64_t t, bool traced, uint8_t *to_lcore)
{
	classify_burst(classify_, pkts, n, &ina_, &roce_, &fwd_);
	lap(Stage::classify, n, &t);
	if (unlikely(traced) && ina_.n + roce_.n + fwd_.n) /* it was not dropped */
		lc_.trace.classified(trace_ctr_, *desc(pkts[0]));
	if (n_ > 1 && ina_.n + roce_.n) {
		const uint32_t k = ina_.n + roce_.n;
		const uint32_t handed = handoff_burst(handoff_, &ina_, out_.data()) +
					handoff_burst(handoff_, &roce_, out_.data());
		lap(Stage::handoff, k, &t);
		if (unlikely(traced) && handed)
			for (unsigned j = 0; j < n_; j++)
				if (out_[j].n && out_[j].v[out_[j].n - 1] == pkts[0])
					*to_lcore = static_cast<uint8_t>(j);
	}
	chain_classified(t);
}

void LcoreLoop::chain_classified(uint64_t t)
{
	if (ina_.n) {
		admission_burst(admission_, ina_, &pipe_, &fwd_, &control_);
		lap(Stage::admission, ina_.n, &t);
		ina_.clear();
	}
	if (pipe_.n) {
		pipeline_burst(pipeline_, pipe_, &fwd_, &mcast_, &control_);
		lap(Stage::pipeline, pipe_.n, &t);
		pipe_.clear();
	}
	if (control_.n) {
		control_burst(sh_.control_ring, control_, &lc_.ctr);
		lap(Stage::control, control_.n, &t);
		control_.clear();
	}
	for (uint32_t i = 0; i < roce_.n;) {
		const uint32_t took = netreduce_burst(netreduce_, roce_, i, &fwd_);
		lap(Stage::netreduce, took, &t);
		i += took;
		if (i < roce_.n)
			downstream(&t); /* room for the next packet's result copies */
	}
	roce_.clear();
	downstream(&t);
}

void LcoreLoop::downstream(uint64_t *t)
{
	if (fwd_.n) {
		forward_burst(forward_, fwd_, &tx_, &flood_);
		lap(Stage::forward, fwd_.n, t);
		fwd_.clear();
	}
	uint32_t mi = 0, fi = 0;
	for (;;) {
		if (mi < mcast_.n || fi < flood_.n) {
			const uint32_t before = mi + fi;
			replicate_burst(replicate_, mcast_, &mi, flood_, &fi, &tx_);
			lap(Stage::replicate, mi + fi - before, t);
		}
		if (!tx_.n)
			break; /* nothing left, or copies of one packet that never fit (no port has that many) */
		egress_burst(egress_, tx_);
		lap(Stage::egress, tx_.n, t);
		tx_.clear();
		if (mi == mcast_.n && fi == flood_.n)
			break;
	}
	mcast_.clear();
	flood_.clear();
}

/* The packets other lcores received for aggregators this lcore owns; they
 * were classified by the receiver (the descriptor travels in the mbuf). */
uint32_t LcoreLoop::receive_handoffs(uint16_t burst)
{
	uint32_t total = 0;
	for (unsigned j = 0; j < n_; j++) {
		rte_ring *r = lc_.handoff_in[j];
		if (!r)
			continue;
		uint64_t t = rte_rdtsc();
		const unsigned nb = rte_ring_sc_dequeue_burst(r, reinterpret_cast<void **>(pkts_), burst, nullptr);
		if (!nb)
			continue;
		lc_.ctr[LcoreCtr::handoff_in] += nb;
		total += nb;
		lap(Stage::rx, nb, &t);
		if (likely(!lc_.trace.armed())) {
			for (unsigned i = 0; i < nb; i++)
				(desc(pkts_[i])->cls == PacketClass::kIna ? ina_ : roce_).push(pkts_[i]);
			chain_classified(t);
			continue;
		}
		for (unsigned i = 0; i < nb; i++) {
			rte_mbuf *m = pkts_[i];
			const bool rec = lc_.trace.begin(trace_ctr_, static_cast<uint8_t>(j), t);
			if (rec)
				lc_.trace.classified(trace_ctr_, *desc(m));
			(desc(m)->cls == PacketClass::kIna ? ina_ : roce_).push(m);
			chain_classified(t);
			if (rec)
				lc_.trace.end(trace_ctr_, TraceRecord::kNone);
		}
	}
	return total;
}

void LcoreLoop::flush_handoffs()
{
	for (unsigned j = 0; j < n_; j++) {
		Burst &o = out_[j];
		if (!o.n)
			continue;
		const unsigned done = rte_ring_sp_enqueue_burst(lc_.handoff_out[j], reinterpret_cast<void *const *>(o.v),
								o.n, nullptr);
		lc_.ctr[LcoreCtr::handoff_out] += done;
		if (done < o.n) {
			lc_.ctr[LcoreCtr::handoff_drops] += o.n - done;
			rte_pktmbuf_free_bulk(o.v + done, o.n - done);
		}
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
	/* NetReduce: idle connections leave the CLT, a pass over it every
	 * tenth of the timeout. */
	const uint64_t timeout = sh_.nr_clt_timeout_cycles;
	if (lc_.nr && timeout && now >= lc_.nr_next_expiry) {
		lc_.nr_next_expiry = now + timeout / 10;
		lc_.nr->expire(now, timeout, lc_.nr_ctr);
	}
	if (sh_.cfg->sweep_slots)
		lc_.table->sweep(&lc_.sweep_cursor, sh_.cfg->sweep_slots, now, lc_.table->config().gc_timeout,
				 count_swept, &lc_);
}

int lcore_main(void *arg)
{
	Lcore *lc = static_cast<Lcore *>(arg);
	LcoreLoop loop(*lc);
	loop.run();
	return 0;
}

} /* namespace switchd */
