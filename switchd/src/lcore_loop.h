/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The data path of one lcore, run to completion: the chain of stages
 * (stages.h), one file each:
 *
 *   lcore_loop.cpp      rx, tx: the loop round, the chain
 *   classify.cpp        classify: the one parse into a PacketDesc
 *   handoff.cpp         handoff: packets of another lcore's aggregators
 *   admission.cpp       admission: job, members, epoch, GOAT, ECN pre-mark
 *   pipeline_stage.cpp  pipeline: ina::process(), the verdict
 *   netreduce.cpp       netreduce: RoCEv2 through ina::nr_process(), results
 *   control_stage.cpp   control: messages for the control thread's ring
 *   forward.cpp         forward: IPv4 / L2 next hop, ARP for the switch
 *   replicate.cpp       replicate: multicast copies of a result, flood
 *   egress_stage.cpp    egress: into the per-port egress queues (egress.h)
 *
 * The only shared state is read-only: the forwarding table, the current
 * job table and GOAT table, read under RCU (rte_rcu_qsbr: the lcore reports
 * a quiescent state once per round, after which it holds no pointer into
 * the tables). Each stage's calls, packets and cycles go to the lcore's
 * StageRuntime (runtime.h).
 */
#ifndef INA_SWITCHD_LCORE_LOOP_H
#define INA_SWITCHD_LCORE_LOOP_H

#include <vector>

#include <rte_mbuf.h>

#include "lcore.h"
#include "lcore_shared.h"
#include "packet_desc.h"
#include "runtime.h"
#include "stages.h"

namespace switchd {

class LcoreLoop {
public:
	explicit LcoreLoop(Lcore &lc);
	void run();

private:
	/* One round: returns the packets received, *queued what the egress
	 * queues hold after it. */
	uint32_t round(uint64_t now, uint32_t *queued);
	uint32_t receive(uint16_t burst);
	uint32_t receive_handoffs(uint16_t burst);
	uint32_t drain(uint64_t now, uint32_t *queued);
	/* The chain from classify on, for packets from an RX queue; to_lcore:
	 * where a single traced packet was handed, else untouched. */
	void chain_rx(rte_mbuf *const *pkts, uint32_t n, uint64_t t, bool traced, uint8_t *to_lcore);
	/* The chain from admission and netreduce on (classified packets in
	 * ina_ and roce_). */
	void chain_classified(uint64_t t);
	/* forward, replicate, egress. */
	void downstream(uint64_t *t);
	void flush_handoffs();
	/* The stage that ran since *t took n packets: one TSC read. */
	void lap(Stage s, uint32_t n, uint64_t *t)
	{
		const uint64_t now = rte_rdtsc();
		lc_.runtime.add(s, n, now - *t);
		*t = now;
	}
	/* stale state */
	void purge_stale();
	void sweep(uint64_t now);

	/* A copy, set once: a field is one load away, as it was in the App. */
	const LcoreShared sh_;
	Lcore &lc_;
	const unsigned n_;
	const JobTable *jobs_ = nullptr; /* this round's job table (RCU) */
	uint16_t burst_;
	/* What each stage reads and writes. */
	ClassifyCtx classify_;
	HandoffCtx handoff_;
	AdmissionCtx admission_;
	PipelineCtx pipeline_;
	NetreduceCtx netreduce_;
	ForwardCtx forward_;
	ReplicateCtx replicate_;
	EgressCtx egress_;
	TraceCounters trace_ctr_;
	/* The bursts between the stages, empty between two chain runs. */
	rte_mbuf *pkts_[kMaxBurst];
	Burst ina_, roce_, control_;
	ForwardBurst fwd_, flood_;
	PipelineBurst pipe_;
	McastBurst mcast_;
	TxBurst tx_;
	std::vector<Burst> out_; /* hand-off bursts per lcore */
};

/* The run-to-completion loop; arg is the Lcore, its `shared` set. */
int lcore_main(void *arg);

} /* namespace switchd */

#endif
