/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the lcores read of the switch's shared state, and nothing more: the
 * configuration, the forwarding table, the ports' arrays, the mbuf pools,
 * the control ring, the job and GOAT tables under RCU, and the quit flag.
 * The App owns all of it (app.h) and fills one LcoreShared before the
 * lcores start; each Lcore points to it (lcore.h). Its own header so that
 * the lcore's state and its loop depend on these few things, not on the
 * App that holds the lcores, and the App on the lcores, one way.
 *
 * Pointers and values only, set once: the loop copies the struct, so a
 * field costs it no more loads than the App's member did.
 */
#ifndef INA_SWITCHD_LCORE_SHARED_H
#define INA_SWITCHD_LCORE_SHARED_H

#include <atomic>
#include <cstdint>

#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "config.h"
#include "forwarding_table.h"
#include "goat_assign.h"
#include "jobs.h"

namespace switchd {

struct LcoreShared {
	const SwitchConfig *cfg = nullptr;
	const ForwardingTable *fwd = nullptr;
	unsigned n_lcores = 0;
	const int16_t *port_index = nullptr; /* DPDK port id -> config index, -1 */
	uint16_t port_ids = 0;               /* entries of port_index */
	uint16_t ports = 0;                  /* config ports: entries of the arrays below */
	const Mac *port_mac = nullptr;
	const uint8_t *port_multiseg = nullptr;
	/* Link state the control thread writes; an lcore neither polls nor
	 * sends on a port that is down (App::port_up says why). */
	const std::atomic<uint8_t> *port_up = nullptr;
	rte_mempool *pool = nullptr;     /* packet mbufs */
	rte_mempool *hdr_pool = nullptr; /* multicast header mbufs */
	rte_mempool *ind_pool = nullptr; /* indirect mbufs sharing a payload */
	rte_ring *control_ring = nullptr; /* to the control thread (MP/SC) */
	/* The job and GOAT tables, swapped by the control thread; an lcore is
	 * RCU reader `Lcore::index` and reports a quiescent state per round. */
	struct rte_rcu_qsbr *rcu = nullptr;
	const std::atomic<const JobTable *> *jobs = nullptr;
	const std::atomic<const GoatTable *> *goat = nullptr;
	uint64_t nr_clt_timeout_cycles = 0; /* netreduce.clt_timeout_ms; 0: never */
	const std::atomic<bool> *quit = nullptr; /* set by the signal handler */
};

} /* namespace switchd */

#endif
