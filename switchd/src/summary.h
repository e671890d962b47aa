/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The log's summaries: the periodic line (control thread, every
 * stats_interval_s) and the final lines (main thread, once the lcores and
 * the control thread have stopped). Both name every non-zero drop counter
 * of the switch and of each lcore, port and job, found by their kind in the
 * counter lists (stats.h, ina/pipeline.h, ina/netreduce.h), so that a drop
 * counter added to a list shows without anything here changing. The final
 * lines also check the packet accounting of docs/switchd.md ("Where every
 * packet went"). Nothing here runs on the data path.
 */
#ifndef INA_SWITCHD_SUMMARY_H
#define INA_SWITCHD_SUMMARY_H

#include <cstdint>
#include <string>
#include <vector>

#include "app.h"

namespace switchd {

/* The terms of the packet accounting, over every lcore and port:
 *   rx + made == tx + drops + consumed + queued
 * exactly once the lcores have stopped; while they run, the counters are
 * read at slightly different times. */
struct Accounting {
	uint64_t rx = 0;       /* packets received */
	uint64_t made = 0;     /* packets made here: ACKs, copies of multicast, flood, NetReduce */
	uint64_t tx = 0;       /* packets sent */
	uint64_t drops = 0;    /* the sum of every counter of kind kDrop */
	uint64_t consumed = 0; /* absorbed, handed to the control plane, replaced by copies */
	uint64_t queued = 0;   /* in egress queues, hand-off rings, ACK rings */
	/* What no term explains: 0 unless a packet path lacks a counter. */
	int64_t unexplained() const
	{
		return static_cast<int64_t>(rx + made) - static_cast<int64_t>(tx + drops + consumed + queued);
	}
};

Accounting accounting(const App &app);

/* Totals over lcores, for the summaries and telemetry. */
PortCounters port_totals(const App &app, size_t port);
LcoreCounters lcore_totals(const App &app);
JobCounters job_totals(const App &app, uint16_t job);
ina::PipelineCounters pipeline_totals(const App &app);
uint64_t occupancy(const App &app);

/* The control-message counters as one line, for the final log. */
std::string control_summary(const App &app, const std::string &prefix);

/* The periodic line: totals, then "drops N: name=N ..." over the switch and
 * "| lcore k: ...", "| port P: ...", "| job J: ..." for each with a non-zero
 * drop counter (lcores only when there are several; jobs: the registered
 * ones, or with `all_jobs` every job id). Called by the thread that owns
 * app.jobs_owner (control thread), or once everything else has stopped. */
std::string summary_line(const App &app, double seconds, const std::string &prefix, bool all_jobs = false);

/* A job's first gradient wider than the switch's `elements` (too_wide):
 * one warning per job with both sizes, from the control thread (which owns
 * app.jobs_owner), so that the data path only counts. The job still runs,
 * through its PS, and the warning says why it is slow. */
class TooWideLog {
public:
	void check(const App &app);

private:
	std::vector<bool> logged_ = std::vector<bool>(65536, false);
};

/* The final lines (after the lcores and the control thread stopped): the
 * summary over every job id, the control plane, the accounting, one line
 * per port and per job (registered, or with a counter that is not 0). */
void log_final(const App &app);

} /* namespace switchd */

#endif
