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
#include "forwarding_table.h"
#include "goat_assign.h"
#include "jobs.h"
#include "lcore.h"
#include "lcore_shared.h"

namespace switchd {

/* How a port's INA packets reach the lcore that owns their aggregator (ports.cpp). */
enum class Steering { kSingle, kNic, kQueue, kHandoff };
const char *steering_name(Steering s);

/*
 * A counter one thread writes and other threads read (the control thread's,
 * read by telemetry and the summaries): its loads and stores are atomic, so
 * a reader never sees a torn or stale-forever value, and relaxed, because
 * nothing else is published through it. With one writer an increment is a
 * load and a store, no locked instruction.
 */
class SharedCounter {
public:
	void inc() { v_.store(v_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
	uint64_t load() const { return v_.load(std::memory_order_relaxed); }

private:
	std::atomic<uint64_t> v_{0};
};

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
	/* Control messages, counted by the control thread (control.cpp) and
	 * read by telemetry and the summaries; the lcores count ring overflows
	 * (LcoreCtr::control_drops). */
	SharedCounter control_ok, control_bad;
	SharedCounter control_auth_drops, control_replay_drops, control_denied;
	SharedCounter control_acks, control_ack_drops;
	SharedCounter lease_expiries; /* jobs whose PS stopped re-registering */
	/* ACKs out: per port, a ring the control thread fills and lcore 0's
	 * egress queue drains (EgressQueue::set_inbox). */
	std::vector<rte_ring *> control_tx;
	/* Set by the signal handler (a lock-free atomic store is
	 * async-signal-safe), read by every lcore and the control thread. */
	std::atomic<bool> quit{false};
	/* What the lcores read of the above (pointers into it), filled by
	 * main() once it is all set up, before the lcores start; each Lcore
	 * points here and never to the App. */
	LcoreShared lcore_shared;
};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler stores to App::quit");

} /* namespace switchd */

#endif
