/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Retransmission timeout from RTT samples, as TCP does it (RFC 6298): the
 * first sample sets srtt = r and rttvar = r / 2; later ones update
 * rttvar = 3/4 rttvar + 1/4 |srtt - r| and srtt = 7/8 srtt + 1/8 r;
 * RTO = srtt + max(4 rttvar, srtt), clamped to [min, max]. The floor of the
 * variance term (RTO >= 2 srtt) is ours: fragments are ACKed in bursts of
 * nearly equal RTTs, which drive rttvar toward 0 and the plain RFC RTO down
 * to srtt, where every slightly late ACK would be a spurious timeout. Every timeout doubles the RTO
 * (back-off) until a new sample arrives. Samples come only from fragments
 * sent once (Karn's rule, enforced by the caller).
 *
 * An INA "RTT" includes the wait for the slowest worker of the job (ATP §3.7),
 * so the minimum RTO is much larger than a link RTT.
 */
#ifndef INA_WORKER_RTT_H
#define INA_WORKER_RTT_H

#include <cstdint>

namespace ina {

struct RttConfig {
	/* Before the first sample, RFC 6298's 1 s: a job's first fragments
	 * wait in the switch until its last worker has started, and a
	 * timeout there resends (and flushes) every one of them. */
	uint64_t initial_rto_ns = 1'000'000'000;
	/* Above the stalls of a host that runs more busy threads than it has
	 * CPUs (a scheduler slice is a few ms): in INA one spurious timeout
	 * flushes an aggregator, and every other worker of that fragment then
	 * has to time out too, since its copy waits in a slot that will never
	 * fill. Losses are mostly found by later ACKs (send_window.h), not by
	 * this timer. */
	uint64_t min_rto_ns = 20'000'000;
	/* An INA ACK that takes longer than this is a fragment stuck in a
	 * switch aggregator (waiting for a packet that went elsewhere), which
	 * only a retransmission frees; it is not a slow network. RTT samples
	 * of fragments that waited on a peer's retransmission feed the
	 * estimator, so without a tight ceiling the RTO grows with every
	 * stall and the stalls with the RTO (docs/worker.md, step 5). */
	uint64_t max_rto_ns = 50'000'000;
	/* Back-off stops at this multiple of the un-backed-off RTO. Within a
	 * job most "losses" are fragments waiting in a switch aggregator for a
	 * resend, not congestion: a worker whose RTO had backed off to the
	 * maximum kept a whole job crawling at a few fragments per second. */
	uint32_t max_backoff = 4;
};

/* The smallest RTT sample of the last one to two periods: the path's base
 * delay, without its queues. It follows the base up when the hosts' CPUs
 * are saturated (every packet then waits for a CPU, however few are in
 * flight) and down again when they are not. */
class RttMin {
public:
	explicit RttMin(uint64_t period_ns = 1'000'000'000) : period_ns_(period_ns) {}
	void sample(uint64_t rtt_ns, uint64_t now_ns)
	{
		if (now_ns - start_ns_ >= period_ns_) {
			prev_ = cur_;
			cur_ = rtt_ns;
			start_ns_ = now_ns;
		} else if (rtt_ns < cur_) {
			cur_ = rtt_ns;
		}
	}
	/* UINT64_MAX before the first sample. */
	uint64_t get() const { return cur_ < prev_ ? cur_ : prev_; }

private:
	uint64_t period_ns_;
	uint64_t start_ns_ = 0;
	uint64_t cur_ = UINT64_MAX, prev_ = UINT64_MAX;
};

class RttEstimator {
public:
	explicit RttEstimator(const RttConfig &cfg = RttConfig()) : cfg_(cfg), rto_ns_(cfg.initial_rto_ns), base_rto_ns_(cfg.initial_rto_ns) {}

	void sample(uint64_t rtt_ns);
	/* A timeout fired: double the RTO (at most max_backoff times the
	 * un-backed-off RTO, and at most max). */
	void backoff();
	/* Drops the back-off (sample() does it too). */
	void reset_backoff() { rto_ns_ = base_rto_ns_; }

	uint64_t rto_ns() const { return rto_ns_; }
	/* 0 until the first sample. */
	uint64_t srtt_ns() const { return srtt_ns_; }
	uint64_t rttvar_ns() const { return rttvar_ns_; }
	bool has_sample() const { return srtt_ns_ != 0; }

private:
	uint64_t clamp(uint64_t v) const;

	RttConfig cfg_;
	uint64_t srtt_ns_ = 0;
	uint64_t rttvar_ns_ = 0;
	uint64_t rto_ns_;
	uint64_t base_rto_ns_; /* rto_ns_ without back-off */
};

} /* namespace ina */

#endif /* INA_WORKER_RTT_H */
