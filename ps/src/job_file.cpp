/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/ps_config.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include <toml++/toml.h>

#include "ina/goat_plan.h"
#include "ina/input_file.h"
#include "ina/key_hint.h"

namespace ina {

namespace {

struct Reader {
	std::string source;
	std::string *error;

	/* "file:line:col: key: what", like ina-switchd's errors. */
	bool fail_at(const toml::source_region &where, const std::string &key, const std::string &what)
	{
		std::ostringstream os;
		os << source;
		if (where.begin.line)
			os << ':' << where.begin.line << ':' << where.begin.column;
		os << ": " << key << ": " << what;
		*error = os.str();
		return false;
	}

	/* At `key` of `t` when it is there, else at `t` (a missing key). */
	bool fail(const toml::table &t, const char *key, const std::string &prefix, const std::string &what)
	{
		const toml::node *n = t.get(key);
		return fail_at(n ? n->source() : t.source(), prefix + key, what);
	}

	/* Rejects keys not in `known`: a typo must not silently do nothing. */
	bool only(const toml::table &t, const std::vector<std::string> &known, const std::string &prefix)
	{
		for (auto &&[k, v] : t) {
			std::string key(k.str());
			if (std::find(known.begin(), known.end(), key) == known.end())
				return fail_at(k.source().begin.line ? k.source() : v.source(), prefix + key,
					       unknown_key_message(key, known));
		}
		return true;
	}

	template <typename T>
	bool integer(const toml::table &t, const char *key, const std::string &prefix, T *out,
		     int64_t lo, int64_t hi, bool required = false)
	{
		const toml::node *n = t.get(key);
		if (!n) {
			if (required)
				return fail(t, key, prefix, "missing");
			return true;
		}
		auto v = n->value<int64_t>();
		if (!n->is_integer() || !v)
			return fail(t, key, prefix, "must be an integer");
		if (*v < lo || *v > hi)
			return fail(t, key, prefix, "must be within " + std::to_string(lo) + ".." + std::to_string(hi));
		*out = static_cast<T>(*v);
		return true;
	}

	bool ip(const toml::table &t, const char *key, const std::string &prefix, uint32_t *out, bool required)
	{
		const toml::node *n = t.get(key);
		if (!n)
			return required ? fail(t, key, prefix, "missing") : true;
		auto s = n->value<std::string>();
		if (!n->is_string() || !parse_ipv4(*s, out))
			return fail(t, key, prefix, "must be an IPv4 address \"a.b.c.d\"");
		return true;
	}

	bool mac(const toml::table &t, const char *key, const std::string &prefix, uint8_t out[6], bool required)
	{
		const toml::node *n = t.get(key);
		if (!n)
			return required ? fail(t, key, prefix, "missing") : true;
		auto s = n->value<std::string>();
		if (!n->is_string() || !parse_mac(*s, out))
			return fail(t, key, prefix, "must be a MAC address \"aa:bb:cc:dd:ee:ff\"");
		if (!is_unicast_mac(out))
			return fail(t, key, prefix, "must be a host's MAC address, not zero, multicast or broadcast");
		return true;
	}

	/* A file named by `key` (relative to the job file's directory):
	 * false if missing or empty. */
	bool path_at(const toml::table &t, const char *key, const std::string &prefix, std::string *out)
	{
		const toml::node *n = t.get(key);
		auto s = n ? n->value<std::string>() : std::nullopt;
		if (!n || !n->is_string() || s->empty())
			return fail(t, key, prefix, "must be the path of a file");
		*out = *s;
		const size_t slash = source.rfind('/');
		if ((*out)[0] != '/' && slash != std::string::npos)
			*out = source.substr(0, slash + 1) + *out;
		return true;
	}

	/* control_key_file: a switch's control key (switch.control_key_file,
	 * a GOAT switch's); absent: *out and *path unchanged. */
	bool key_file(const toml::table &t, const std::string &prefix, CtrlKey *out, std::string *path)
	{
		if (!t.get("control_key_file"))
			return true;
		std::string why;
		if (!path_at(t, "control_key_file", prefix, path))
			return false;
		if (!load_ctrl_key_file(*path, out, &why))
			return fail(t, "control_key_file", prefix, why);
		return true;
	}

