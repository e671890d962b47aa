/* SPDX-License-Identifier: BSD-3-Clause */
#include "check_job.h"

#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "ina/cli.h"
#include "ina/ps_config.h"

int check_jobs(const std::vector<std::string> &files)
{
	if (files.empty()) {
		ina::print_error("ina-ps", "--check-job needs at least one job file");
		return ina::kExitUsage;
	}
	nlohmann::ordered_json out = nlohmann::ordered_json::array();
	std::set<uint16_t> ids;
	bool ok = true;
	for (const std::string &f : files) {
		ina::PsJobConfig c;
		std::string err;
		if (!ina::load_ps_job_file(f, &c, &err)) {
			std::fprintf(stderr, "ina-ps: error: invalid job: %s\n", err.c_str());
			ok = false;
			continue;
		}
		/* ina-ps serves each job id once. */
		if (!ids.insert(c.job).second) {
			std::fprintf(stderr, "ina-ps: error: invalid job: %s: id: job %u given twice\n", f.c_str(),
				     c.job);
			ok = false;
			continue;
		}
		out.push_back(nlohmann::ordered_json::parse(ina::ps_job_json(c, f)));
	}
	if (!ok)
		return 2;
	std::fputs((out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n").c_str(), stdout);
	return std::fflush(stdout) == 0 ? 0 : 1;
}
