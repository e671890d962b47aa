/* SPDX-License-Identifier: BSD-3-Clause
 *
 * `ina-ps --check-job FILE...`: reads each job file as ina-ps would and
 * prints it as JSON with every default filled in (ina::ps_job_json), or its
 * errors; opens no interface, socket or switch connection.
 */
#ifndef INA_PS_CHECK_JOB_H
#define INA_PS_CHECK_JOB_H

#include <string>
#include <vector>

/* 0 when every file is valid (a JSON array of the jobs on stdout, in the
 * order given), else one "ina-ps: error: invalid job: ..." line on stderr
 * per invalid file and 2 (ina::kExitUsage for no file). */
int check_jobs(const std::vector<std::string> &files);

#endif