	/* An array of small integers, one per level. */
	bool per_level(const toml::table &t, const char *key, const std::string &prefix, uint8_t out[INA_MAX_LEVELS],
		       size_t want, int64_t lo, int64_t hi)
	{
		const toml::node *n = t.get(key);
		if (!n)
			return want == 0 ? true : fail(t, key, prefix, "missing");
		const toml::array *a = n->as_array();
		if (!a)
			return fail(t, key, prefix, "must be an array with one entry per level");
		if (a->size() != want)
			return fail(t, key, prefix, "must have " + std::to_string(want) + " entries (levels)");
		for (size_t i = 0; i < a->size(); i++) {
			auto v = (*a)[i].value<int64_t>();
			if (!(*a)[i].is_integer() || !v || *v < lo || *v > hi)
				return fail_at((*a)[i].source(), prefix + key,
					       "entries must be integers within " + std::to_string(lo) + ".." +
						       std::to_string(hi));
			out[i] = static_cast<uint8_t>(*v);
		}
		return true;
	}
};

/* `aggregators = [[first, end], ...]`: the shape of switchd's [[goat]]
 * aggregators. The one-range `[first, end]` of earlier versions is refused
 * with the new shape named. */
bool read_goat_ranges(Reader &r, const toml::table &t, const std::string &prefix, std::vector<GoatSlots> *out)
{
	const toml::array *a = t.get("aggregators")->as_array();
	if (a && a->size() == 2 && (*a)[0].is_integer() && (*a)[1].is_integer())
		return r.fail(t, "aggregators", prefix,
			      "an array of [first, end] pairs now, as switchd's [[goat]]: write [[first, end]]");
	if (!a || a->empty())
		return r.fail(t, "aggregators", prefix, "must be an array of [first, end] pairs");
	out->clear();
	for (const toml::node &e : *a) {
		const toml::array *pair = e.as_array();
		auto f = pair && pair->size() == 2 ? (*pair)[0].value_exact<int64_t>() : std::nullopt;
		auto l = pair && pair->size() == 2 ? (*pair)[1].value_exact<int64_t>() : std::nullopt;
		if (!f || !l || *f < 0 || *l <= *f || *l > (1ll << 30))
			return r.fail(t, "aggregators", prefix, "each entry must be [first, end], 0 <= first < end");
		out->push_back(GoatSlots{uint32_t(*f), uint32_t(*l), 0, 0});
	}
	return true;
}

/* One [[goat.switch]]: id, ip, mac, control_key_file (default
 * switch.control_key_file), aggregators = [[first, end], ...] (default:
 * [[0, aggregators]]). */
bool read_goat_switch(Reader &r, const toml::table &t, const std::string &prefix, const PsJobConfig &c,
		      PsGoatSwitch *out, std::vector<GoatSlots> *given)
{
	out->key = c.switch_key;
	out->key_file = c.switch_key_file;
	*given = {GoatSlots{0, c.aggregators, 0, 0}};
	if (!r.only(t, {"id", "ip", "mac", "control_key_file", "aggregators"}, prefix) ||
	    !r.integer(t, "id", prefix, &out->id, 1, 65535, true) || !r.ip(t, "ip", prefix, &out->ip, true) ||
	    !r.mac(t, "mac", prefix, out->mac, true) || !r.key_file(t, prefix, &out->key, &out->key_file))
		return false;
	return !t.get("aggregators") || read_goat_ranges(r, t, prefix, given);
}

/* Every switch of the plan that some worker sends a sub-model to has its
 * [[goat.switch]]. */
bool goat_switches_listed(Reader &r, const toml::table &t, const GoatPlan &plan, const PsJobConfig &c)
{
	for (const GoatPlan::Switch &s : plan.switches) {
		const bool listed = std::any_of(c.goat.begin(), c.goat.end(),
						[&](const PsGoatSwitch &g) { return g.id == s.id; });
		bool used = false;
		for (const std::vector<uint16_t> &nodes : plan.node)
			used = used || std::find(nodes.begin(), nodes.end(), s.id) != nodes.end();
		if (!listed && used)
			return r.fail(t, "switch", "goat.",
				      "the plan's switch '" + s.name + "' (id " + std::to_string(s.id) +
					      ") aggregates sub-models: give it a [[goat.switch]]");
	}
	return true;
}

/* [goat]: plan = "FILE" (ina-goat-plan's output) and a [[goat.switch]] per
 * switch of the plan that aggregates, which the PS sends its part. */
bool read_goat(Reader &r, const toml::table &root, PsJobConfig *c)
{
	const toml::table *t = root.get("goat")->as_table();
	if (!t)
		return r.fail(root, "goat", "", "must be a table [goat]");
	if (!r.only(*t, {"plan", "switch"}, "goat.") || !r.path_at(*t, "plan", "goat.", &c->goat_plan))
		return false;
	GoatPlan plan;
	std::string err = goat_plan_read(c->goat_plan, &plan);
	if (!err.empty())
		return r.fail(*t, "plan", "goat.", err);
	if (plan.workers.size() != c->workers.size())
		return r.fail(*t, "plan", "goat.",
			      "has " + std::to_string(plan.workers.size()) + " workers, the job " +
				      std::to_string(c->workers.size()) + " (plan worker i is the job's i-th)");
	const toml::node *sn = t->get("switch");
	const toml::array *sa = sn ? sn->as_array() : nullptr;
	if (sn && !sa)
		return r.fail(*t, "switch", "goat.", "entries must be tables ([[goat.switch]])");
	for (size_t i = 0; sa && i < sa->size(); i++) {
		const std::string prefix = "goat.switch[" + std::to_string(i) + "].";
		const toml::table *st = (*sa)[i].as_table();
		PsGoatSwitch gs;
		std::vector<GoatSlots> given;
		if (!st)
			return r.fail(*t, "switch", "goat.", "entries must be tables ([[goat.switch]])");
		if (!read_goat_switch(r, *st, prefix, *c, &gs, &given))
			return false;
		for (const PsGoatSwitch &o : c->goat)
			if (o.id == gs.id)
				return r.fail(*st, "id", prefix, "a second [[goat.switch]] with id " + std::to_string(gs.id));
		GoatSwitchPart part;
		err = goat_switch_part(plan, gs.id, given, &part);
		if (!err.empty())
			return r.fail(*st, "id", prefix, c->goat_plan + ": " + err);
		gs.slots = part.slots;
		gs.submodels = part.submodels;
		if (!gs.submodels.empty())
			c->goat.push_back(gs);
	}
	return goat_switches_listed(r, *t, plan, *c);
}

/* The top-level numbers; their ranges are docs/ps.md's. */
bool read_numbers(Reader &r, const toml::table &root, PsJobConfig *c)
{
	/* No `elements`, or "auto": the path sizes the fragments (ina-ps,
	 * docs/ps.md "Fragment size"). */
	const toml::node *elements = root.get("elements");
	c->elements_auto = !elements || (elements->is_string() && *elements->value<std::string>() == "auto");
	if (c->elements_auto)
		c->elements = 0;
	else if (elements->is_string())
		return r.fail(root, "elements", "",
			      "must be an integer 1.." + std::to_string(INA_MAX_ELEMENTS) + " or \"auto\"");
	return r.integer(root, "id", "", &c->job, 1, 65535, true) &&
	       (c->elements_auto || r.integer(root, "elements", "", &c->elements, 1, INA_MAX_ELEMENTS)) &&
	       r.integer(root, "aggregators", "", &c->aggregators, 1, 1ll << 24) &&
	       r.integer(root, "window", "", &c->window, 1, 1 << 23) &&
	       r.integer(root, "levels", "", &c->levels, 0, INA_MAX_LEVELS, true) &&
	       r.per_level(root, "fan_in", "", c->fan_in, c->levels, 1, INA_BITMAP_BITS) &&
	       r.integer(root, "ps_count", "", &c->ps_count, 1, 1024) &&
	       r.integer(root, "ps_index", "", &c->ps_index, 0, 1023) &&
	       r.integer(root, "ack_holdoff_us", "", &c->ack_holdoff_us, 0, 10000000) &&
	       r.integer(root, "float_holdoff_us", "", &c->float_holdoff_us, 0, 10000000) &&
	       r.integer(root, "bypass_holdoff_us", "", &c->bypass_holdoff_us, 0, 10000000) &&
	       r.integer(root, "float_slots", "", &c->float_slots, 1, 1 << 20);
}

/* What ParameterServer::add_job() would refuse, found here with the
 * file's line: ina-ps --check-job opens no PS. */
bool check_job(Reader &r, const toml::table &root, const PsJobConfig &c)
{
	if ((c.window & (c.window - 1)) != 0)
		return r.fail(root, "window", "", "must be a power of two");
	if (c.ps_index >= c.ps_count)
		return r.fail(root, "ps_index", "", "must be below ps_count (" + std::to_string(c.ps_count) + ")");
	if (c.multicast_ack && !c.has_switch)
		return r.fail(root, "ack", "", "\"multicast\" needs a [switch]");
	if (c.workers.size() > kPsMaxWorkers)
		return r.fail(root, "worker", "", "at most " + std::to_string(kPsMaxWorkers) + " workers per job");
	if (c.levels == 0 && c.workers.size() > 1)
		return r.fail(root, "levels", "", "0 cannot tell workers apart; use levels = 1 (bit) without a switch");
	const toml::array *wa = root.get("worker")->as_array();
	for (size_t i = 0; i < c.workers.size(); i++) {
		const toml::table &t = *(*wa)[i].as_table();
		const std::string prefix = "worker[" + std::to_string(i) + "].";
		const uint8_t *bit = c.workers[i].bit;
		for (unsigned l = 0; l < c.levels; l++) {
			if (bit[l] != kPsNoBit && bit[l] >= c.fan_in[l])
				return r.fail(t, "bit", prefix,
					      "bit " + std::to_string(bit[l]) + " at level " + std::to_string(l) +
						      " is not below fan_in " + std::to_string(c.fan_in[l]) +
						      " (255 = not at this level)");
			if (l > 0 && bit[l] == kPsNoBit && bit[l - 1] != kPsNoBit)
				return r.fail(t, "bit", prefix,
					      "skips level " + std::to_string(l) + " above its first level");
		}
		for (size_t o = 0; o < i && c.levels > 0; o++)
			if (std::equal(bit, bit + c.levels, c.workers[o].bit))
				return r.fail(t, "bit", prefix,
					      "the same path as worker " + std::to_string(o) + ": they could not be told apart");
	}
	return true;
}

/* [switch]: the switch the job registers with; `ack` defaults to
 * multicast with one, unicast without. */
bool read_switch(Reader &r, const toml::table &root, PsJobConfig *c)
{
	if (const toml::node *sw = root.get("switch")) {
		const toml::table *t = sw->as_table();
		if (!t)
			return r.fail(root, "switch", "", "must be a table [switch]");
		if (!r.only(*t, {"ip", "mac", "control_key_file", "register_timeout_ms"}, "switch.") ||
		    !r.ip(*t, "ip", "switch.", &c->switch_ip, true) ||
		    !r.mac(*t, "mac", "switch.", c->switch_mac, true) ||
		    !r.integer(*t, "register_timeout_ms", "switch.", &c->register_timeout_ms, 100, 3600000) ||
		    !r.key_file(*t, "switch.", &c->switch_key, &c->switch_key_file))
			return false;
		c->has_switch = true;
	}
	c->multicast_ack = c->has_switch;
	if (const toml::node *ack = root.get("ack")) {
		auto s = ack->value<std::string>();
		if (!ack->is_string() || (*s != "multicast" && *s != "unicast"))
			return r.fail(root, "ack", "", "must be \"multicast\" or \"unicast\"");
		c->multicast_ack = *s == "multicast";
	}
	return true;
}

/* [[worker]]: one table per worker, in rank order. */
bool read_workers(Reader &r, const toml::table &root, PsJobConfig *c)
{
	const toml::node *wn = root.get("worker");
	const toml::array *wa = wn ? wn->as_array() : nullptr;
	if (!wa || wa->empty())
		return r.fail(root, "worker", "", "missing: one [[worker]] table per worker");
	for (size_t i = 0; i < wa->size(); i++) {
		const toml::table *t = (*wa)[i].as_table();
		std::string prefix = "worker[" + std::to_string(i) + "].";
		if (!t)
			return r.fail(root, "worker", "", "entries must be tables ([[worker]])");
		PsWorker w;
		if (!r.only(*t, {"ip", "mac", "bit"}, prefix) || !r.ip(*t, "ip", prefix, &w.ip, true) ||
		    !r.mac(*t, "mac", prefix, w.mac, false) ||
		    !r.per_level(*t, "bit", prefix, w.bit, c->levels, 0, 255))
			return false;
		for (const PsWorker &o : c->workers)
			if (o.ip == w.ip)
				return r.fail(*t, "ip", prefix, "the same address as another worker");
		if (c->has_switch && w.ip == c->switch_ip)
			return r.fail(*t, "ip", prefix, "the switch's own address (switch.ip)");
		c->workers.push_back(w);
	}
	return true;
}

} /* namespace */

bool parse_ps_job(const std::string &text, const std::string &source, PsJobConfig *out, std::string *error)
{
	toml::table root;
	try {
		root = toml::parse(text, source);
	} catch (const toml::parse_error &e) {
		std::ostringstream os;
		os << source << ':' << e.source().begin.line << ':' << e.source().begin.column << ": "
		   << e.description();
		*error = os.str();
		return false;
	}
	Reader r{source, error};
	PsJobConfig c;
	if (!r.only(root,
		    {"id", "elements", "aggregators", "window", "levels", "fan_in", "ps_count", "ps_index",
		     "ack", "ack_holdoff_us", "float_holdoff_us", "bypass_holdoff_us", "float_slots",
		     "switch", "worker", "goat"},
		    "") ||
	    !read_numbers(r, root, &c) || !read_switch(r, root, &c) || !read_workers(r, root, &c) ||
	    !check_job(r, root, c))
		return false;
	if (root.get("goat") && !read_goat(r, root, &c))
		return false;
	std::string too_big;
	if (!ps_job_memory_ok(c, &too_big))
		return r.fail(root, "window", "", too_big);
	*out = c;
	return true;
}

bool load_ps_job_file(const std::string &path, PsJobConfig *out, std::string *error)
{
	std::string text;
	if (!read_input_file(path, &text, error))
		return false;
	return parse_ps_job(text, path, out, error);
}

} /* namespace ina */
