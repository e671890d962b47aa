/* SPDX-License-Identifier: BSD-3-Clause */
#include "goat_assign.h"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "ina/goat_wire.h"
#include "ina/input_file.h"

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
	}
	return "";
}

namespace {

using nlohmann::json;

/* j[k] as an unsigned integer, or throws with the key's name. */
uint64_t uint_at(const json &j, const char *k, const std::string &where)
{
	if (!j.is_object() || !j.contains(k) || !j[k].is_number_unsigned())
		throw std::runtime_error(where + "." + k + " missing or not an unsigned integer");
	return j[k].get<uint64_t>();
}

const json &array_at(const json &j, const char *k, const std::string &where)
{
	if (!j.is_object() || !j.contains(k) || !j[k].is_array())
		throw std::runtime_error(where + "." + k + " missing or not an array");
	return j[k];
}

std::string plan_part(const json &root, uint16_t switch_id, uint32_t aggregators, GoatJobConfig *out)
{
	/* The whole output of ina-goat-plan, or its "plan" object alone. */
	const json &p = root.is_object() && root.contains("plan") ? root["plan"] : root;
	const json &subs = array_at(p, "submodels", "plan");
	std::vector<uint64_t> ends;
	std::vector<std::string> names;
	for (size_t g = 0; g < subs.size(); g++) {
		const std::string w = "plan.submodels[" + std::to_string(g) + "]";
		const uint64_t first = uint_at(subs[g], "first_element", w);
		const uint64_t end = uint_at(subs[g], "end_element", w);
		if (first != (g ? ends.back() : 0) || end <= first)
			return w + ": element range [" + std::to_string(first) + ", " + std::to_string(end) +
			       ") does not follow the previous sub-model";
		if (!subs[g].contains("name") || !subs[g]["name"].is_string())
			return w + ".name missing";
		ends.push_back(end);
		names.push_back(subs[g]["name"].get<std::string>());
	}
	if (ends.empty())
		return "plan.submodels is empty";

	const json &sws = array_at(p, "switches", "plan");
	const json *mine = nullptr;
	for (size_t s = 0; s < sws.size(); s++)
		if (uint_at(sws[s], "id", "plan.switches[" + std::to_string(s) + "]") == switch_id)
			mine = &sws[s];
	if (!mine)
		return "the plan has no switch with id " + std::to_string(switch_id) + " (switch.id)";
	const json &held = array_at(*mine, "submodels", "plan.switches[id " + std::to_string(switch_id) + "]");

	const json &workers = array_at(p, "workers", "plan");
	out->submodels.clear();
	for (const json &h : held) {
		if (!h.is_string())
			return "plan.switches[id " + std::to_string(switch_id) + "].submodels: not a name";
		const auto it = std::find(names.begin(), names.end(), h.get<std::string>());
		if (it == names.end())
			return "sub-model '" + h.get<std::string>() + "' of switch " + std::to_string(switch_id) +
			       " is not in plan.submodels";
		size_t here = 0;
		for (size_t w = 0; w < workers.size(); w++) {
			const json &ranges = array_at(workers[w], "ranges", "plan.workers[" + std::to_string(w) + "]");
			for (const json &r : ranges)
				if (r.is_object() && r.value("submodel", std::string()) == *it &&
				    uint_at(r, "agg_node", "plan.workers[" + std::to_string(w) + "].ranges") == switch_id)
					here++;
		}
		if (here != workers.size())
			return "sub-model '" + *it + "': " + std::to_string(here) + " of " +
			       std::to_string(workers.size()) + " workers send it to switch " +
			       std::to_string(switch_id) +
			       "; the data plane needs all of a job's workers at one node per sub-model "
			       "(the switch waits for the fan-in the fragments carry)";
		out->submodels.push_back(*it);
	}
	if (out->ranges.empty())
		out->ranges.push_back(GoatRange{0, aggregators});
	return goat_check_ranges(&out->ranges, aggregators);
}

} /* namespace */

std::string goat_from_plan(const std::string &path, uint16_t switch_id, uint32_t aggregators,
			   GoatJobConfig *out)
{
	std::string text, err;
	if (!ina::read_input_file(path, &text, &err))
		return err;
	json root;
	try {
		root = json::parse(text);
	} catch (const json::exception &e) {
		return path + ": not JSON: " + e.what();
	}
	try {
		err = plan_part(root, switch_id, aggregators, out);
	} catch (const std::exception &e) {
		err = e.what();
	}
	if (!err.empty())
		return path + ": " + err;
	out->plan = path;
	return "";
}

std::string goat_from_control(const uint8_t *p, uint32_t len, std::vector<GoatRange> *out, uint32_t *ps_ip,
			      uint64_t *counter)
{
	if (len < sizeof(ina_ctrl_hdr) || p[offsetof(ina_ctrl_hdr, op)] != INA_CTRL_GOAT)
		return "not a GOAT control message";
	const uint32_t n = p[offsetof(ina_ctrl_hdr, n_workers)];
	const uint32_t want = sizeof(ina_ctrl_hdr) + n * sizeof(ina_ctrl_goat_range) + sizeof(ina_ctrl_auth);
	if (len != want)
		return len < want ? "shorter than its header, ranges and trailer" : "bytes after the trailer";
	*ps_ip = ina_load32(p + offsetof(ina_ctrl_hdr, ps_ip));
	out->clear();
	const uint8_t *r = p + sizeof(ina_ctrl_hdr);
	for (uint32_t i = 0; i < n; i++, r += sizeof(ina_ctrl_goat_range))
		out->push_back(GoatRange{ina_load32(r + offsetof(ina_ctrl_goat_range, first)),
					 ina_load32(r + offsetof(ina_ctrl_goat_range, end))});
	*counter = ina_load64(r + offsetof(ina_ctrl_auth, counter));
	return "";
}

uint32_t goat_control_payload(const std::vector<GoatRange> &ranges, uint32_t ps_ip, uint64_t counter,
			      uint8_t *out, uint32_t cap)
{
	if (ranges.size() > 255)
		return 0;
	const uint32_t len = static_cast<uint32_t>(sizeof(ina_ctrl_hdr) + ranges.size() * sizeof(ina_ctrl_goat_range) +
						   sizeof(ina_ctrl_auth));
	if (cap < len)
		return 0;
	memset(out, 0, len);
	out[offsetof(ina_ctrl_hdr, op)] = INA_CTRL_GOAT;
	out[offsetof(ina_ctrl_hdr, n_workers)] = static_cast<uint8_t>(ranges.size());
	ina_store32(out + offsetof(ina_ctrl_hdr, ps_ip), ps_ip);
	uint8_t *r = out + sizeof(ina_ctrl_hdr);
	for (const GoatRange &g : ranges) {
		ina_store32(r + offsetof(ina_ctrl_goat_range, first), g.first);
		ina_store32(r + offsetof(ina_ctrl_goat_range, end), g.end);
		r += sizeof(ina_ctrl_goat_range);
	}
	ina_store64(r + offsetof(ina_ctrl_auth, counter), counter);
	return len;
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
