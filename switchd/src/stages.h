/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The data path of one lcore as a chain of stages, each a function over a
 * burst (FD.io VPP's nodes, in plain functions): a stage takes the packets
 * of one burst, with a context that holds exactly what it reads and the
 * counters it writes, and appends each packet to the burst of the stage it
 * goes to next (or frees it, counted). The lcore loop (lcore_loop.cpp) is
 * the chain:
 *
 *   rx -> classify -+-> handoff -> admission -> pipeline -+-> forward -> egress -> tx
 *                   |      \-> netreduce ------------------+       \       ^
 *                   \-> forward (ARP, L2, IPv4)            \-> replicate --/
 *                                     admission, pipeline -> control (ring)
 *
 * (docs/switchd.md, "The chain"). An INA header is decoded once, in
 * classify, into the PacketDesc (packet_desc.h) that travels in the mbuf;
 * the later stages read that view.
 *
 * Per packet there is no allocation (except the mbufs of multicast copies,
 * from mempool caches), no lock, no log and no system call.
 */
#ifndef INA_SWITCHD_STAGES_H
#define INA_SWITCHD_STAGES_H

#include <cstdint>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "egress.h"
#include "forwarding_table.h"
#include "goat_assign.h"
#include "ina/netreduce.h"
#include "ina/pipeline.h"
#include "jobs.h"
#include "packet_desc.h"
#include "stats.h"

namespace switchd {

constexpr uint16_t kMaxBurst = 256;

/* The packets between two stages. */
template <typename T, unsigned N>
struct Vec {
	static constexpr unsigned kCapacity = N;
	uint32_t n = 0;
	T v[N];
	void push(const T &x) { v[n++] = x; }
	uint32_t room() const { return N - n; }
	void clear() { n = 0; }
};
using Burst = Vec<rte_mbuf *, kMaxBurst>;
/* Forward's input: every packet of a burst at most once, plus the
 * NetReduce stage's result copies (netreduce_burst() stops where it has no
 * room for a packet's copies). */
using ForwardBurst = Vec<rte_mbuf *, 2 * kMaxBurst>;
/* An admitted INA packet of a registered job, on its way to the pipeline;
 * range: the GOAT range of this switch it falls in, else null. */
struct PipelineItem {
	rte_mbuf *m;
	const Job *job;
	const GoatRange *range;
};
using PipelineBurst = Vec<PipelineItem, kMaxBurst>;
/* A job's result to copy toward its workers. */
struct McastItem {
	rte_mbuf *m;
	const Job *job;
};
using McastBurst = Vec<McastItem, kMaxBurst>;
/* A packet (or one reference of a flooded one) for an egress queue. */
struct TxItem {
	rte_mbuf *m;
	uint16_t port; /* config index */
};
using TxBurst = Vec<TxItem, 4 * kMaxBurst>;

/* classify (classify.cpp): the one parse. Reads the port map; writes each
 * packet's PacketDesc, the lcore's packets and drop counters and the
 * malformed_* reasons of an INA header it cannot read. INA packets go to
 * `ina`, RoCEv2 ones to `roce`, the rest (ARP, L2, IPv4) to `fwd`; a plain
 * IPv4 packet to the switch's own address is dropped. */
struct ClassifyCtx {
	const int16_t *port_index; /* DPDK port id -> config index, -1 */
	uint16_t port_ids;         /* entries of port_index */
	bool roce;                 /* NetReduce rings configured: UDP 4791 is kRoce */
	uint32_t switch_ip;
	LcoreCounters *ctr;
	ina::PipelineCounters *pipeline;
};
void classify_burst(const ClassifyCtx &c, rte_mbuf *const *pkts, uint32_t n, Burst *ina, Burst *roce,
		    ForwardBurst *fwd);

/* handoff (handoff.cpp): an INA gradient belongs to the lcore that owns
 * its aggregator (agg_index % lcores), RoCEv2 to the NetReduce lcore. Keeps
 * this lcore's packets in *b, in order; appends the others to out[owner].
 * Returns how many it handed over. */
struct HandoffCtx {
	unsigned self, lcores, netreduce_lcore;
};
uint32_t handoff_burst(const HandoffCtx &c, Burst *b, Burst *out);

/* admission (admission.cpp): an INA packet's job, admission
 * (docs/security.md, "Data plane"), the job's epoch and GOAT assignment,
 * and the ECN pre-mark from the egress queue toward its destination (depth
 * as the previous burst left it). Reads this round's job and GOAT tables
 * (RCU), the neighbour table and the queues' depth; writes the frame's ECN
 * bits, the view's flags and the lcore's, ports' and jobs' counters.
 * Admitted packets go to `pipe`; control messages for the switch to
 * `control`; what the switch does not aggregate to `fwd`. */
struct AdmissionCtx {
	const JobTable *jobs;
	const GoatTable *goat;
	const ForwardingTable *fwd;
	const EgressQueue *egress; /* per config port */
	bool premark;              /* some port marks ECN: look up the next hop's queue */
	uint32_t switch_ip;
	uint16_t switch_id;
	LcoreCounters *ctr;
	PortCounters *port_ctr; /* per config port */
	JobCounters *job_ctr;   /* per job id */
};
void admission_burst(const AdmissionCtx &c, const Burst &in, PipelineBurst *pipe, ForwardBurst *fwd,
		     Burst *control);

/* pipeline (pipeline.cpp): ina::process(), the switch program, over the
 * lcore's aggregators; its verdict sends a packet on (fwd), to its job's
 * workers (mcast), to the control thread, or frees it. Writes the
 * aggregators, the frames, the pipeline's, the lcore's and the jobs'
 * counters. */
struct PipelineCtx {
	ina::AggregatorTable *table;
	ina::PipelineCounters *pipeline;
	unsigned lcore; /* this lcore's index: its Job::lcore_share */
	uint64_t now;
	LcoreCounters *ctr;
	JobCounters *job_ctr;
};
void pipeline_burst(const PipelineCtx &c, const PipelineBurst &in, ForwardBurst *fwd, McastBurst *mcast,
		    Burst *control);

/* netreduce (netreduce.cpp): RoCEv2 through ina::nr_process(); a completed
 * slot's result copies for the other ranks (new mbufs from `pool`) and
 * what passes go to fwd. Takes in.v[first...] while fwd has room for a
 * packet's copies; returns how many it took. */
struct NetreduceCtx {
	ina::NrTable *nr;
	ina::NrCounters *nr_ctr;
	rte_mempool *pool;
	uint64_t now;
	LcoreCounters *ctr;
};
uint32_t netreduce_burst(const NetreduceCtx &c, const Burst &in, uint32_t first, ForwardBurst *fwd);

/* control (control_stage.cpp): control messages onto the control thread's
 * ring, the rest dropped (control_drops) when it is full. */
void control_burst(rte_ring *ring, const Burst &in, LcoreCounters *ctr);

/* forward (forward.cpp): an IPv4 destination's neighbour (else by MAC),
 * broadcast and multicast to `flood`, ARP for the switch answered on its
 * arrival port. Reads the neighbour table and the ports' MACs; writes the
 * destination MAC (ARP replies whole) and the lcore's counters. */
struct ForwardCtx {
	const ForwardingTable *fwd;
	const Mac *port_mac; /* per config port */
	uint32_t switch_ip;
	LcoreCounters *ctr;
};
void forward_burst(const ForwardCtx &c, const ForwardBurst &in, TxBurst *tx, ForwardBurst *flood);

/* replicate (replicate.cpp): a result's copies, one per McastTarget (a
 * header mbuf chained to an indirect mbuf that shares the payload, or a
 * flat copy where the port cannot send chains), never back out of the
 * arrival port; a flooded packet once per other port (references of the
 * same mbuf). Takes mcast.v[*mi...] and flood.v[*fi...] while tx has room
 * for their copies and advances *mi and *fi. */
struct ReplicateCtx {
	rte_mempool *pool, *hdr_pool, *ind_pool;
	const uint8_t *port_multiseg; /* per config port */
	uint16_t ports;
	LcoreCounters *ctr;
};
void replicate_burst(const ReplicateCtx &c, const McastBurst &mcast, uint32_t *mi, const ForwardBurst &flood,
		     uint32_t *fi, TxBurst *tx);

/* egress (egress_stage.cpp): each packet into its port's egress queue
 * (random and tail drop, ECN mark above the threshold); the queue counts
 * per port, this stage the job of a mark or drop. */
struct EgressCtx {
	EgressQueue *queues; /* per config port */
	uint64_t *rng;
	JobCounters *job_ctr;
};
void egress_burst(const EgressCtx &c, const TxBurst &in);

} /* namespace switchd */

#endif
