/* SPDX-License-Identifier: BSD-3-Clause */
#include "goat_assign.h"

#include <algorithm>
#include <cstring>

#include "ina/goat_plan.h"

namespace switchd {

std::string goat_check_ranges(std::vector<GoatRange> *r, uint32_t aggregators)
{
	std::sort(r->begin(), r->end(), [](const GoatRange &a, const GoatRange &b) { return a.first < b.first; });
	for (size_t i = 0; i < r->size(); i++) {
		const GoatRange &g = (*r)[i];
		if (g.first >= g.end)
			return "range [" + std::to_string(g.first) + ", " + std::to_string(g.end) + ") is empty";
		if (g.end > aggregators)
			return "range [" + std::to_string(g.first) + ", " + std::to_string(g.end) +
			       ") is beyond the switch's " + std::to_string(aggregators) + " aggregators";
		if (i && g.first < (*r)[i - 1].end)
			return "ranges [" + std::to_string((*r)[i - 1].first) + ", " +
			       std::to_string((*r)[i - 1].end) + ") and [" + std::to_string(g.first) + ", " +
			       std::to_string(g.end) + ") overlap";
		if (g.fan_in > INA_BITMAP_BITS || g.fan_in != __builtin_popcount(g.children))
			return "range [" + std::to_string(g.first) + ", " + std::to_string(g.end) + "): fan-in " +
			       std::to_string(g.fan_in) + " does not count its children's bits (" +
			       std::to_string(__builtin_popcount(g.children)) + ")";
	}
	return "";
}

std::string goat_from_plan(const std::string &path, uint16_t switch_id, uint32_t aggregators,
			   GoatJobConfig *out)
{
	ina::GoatPlan plan;
	std::string err = ina::goat_plan_read(path, &plan);
	if (!err.empty())
		return err;
	std::vector<GoatRange> given = out->ranges;
	if (given.empty())
		given.push_back(GoatRange{0, aggregators, 0, 0});
	ina::GoatSwitchPart part;
	err = ina::goat_switch_part(plan, switch_id, given, &part);
	if (err.empty()) {
		out->ranges = part.slots;
		out->submodels = part.submodels;
		err = goat_check_ranges(&out->ranges, aggregators);
	}
	if (!err.empty())
		return path + ": " + err;
	out->plan = path;
	return "";
}

std::unique_ptr<GoatTable> GoatTable::with(const GoatJobConfig &cfg, std::string *error) const
{
	for (uint16_t j : jobs_) {
		if (j == cfg.job)
			continue;
		for (const GoatRange &a : by_job_[j]->cfg.ranges)
			for (const GoatRange &b : cfg.ranges)
				if (a.first < b.end && b.first < a.end) {
					*error = "range [" + std::to_string(b.first) + ", " + std::to_string(b.end) +
						 ") overlaps job " + std::to_string(j) + "'s [" +
						 std::to_string(a.first) + ", " + std::to_string(a.end) +
						 "): GOAT ranges are exclusive";
					return nullptr;
				}
	}
	auto t = std::make_unique<GoatTable>(*this);
	if (!t->by_job_[cfg.job]) {
		t->jobs_.push_back(cfg.job);
		t->count_++;
	}
	auto a = std::make_shared<GoatAssignment>();
	a->cfg = cfg;
	t->by_job_[cfg.job] = std::move(a);
	return t;
}

std::unique_ptr<GoatTable> GoatTable::without(uint16_t job) const
{
	auto t = std::make_unique<GoatTable>(*this);
	if (t->by_job_[job]) {
		t->by_job_[job].reset();
		t->jobs_.erase(std::find(t->jobs_.begin(), t->jobs_.end(), job));
		t->count_--;
	}
	return t;
}

} /* namespace switchd */
