/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Reading a plan and deriving each installer's part (ina/goat_plan.h).
 */
#include "ina/goat_plan.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ina/input_file.h"

namespace ina {

namespace {

using nlohmann::json;

uint64_t uint_at(const json &j, const char *k, const std::string &where)
{
	if (!j.is_object() || !j.contains(k) || !j[k].is_number_unsigned())
		throw std::runtime_error(where + "." + k + " missing or not an unsigned integer");
	return j[k].get<uint64_t>();
}

std::string string_at(const json &j, const char *k, const std::string &where)
{
	if (!j.is_object() || !j.contains(k) || !j[k].is_string())
		throw std::runtime_error(where + "." + k + " missing or not a string");
	return j[k].get<std::string>();
}

const json &array_at(const json &j, const char *k, const std::string &where)
{
	if (!j.is_object() || !j.contains(k) || !j[k].is_array())
		throw std::runtime_error(where + "." + k + " missing or not an array");
	return j[k];
}

void read_submodels(const json &p, GoatPlan *out)
{
	const json &subs = array_at(p, "submodels", "plan");
	for (size_t g = 0; g < subs.size(); g++) {
		const std::string w = "plan.submodels[" + std::to_string(g) + "]";
		GoatPlan::Submodel s;
		s.name = string_at(subs[g], "name", w);
		s.first = uint_at(subs[g], "first_element", w);
		s.end = uint_at(subs[g], "end_element", w);
		if (s.first != out->round() || s.end <= s.first)
			throw std::runtime_error(w + ": element range [" + std::to_string(s.first) + ", " +
						 std::to_string(s.end) + ") does not follow the previous sub-model");
		for (const GoatPlan::Submodel &o : out->submodels)
			if (o.name == s.name)
				throw std::runtime_error(w + ": a second sub-model named '" + s.name + "'");
		out->submodels.push_back(s);
	}
	if (out->submodels.empty())
		throw std::runtime_error("plan.submodels is empty");
}

size_t submodel_index(const GoatPlan &plan, const std::string &name)
{
	for (size_t g = 0; g < plan.submodels.size(); g++)
		if (plan.submodels[g].name == name)
			return g;
	return plan.submodels.size();
}

void read_switches(const json &p, GoatPlan *out)
{
	const json &sws = array_at(p, "switches", "plan");
	for (size_t s = 0; s < sws.size(); s++) {
		const std::string w = "plan.switches[" + std::to_string(s) + "]";
		GoatPlan::Switch sw;
		const uint64_t id = uint_at(sws[s], "id", w);
		if (id < 1 || id > 65535)
			throw std::runtime_error(w + ".id " + std::to_string(id) + " is not 1..65535");
		sw.id = static_cast<uint16_t>(id);
		sw.name = sws[s].is_object() && sws[s].contains("name") && sws[s]["name"].is_string()
				  ? sws[s]["name"].get<std::string>()
				  : "switch " + std::to_string(id);
		for (const GoatPlan::Switch &o : out->switches)
			if (o.id == sw.id)
				throw std::runtime_error(w + ": a second switch with id " + std::to_string(id));
		for (const json &h : array_at(sws[s], "submodels", w)) {
			if (!h.is_string() || submodel_index(*out, h.get<std::string>()) == out->submodels.size())
				throw std::runtime_error(w + ".submodels: " + h.dump() + " is not a sub-model of the plan");
			sw.submodels.push_back(h.get<std::string>());
		}
		out->switches.push_back(sw);
	}
}

const GoatPlan::Switch *find_switch(const GoatPlan &plan, uint16_t id)
{
	for (const GoatPlan::Switch &s : plan.switches)
		if (s.id == id)
			return &s;
	return nullptr;
}

void read_workers(const json &p, GoatPlan *out)
{
	const json &ws = array_at(p, "workers", "plan");
	if (ws.empty())
		throw std::runtime_error("plan.workers is empty");
	for (size_t w = 0; w < ws.size(); w++) {
		const std::string where = "plan.workers[" + std::to_string(w) + "]";
		out->workers.push_back(string_at(ws[w], "name", where));
		const json &ranges = array_at(ws[w], "ranges", where);
		if (ranges.size() != out->submodels.size())
			throw std::runtime_error(where + ": " + std::to_string(ranges.size()) + " ranges for " +
						 std::to_string(out->submodels.size()) + " sub-models");
		std::vector<uint16_t> nodes;
		for (size_t g = 0; g < ranges.size(); g++) {
			const std::string rw = where + ".ranges[" + std::to_string(g) + "]";
			const GoatPlan::Submodel &sm = out->submodels[g];
			if (string_at(ranges[g], "submodel", rw) != sm.name ||
			    uint_at(ranges[g], "first_element", rw) != sm.first ||
			    uint_at(ranges[g], "end_element", rw) != sm.end)
				throw std::runtime_error(rw + " is not sub-model '" + sm.name + "' with its elements");
			const uint64_t node = uint_at(ranges[g], "agg_node", rw);
			const GoatPlan::Switch *s = node > 65535 ? nullptr : find_switch(*out, uint16_t(node));
			if (node != 0 && (!s || std::find(s->submodels.begin(), s->submodels.end(), sm.name) ==
							s->submodels.end()))
				throw std::runtime_error(rw + ": agg_node " + std::to_string(node) +
							 " is not a switch of the plan that holds '" + sm.name + "'");
			nodes.push_back(static_cast<uint16_t>(node));
		}
		out->node.push_back(nodes);
	}
}

} /* namespace */

std::string goat_plan_parse(const std::string &text, GoatPlan *out)
{
	*out = GoatPlan{};
	try {
		const json root = json::parse(text);
		/* The whole output of ina-goat-plan, or its "plan" object alone. */
		const json &p = root.is_object() && root.contains("plan") ? root["plan"] : root;
		read_submodels(p, out);
		read_switches(p, out);
		read_workers(p, out);
	} catch (const json::exception &e) {
		return std::string("not JSON: ") + e.what();
	} catch (const std::exception &e) {
		return e.what();
	}
	return "";
}

std::string goat_plan_read(const std::string &path, GoatPlan *out)
{
	std::string text, err;
	if (!read_input_file(path, &text, &err))
		return err;
	err = goat_plan_parse(text, out);
	return err.empty() ? "" : path + ": " + err;
}

std::string goat_switch_part(const GoatPlan &plan, uint16_t id, const std::vector<GoatSlots> &given,
			     GoatSwitchPart *out)
{
	const GoatPlan::Switch *sw = find_switch(plan, id);
	if (!sw)
		return "the plan has no switch with id " + std::to_string(id) + " (switch.id)";
	out->submodels.clear();
	out->slots.clear();
	for (const std::string &name : sw->submodels) {
		const size_t g = submodel_index(plan, name);
		size_t here = 0;
		for (size_t w = 0; w < plan.workers.size(); w++)
			here += plan.node[w][g] == id;
		if (here != plan.workers.size())
			return "sub-model '" + name + "': " + std::to_string(here) + " of " +
			       std::to_string(plan.workers.size()) + " workers send it to switch " +
			       std::to_string(id) +
			       "; the data plane needs all of a job's workers at one node per sub-model "
			       "(the switch waits for the fan-in the fragments carry)";
		out->submodels.push_back(name);
	}
	for (const GoatSlots &r : given)
		out->slots.push_back(GoatSlots{r.first, r.end, 0, 0});
	return "";
}

std::string goat_worker_routes(const GoatPlan &plan, size_t w,
			       const std::function<GoatSlots(uint16_t id)> &span_of, std::vector<GoatRoute> *out)
{
	if (w >= plan.workers.size())
		return "the plan has no worker " + std::to_string(w);
	out->clear();
	for (size_t g = 0; g < plan.submodels.size(); g++) {
		GoatRoute r;
		r.end_element = plan.submodels[g].end;
		r.node = plan.node[w][g];
		if (r.node) {
			const GoatSlots s = span_of(r.node);
			r.first = s.first;
			r.end = s.end;
		}
		out->push_back(r);
	}
	return "";
}

} /* namespace ina */
