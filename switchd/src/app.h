/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Runtime state of ina-switchd: what main() sets up, the lcores run on and
 * the control plane and telemetry read.
 */
#ifndef INA_SWITCHD_APP_H
#define INA_SWITCHD_APP_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "config.h"
#include "egress.h"
#include "forwarding.h"
#include "goat_assign.h"
#include "ina/netreduce.h"
#include "ina/pipeline.h"
#include "jobs.h"
#include "numa.h"
#include "stats.h"

namespace switchd {

/* How a port's INA packets reach the lcore that owns their aggregator (ports.cpp). */
enum class Steering { kSingle, kNic, kQueue, kHandoff };
const char *steering_name(Steering s);

struct RxQueueRef {
	uint16_t port;    /* config index */
	uint16_t port_id; /* DPDK port id */
	uint16_t queue;
};

/* Everything one lcore owns. Allocated on its NUMA node (numa.h), the
 * containers and the aggregator registers too; written only by it. */
struct App;

struct alignas(64) Lcore {
	explicit Lcore(int socket);

	NodeMemory mem; /* first: the containers below allocate from it */
	App *app = nullptr;
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
};

/* Lcores live in DPDK memory: destroyed and freed there. */
struct LcoreDeleter {
	void operator()(Lcore *lc) const;
};
using LcorePtr = std::unique_ptr<Lcore, LcoreDeleter>;
/* A new Lcore on `socket` (else anywhere: NodeMemory says); null when DPDK
 * has no memory left. */
LcorePtr make_lcore(int socket);

struct App {
	SwitchConfig cfg;
	std::unique_ptr<ForwardingTable> fwd;
	std::vector<uint16_t> port_id;              /* config index -> DPDK port id */
	std::vector<int16_t> port_index;            /* DPDK port id -> config index, -1 */
	std::vector<Mac> port_mac;
	std::vector<uint8_t> port_multiseg;         /* PMD sends chained mbufs */
	std::vector<uint16_t> port_mtu;             /* MTU to configure, 0: the default */
	/* Link state as the control thread last saw it (written there, read by
	 * the lcores once per burst): lcores neither poll nor send on a port
	 * that is down, because some PMDs (memif) remap their rings when the
	 * peer (re)connects and must not be in a burst meanwhile. */
	std::unique_ptr<std::atomic<uint8_t>[]> port_up;
	std::vector<LcorePtr> lcores;
	std::vector<Steering> port_steering; /* per config port */
	rte_mempool *pool = nullptr;     /* packet mbufs */
	rte_mempool *hdr_pool = nullptr; /* multicast header mbufs */
	rte_mempool *ind_pool = nullptr; /* indirect mbufs sharing a payload */
	rte_ring *control_ring = nullptr; /* control messages to the control plane (MP/SC) */
	/* Readers of the job table: thread ids 0..n-1 are the lcores (a
	 * quiescent state per loop round), id n is telemetry (online only
	 * while it reads; see telemetry.cpp). */
	struct rte_rcu_qsbr *rcu = nullptr;
	unsigned telemetry_reader = 0;
	std::atomic<const JobTable *> jobs{nullptr};
	std::unique_ptr<JobTable> jobs_owner; /* the published version */
	/* GOAT assignments per job (goat_assign.h), published the same way. */
	std::atomic<const GoatTable *> goat{nullptr};
	std::unique_ptr<GoatTable> goat_owner;
	uint64_t gc_timeout_cycles = 0;
	uint64_t nr_clt_timeout_cycles = 0; /* netreduce.clt_timeout_ms; 0: never */
	uint64_t start_tsc = 0;
	/* Control messages, counted by the control thread (control.cpp); the
	 * lcores count ring overflows (LcoreCtr::control_drops). */
	uint64_t control_ok = 0, control_bad = 0;
	uint64_t control_auth_drops = 0, control_replay_drops = 0, control_denied = 0;
	uint64_t control_acks = 0, control_ack_drops = 0;
	uint64_t lease_expiries = 0; /* jobs whose PS stopped re-registering */
	/* ACKs out: per port, a ring the control thread fills and lcore 0's
	 * egress queue drains (EgressQueue::set_inbox). */
	std::vector<rte_ring *> control_tx;
	volatile bool quit = false;
};

/* The run-to-completion loop (datapath.cpp); arg is the Lcore. */
int lcore_main(void *arg);

} /* namespace switchd */

#endif
