/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Job registration: a job from the config or from a PS's control message
 * becomes a Job in a new JobTable, published to the lcores with RCU (the
 * old table is retired once every lcore has passed a quiescent state).
 * Called by the thread that owns app.jobs_owner: main at start, then the
 * control thread.
 */
#ifndef INA_SWITCHD_REGISTRATION_H
#define INA_SWITCHD_REGISTRATION_H

#include <atomic>
#include <cstdint>
#include <memory>

#include <rte_rcu_qsbr.h>

#include "app.h"

namespace switchd {

/* Publishes `next` in `current` and keeps it in `owner`, then frees the
 * previous version once no lcore can still see it: every lcore passes a
 * quiescent state once per loop, after which none holds a pointer into it
 * (blocks until then). For the job and the GOAT tables. */
template <typename Table>
void rcu_publish(App &app, std::atomic<const Table *> &current, std::unique_ptr<Table> &owner,
		 std::unique_ptr<Table> next)
{
	current.store(next.get(), std::memory_order_release);
	rte_rcu_qsbr_synchronize(app.rcu, RTE_QSBR_THRID_INVALID);
	owner = std::move(next);
}

/* Publishes `next` as the current job table (rcu_publish). */
inline void publish_jobs(App &app, std::unique_ptr<JobTable> next)
{
	rcu_publish(app, app.jobs, app.jobs_owner, std::move(next));
}
/* Registers a job; logs its warnings. `epoch`: the run this registration
 * is (docs/protocol.md, "Epochs"); a registration with other content or
 * another epoch than the job's current one replaces it and frees its
 * aggregators. */
void register_job(App &app, const JobConfig &job, const char *origin, uint8_t epoch = 0,
		  bool epoch_checked = true);

} /* namespace switchd */

#endif
