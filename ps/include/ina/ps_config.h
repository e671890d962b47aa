/* SPDX-License-Identifier: BSD-3-Clause
 * Job descriptions for the PS: one TOML file per job (format in docs/ps.md,
 * example in config/ps-example.toml). */
#ifndef INA_PS_CONFIG_H
#define INA_PS_CONFIG_H

#include <string>

#include "ina/ps.h"

namespace ina {

/* Parses a job description; false with a one-line *error naming the file
 * and the key for a syntax error, an unknown key or a value out of range. */
bool load_ps_job_file(const std::string &path, PsJobConfig *out, std::string *error);
bool parse_ps_job(const std::string &toml_text, const std::string &source, PsJobConfig *out,
		  std::string *error);

/* The job as `ina-ps --check-job` prints it: JSON with the job file's shape
 * and every default filled in (docs/ps.md, "Checking a job file"). */
std::string ps_job_json(const PsJobConfig &c, const std::string &file);

} /* namespace ina */

#endif
