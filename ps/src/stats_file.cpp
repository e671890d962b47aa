/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/stats_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

namespace ina {

bool ps_write_stats_file(const std::string &path, double seconds, const std::vector<PsStatsFileJob> &jobs,
			 std::string *err)
{
	nlohmann::json j;
	j["seconds"] = seconds;
	j["jobs"] = nlohmann::json::array();
	for (const PsStatsFileJob &e : jobs) {
		nlohmann::json jj;
		jj["job"] = e.job;
		jj["epoch"] = e.epoch;
		for (const auto &c : ps_job_counters())
			jj[c.name] = (e.stats.*c.field).get();
		const uint64_t done = e.stats.completed.get();
		jj["share_in_network"] = done ? double(e.stats.completed_in_network.get()) / done : 0.0;
		j["jobs"].push_back(jj);
	}
	for (const auto &c : ps_job_counters())
		j["counters"][c.name] = c.help;
	const std::string tmp = path + ".tmp";
	const std::string text = j.dump() + "\n";
	FILE *f = std::fopen(tmp.c_str(), "w");
	bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
	if (f && std::fclose(f) != 0)
		ok = false;
	if (ok && std::rename(tmp.c_str(), path.c_str()) == 0)
		return true;
	*err = path + ": " + std::strerror(errno);
	std::remove(tmp.c_str());
	return false;
}

} /* namespace ina */
