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

#include <cstdint>
#include <memory>

#include "app.h"

namespace switchd {

/* Publishes `next` as the current job table (blocks until no lcore can
 * still see the previous one). */
void publish_jobs(App &app, std::unique_ptr<JobTable> next);
/* Registers a job; logs its warnings. `epoch`: the run this registration
 * is (docs/protocol.md, "Epochs"); a registration with other content or
 * another epoch than the job's current one replaces it and frees its
 * aggregators. */
void register_job(App &app, const JobConfig &job, const char *origin, uint8_t epoch = 0,
		  bool epoch_checked = true);

} /* namespace switchd */

#endif
