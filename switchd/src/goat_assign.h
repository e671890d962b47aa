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

namespace switchd {

struct GoatRange {
	uint32_t first = 0;
	uint32_t end = 0; /* exclusive */
};

/* One job's assignment, as the config or a control message gives it. */
struct GoatJobConfig {
	uint16_t job = 0;
	std::vector<GoatRange> ranges; /* sorted, disjoint (goat_check_ranges) */
	std::string plan;              /* the plan file it came from, if any */
	std::vector<std::string> submodels; /* the plan's names, for the log */
};

/* Sorts `r` and checks it: first < end <= aggregators, no overlap. Empty
 * string, or the reason. */
std::string goat_check_ranges(std::vector<GoatRange> *r, uint32_t aggregators);

/* Reads a plan written by ina-goat-plan and checks this switch's part: the
 * sub-models of the plan's switch with id `switch_id` (names kept in
 * out->submodels). Every worker of the plan must send each of them to this
 * switch: the switch waits for the fan-in the fragments carry, so a
 * sub-model split between nodes would never complete here. The job's
 * aggregators are out->ranges as given, or the whole table when empty.
 * Empty string, or the reason. */
std::string goat_from_plan(const std::string &path, uint16_t switch_id, uint32_t aggregators,
			   GoatJobConfig *out);

/* The ranges of a GOAT control message (payload of an InaFrame whose first
 * byte is INA_CTRL_GOAT). Checks the layout only; empty string or the
 * reason. *counter is the trailer's counter. */
std::string goat_from_control(const uint8_t *payload, uint32_t len, std::vector<GoatRange> *out,
			      uint32_t *ps_ip, uint64_t *counter);

/* Writes a GOAT control payload for `ranges` (MAC zero; sign the frame
 * afterwards). Returns its length, 0 if cap is too small or there are more
 * than 255 ranges. */
uint32_t goat_control_payload(const std::vector<GoatRange> &ranges, uint32_t ps_ip, uint64_t counter,
			      uint8_t *out, uint32_t cap);

/* Assigned ranges of one job, immutable once published. */
struct GoatAssignment {
	GoatJobConfig cfg;
	/* Is aggregator `index` one of the job's? Binary search: a plan has a
	 * few dozen sub-models at most per switch. */
	bool covers(uint32_t index) const
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
				return true;
		}
		return false;
	}
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
