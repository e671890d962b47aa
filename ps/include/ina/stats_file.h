/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The PS's counters for a reader outside the process (`ina-ps --stats-file`,
 * read by tools/ina-exporter for Prometheus): every job's counters as one
 * JSON object, written to PATH.tmp and renamed over PATH, so that a reader
 * always finds a whole file. The serving loop writes it once a second and
 * once more at exit; nothing of it is on a frame's path.
 */
#ifndef INA_PS_STATS_FILE_H
#define INA_PS_STATS_FILE_H

#include <cstdint>
#include <string>
#include <vector>

#include "ina/ps.h"

namespace ina {

struct PsStatsFileJob {
	uint16_t job = 0;
	uint8_t epoch = 0;
	PsJobStats stats;
};

/* {"seconds": S, "jobs": [{"job", "epoch", every INA_PS_JOB_COUNTERS counter,
 * "share_in_network"}], "counters": {name: help}}. False, with *err, when the
 * file cannot be written (the PS serves on). */
bool ps_write_stats_file(const std::string &path, double seconds, const std::vector<PsStatsFileJob> &jobs,
			 std::string *err);

} /* namespace ina */

#endif /* INA_PS_STATS_FILE_H */
