/* SPDX-License-Identifier: BSD-3-Clause
 *
 * GOAT assignments (docs/goat.md, "Installing a plan"): for a job, the
 * aggregator index ranges in which this switch aggregates the job's
 * fragments that name it in agg_node. A fragment that names another switch
 * passes untouched (the pipeline's filter stage); one that names this
 * switch outside its ranges, or names no switch, passes untouched too, so
 * that only the plan's sub-models take this switch's aggregators.
 *
 * Parsing, plan files and the control message live here without DPDK; the
 * table is published like the job table (RCU, control.cpp).
 */
#ifndef INA_SWITCHD_GOAT_ASSIGN_H
#define INA_SWITCHD_GOAT_ASSIGN_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ina/goat_wire.h"

namespace switchd {

/* [first, end), and who aggregates there (fan_in 0: every worker, by the
 * fragments' own fan-in). */
using GoatRange = ina::GoatSlots;

/* One job's assignment, as the config or a control message gives it. */
struct GoatJobConfig {
	uint16_t job = 0;
	std::vector<GoatRange> ranges; /* sorted, disjoint (goat_check_ranges) */
	std::string plan;              /* the plan file it came from, if any */
	std::vector<std::string> submodels; /* the plan's names, for the log */
	bool from_control = false;          /* installed by its PS: goes with the job */
};

/* Sorts `r` and checks it: first < end <= aggregators, no overlap, a
 * fan-in that counts its children's bits (or 0 with none). Empty string, or
 * the reason. */
std::string goat_check_ranges(std::vector<GoatRange> *r, uint32_t aggregators);

/* Reads a plan written by ina-goat-plan and takes this switch's part
 * (ina::goat_switch_part: the switch with id `switch_id`, its sub-models'
 * names kept in out->submodels) within out->ranges as given, or the whole
 * table when empty. Empty string, or the reason. */
std::string goat_from_plan(const std::string &path, uint16_t switch_id, uint32_t aggregators,
			   GoatJobConfig *out);

/* Assigned ranges of one job, immutable once published. */
struct GoatAssignment {
	GoatJobConfig cfg;
	/* The job's range that holds aggregator `index`, or nullptr. Binary
	 * search: a plan gives a switch a few ranges per job. */
	const GoatRange *find(uint32_t index) const
	{
		const std::vector<GoatRange> &r = cfg.ranges;
		size_t lo = 0, hi = r.size();
		while (lo < hi) {
			const size_t mid = (lo + hi) / 2;
			if (index < r[mid].first)
				hi = mid;
			else if (index >= r[mid].end)
				lo = mid + 1;
			else
				return &r[mid];
		}
		return nullptr;
	}
	bool covers(uint32_t index) const { return find(index) != nullptr; }
};

class GoatTable {
public:
	GoatTable() : by_job_(65536) {}
	const GoatAssignment *find(uint16_t job) const { return by_job_[job].get(); }
	/* A copy with `cfg` installed (replacing the job's), or the reason it
	 * cannot be: its ranges overlap another job's. */
	std::unique_ptr<GoatTable> with(const GoatJobConfig &cfg, std::string *error) const;
	std::unique_ptr<GoatTable> without(uint16_t job) const;
	size_t size() const { return count_; }

private:
	std::vector<std::shared_ptr<const GoatAssignment>> by_job_;
	std::vector<uint16_t> jobs_; /* those installed */
	size_t count_ = 0;
};

} /* namespace switchd */

#endif
