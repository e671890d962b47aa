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

namespace {

/* How a plan lays out the aggregators of a job (docs/goat.md, "Split
 * sub-models"). A sub-model every worker sends to one node is whole; one
 * whose workers go to different nodes is split, and its signature is the
 * node of each worker. Sub-models with the same signature share a run of
 * aggregators. With K signatures, every switch in one of them cuts the
 * job's aggregators there into K + 1 equal parts: part k for signature k
 * (the same indices on every switch, so that one parameter packet frees
 * the aggregator on each), the last part for its whole sub-models. A switch
 * in no split keeps all of them. */
struct Layout {
	std::vector<std::vector<uint16_t>> signatures; /* node per worker */
	std::vector<int> sig_of;                       /* per sub-model: signature, -1 whole */

	explicit Layout(const GoatPlan &plan)
	{
		for (size_t g = 0; g < plan.submodels.size(); g++) {
			std::vector<uint16_t> sig;
			for (size_t w = 0; w < plan.workers.size(); w++)
				sig.push_back(plan.node[w][g]);
			if (std::all_of(sig.begin(), sig.end(), [&](uint16_t n) { return n == sig[0]; })) {
				sig_of.push_back(-1);
				continue;
			}
			auto it = std::find(signatures.begin(), signatures.end(), sig);
			sig_of.push_back(static_cast<int>(it - signatures.begin()));
			if (it == signatures.end())
				signatures.push_back(sig);
		}
	}
	size_t parts() const { return signatures.size() + 1; }
	bool in_split(uint16_t id) const
	{
		for (const std::vector<uint16_t> &sig : signatures)
			if (std::find(sig.begin(), sig.end(), id) != sig.end())
				return true;
		return false;
	}
	/* Part k of [first, end). */
	GoatSlots part(const GoatSlots &span, size_t k) const
	{
		const uint64_t n = span.end - span.first;
		return GoatSlots{static_cast<uint32_t>(span.first + n * k / parts()),
				 static_cast<uint32_t>(span.first + n * (k + 1) / parts()), 0, 0};
	}
	/* The workers of signature k at switch `id`, as level-0 bits. */
	uint32_t children(size_t k, uint16_t id) const
	{
		uint32_t bits = 0;
		for (size_t w = 0; w < signatures[k].size(); w++)
			if (signatures[k][w] == id)
				bits |= 1u << w;
		return bits;
	}
	/* Can a switch in a split be given its parts of `span`? */
	std::string check(const GoatPlan &plan, const GoatSlots &span) const
	{
		if (plan.workers.size() > INA_BITMAP_BITS)
			return "a plan that splits sub-models between nodes needs at most " +
			       std::to_string(INA_BITMAP_BITS) + " workers (one bitmap bit each), it has " +
			       std::to_string(plan.workers.size());
		if (span.end - span.first < parts())
			return "aggregators [" + std::to_string(span.first) + ", " + std::to_string(span.end) +
			       ") cannot be cut into the " + std::to_string(parts()) +
			       " parts the plan's split sub-models need";
		return "";
	}
};

std::string split_names(const GoatPlan &plan, const Layout &l, size_t k)
{
	std::string out;
	for (size_t g = 0; g < plan.submodels.size(); g++)
		if (l.sig_of[g] == static_cast<int>(k))
			out += (out.empty() ? "'" : ", '") + plan.submodels[g].name + "'";
	return out;
}

} /* namespace */

std::string goat_switch_part(const GoatPlan &plan, uint16_t id, const std::vector<GoatSlots> &given,
			     GoatSwitchPart *out)
{
	if (!find_switch(plan, id))
		return "the plan has no switch with id " + std::to_string(id) + " (switch.id)";
	out->submodels.clear();
	out->slots.clear();
	const Layout l(plan);
	bool whole = false;
	for (size_t g = 0; g < plan.submodels.size(); g++) {
		bool here = false;
		for (size_t w = 0; w < plan.workers.size(); w++)
			here = here || plan.node[w][g] == id;
		if (here)
			out->submodels.push_back(plan.submodels[g].name);
		whole = whole || (here && l.sig_of[g] < 0);
	}
	if (!l.in_split(id)) {
		for (const GoatSlots &r : given)
			out->slots.push_back(GoatSlots{r.first, r.end, 0, 0});
		return "";
	}
	if (plan.workers.size() > INA_BITMAP_BITS)
		return l.check(plan, given.empty() ? GoatSlots{} : given[0]);
	if (given.size() != 1) {
		size_t k = 0;
		while (!l.children(k, id))
			k++;
		return "a switch that aggregates part of a split sub-model (" + split_names(plan, l, k) +
		       ") needs one range of aggregators for the job, not " + std::to_string(given.size());
	}
	const std::string err = l.check(plan, given[0]);
	if (!err.empty())
		return err;
	for (size_t k = 0; k < l.signatures.size(); k++) {
		const uint32_t bits = l.children(k, id);
		if (!bits)
			continue;
		GoatSlots s = l.part(given[0], k);
		s.children = bits;
		s.fan_in = static_cast<uint8_t>(__builtin_popcount(bits));
		out->slots.push_back(s);
	}
	if (whole)
		out->slots.push_back(l.part(given[0], l.signatures.size()));
	return "";
}

std::string goat_worker_routes(const GoatPlan &plan, size_t w,
			       const std::function<GoatSlots(uint16_t id)> &span_of, std::vector<GoatRoute> *out)
{
	if (w >= plan.workers.size())
		return "the plan has no worker " + std::to_string(w);
	out->clear();
	const Layout l(plan);
	for (size_t g = 0; g < plan.submodels.size(); g++) {
		GoatRoute r;
		r.end_element = plan.submodels[g].end;
		r.node = plan.node[w][g];
		const int k = l.sig_of[g];
		if (k < 0) {
			/* Whole: the switch's range (its last part if it is in a split). */
			if (r.node) {
				GoatSlots s = span_of(r.node);
				if (l.in_split(r.node))
					s = l.part(s, l.signatures.size());
				r.first = s.first;
				r.end = s.end;
			}
			out->push_back(r);
			continue;
		}
		/* Split: part k, the same on every switch of the signature; a
		 * worker sending to the PS takes the index too, so that the
		 * parameter packet frees the switches' aggregators. */
		const std::vector<uint16_t> &sig = l.signatures[size_t(k)];
		uint16_t first_switch = 0;
		for (uint16_t n : sig) {
			if (!n)
				continue;
			const GoatSlots s = span_of(n), f = span_of(first_switch ? first_switch : n);
			if (s.first != f.first || s.end != f.end)
				return "sub-model '" + plan.submodels[g].name + "' is split between switches " +
				       std::to_string(first_switch) + " and " + std::to_string(n) +
				       ", which give the job different aggregators: a split needs the same on each";
			if (!first_switch)
				first_switch = n;
		}
		const GoatSlots span = span_of(first_switch);
		const std::string err = l.check(plan, span);
		if (!err.empty())
			return err;
		const GoatSlots p = l.part(span, size_t(k));
		r.first = p.first;
		r.end = p.end;
		out->push_back(r);
	}
	return "";
}

} /* namespace ina */
