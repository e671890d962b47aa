/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The control plane: a non-data-path thread that applies job registrations
 * (from the config and from control messages) by publishing a new JobTable
 * and retiring the old one once every lcore has passed a quiescent state,
 * and that logs the periodic one-line summary (summary.h).
 */
#ifndef INA_SWITCHD_CONTROL_H
#define INA_SWITCHD_CONTROL_H

#include <string>

#include "app.h"

namespace switchd {

/* Publishes `next` as the current job table (blocks until no lcore can
 * still see the previous one). */
void publish_jobs(App &app, std::unique_ptr<JobTable> next);
/* Publishes `next` as the current GOAT table (as publish_jobs). */
void publish_goat(App &app, std::unique_ptr<GoatTable> next);
/* Installs (no ranges: removes) a job's GOAT assignment and logs it;
 * empty, or why not (ranges overlapping another job's). */
std::string install_goat(App &app, const GoatJobConfig &g, const char *origin);
/* Registers a job; logs its warnings. */
/* `epoch`: the run this registration is (docs/protocol.md, "Epochs"); a
 * registration with other content or another epoch than the job's current
 * one replaces it and frees its aggregators. */
void register_job(App &app, const JobConfig &job, const char *origin, uint8_t epoch = 0,
		  bool epoch_checked = true);

/* Creates the rings through which the control thread sends its ACKs and
 * logs how control messages are authenticated. Empty, or the error. */
std::string setup_control_tx(App &app);
/* The control-message counters as one line, for the final log. */
std::string control_summary(const App &app, const std::string &prefix);

/* Runs until app.quit: control messages and the periodic summary. */
void control_loop(App &app);
/* Totals over lcores, for the summaries and telemetry. */
PortCounters port_totals(const App &app, size_t port);
LcoreCounters lcore_totals(const App &app);
JobCounters job_totals(const App &app, uint16_t job);
ina::PipelineCounters pipeline_totals(const App &app);
uint64_t occupancy(const App &app);

} /* namespace switchd */

#endif
