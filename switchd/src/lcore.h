/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Everything one lcore owns: its aggregator table, counters, egress queues
 * and hand-off rings. Allocated on the lcore's NUMA node (numa.h), the
 * containers and the aggregator registers too; written only by that lcore.
 * The shared state it reads comes through LcoreShared, not the App that
 * holds the lcores (app.h includes this file).
 */
#ifndef INA_SWITCHD_LCORE_H
#define INA_SWITCHD_LCORE_H

#include <cstdint>
#include <memory>

#include <rte_ring.h>

#include "egress.h"
#include "ina/netreduce.h"
#include "ina/pipeline.h"
#include "lcore_shared.h"
#include "numa.h"
#include "runtime.h"
#include "stats.h"
#include "trace.h"

namespace switchd {

/* One RX queue an lcore polls. */
struct RxQueueRef {
	uint16_t port;    /* config index */
	uint16_t port_id; /* DPDK port id */
	uint16_t queue;
};

struct alignas(64) Lcore {
	explicit Lcore(int socket);

	NodeMemory mem; /* first: the containers below allocate from it */
	/* What this lcore reads of the shared state, the same for every lcore
	 * (lcore_shared.h); set before the lcores start. */
	const LcoreShared *shared = nullptr;
	unsigned index = 0;   /* 0..n_lcores-1: owns aggregators with index % n == index */
	unsigned lcore_id = 0;
	std::unique_ptr<ina::AggregatorTable> table;
	ina::PipelineCounters pipeline;
	/* The NetReduce stage: on the one lcore that runs it, else null. */
	std::unique_ptr<ina::NrTable> nr;
	ina::NrCounters nr_ctr;
	uint64_t nr_next_expiry = 0; /* TSC of the next CLT expiry pass */
	LcoreCounters ctr;
	NodeVector<PortCounters> port_ctr; /* per config port */
	NodeVector<JobCounters> job_ctr;   /* per job id (65536) */
	NodeVector<RxQueueRef> rx;
	NodeVector<EgressQueue> egress;    /* per config port, on TX queue `index` */
	NodeVector<rte_ring *> handoff_in; /* from lcore j (SPSC); null for self */
	NodeVector<rte_ring *> handoff_out; /* to lcore j */
	/* Stale state (lcore_loop.cpp): the job table's generations this
	 * lcore has purged its aggregators for, and the idle sweep's place. */
	NodeVector<uint32_t> seen_gen;     /* per job id (65536) */
	uint64_t seen_purges = 0;
	uint32_t sweep_cursor = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	PacketTrace trace; /* armed by telemetry (/ina/trace) */
	StageRuntime runtime; /* per stage of the chain (/ina/runtime) */
};

/* Lcores live in DPDK memory: destroyed and freed there. */
struct LcoreDeleter {
	void operator()(Lcore *lc) const;
};
using LcorePtr = std::unique_ptr<Lcore, LcoreDeleter>;
/* A new Lcore on `socket` (else anywhere: NodeMemory says); null when DPDK
 * has no memory left. */
LcorePtr make_lcore(int socket);

} /* namespace switchd */

#endif
