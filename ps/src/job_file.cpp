/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/ps_config.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "ina/goat_plan.h"
#include "ina/input_file.h"

namespace ina {

namespace {

struct Reader {
	std::string source;
	std::string *error;

	bool fail(const std::string &key, const std::string &what)
	{
		*error = source + ": " + key + ": " + what;
		return false;
	}

	/* Rejects keys not in `known`: a typo must not silently do nothing. */
	bool only(const toml::table &t, const std::set<std::string> &known, const std::string &prefix)
	{
		for (auto &&[k, v] : t) {
			(void)v;
			std::string key(k.str());
			if (!known.count(key))
				return fail(prefix + key, "unknown key");
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
				return fail(prefix + key, "missing");
			return true;
		}
		auto v = n->value<int64_t>();
		if (!n->is_integer() || !v)
			return fail(prefix + key, "must be an integer");
		if (*v < lo || *v > hi)
			return fail(prefix + key, "must be within " + std::to_string(lo) + ".." + std::to_string(hi));
		*out = static_cast<T>(*v);
		return true;
	}

	bool ip(const toml::table &t, const char *key, const std::string &prefix, uint32_t *out, bool required)
	{
		const toml::node *n = t.get(key);
		if (!n)
			return required ? fail(prefix + key, "missing") : true;
		auto s = n->value<std::string>();
		if (!n->is_string() || !parse_ipv4(*s, out))
			return fail(prefix + key, "must be an IPv4 address \"a.b.c.d\"");
		return true;
	}

	bool mac(const toml::table &t, const char *key, const std::string &prefix, uint8_t out[6], bool required)
	{
		const toml::node *n = t.get(key);
		if (!n)
			return required ? fail(prefix + key, "missing") : true;
		auto s = n->value<std::string>();
		if (!n->is_string() || !parse_mac(*s, out))
			return fail(prefix + key, "must be a MAC address \"aa:bb:cc:dd:ee:ff\"");
		if (!is_unicast_mac(out))
			return fail(prefix + key, "must be a host's MAC address, not zero, multicast or broadcast");
		return true;
	}

	/* A file named by `key` (relative to the job file's directory):
	 * false if missing or empty. */
	bool path_at(const toml::table &t, const char *key, const std::string &prefix, std::string *out)
	{
		const toml::node *n = t.get(key);
		auto s = n ? n->value<std::string>() : std::nullopt;
		if (!n || !n->is_string() || s->empty())
			return fail(prefix + key, "must be the path of a file");
		*out = *s;
		const size_t slash = source.rfind('/');
		if ((*out)[0] != '/' && slash != std::string::npos)
			*out = source.substr(0, slash + 1) + *out;
		return true;
	}

	/* key_file: a switch's control key (switch.key_file, a GOAT
	 * switch's); absent: *out unchanged. */
	bool key_file(const toml::table &t, const std::string &prefix, CtrlKey *out)
	{
		if (!t.get("key_file"))
			return true;
		std::string path, why;
		if (!path_at(t, "key_file", prefix, &path))
			return false;
		if (!load_ctrl_key_file(path, out, &why))
			return fail(prefix + "key_file", why);
		return true;
	}

	/* An array of small integers, one per level. */
	bool per_level(const toml::table &t, const char *key, const std::string &prefix, uint8_t out[INA_MAX_LEVELS],
		       size_t want, int64_t lo, int64_t hi)
	{
		const toml::node *n = t.get(key);
		if (!n)
			return want == 0 ? true : fail(prefix + key, "missing");
		const toml::array *a = n->as_array();
		if (!a)
			return fail(prefix + key, "must be an array with one entry per level");
		if (a->size() != want)
			return fail(prefix + key, "must have " + std::to_string(want) + " entries (levels)");
		for (size_t i = 0; i < a->size(); i++) {
			auto v = (*a)[i].value<int64_t>();
			if (!(*a)[i].is_integer() || !v || *v < lo || *v > hi)
				return fail(prefix + key, "entries must be integers within " + std::to_string(lo) +
							    ".." + std::to_string(hi));
			out[i] = static_cast<uint8_t>(*v);
		}
		return true;
	}
};

/* One [[goat.switch]]: id, ip, mac, key_file (default switch.key_file),
 * aggregators = [first, end] (default: [0, aggregators)). */
bool read_goat_switch(Reader &r, const toml::table &t, const std::string &prefix, const PsJobConfig &c,
		      PsGoatSwitch *out, GoatSlots *span)
{
	out->key = c.switch_key;
	*span = GoatSlots{0, c.aggregators, 0, 0};
	if (!r.only(t, {"id", "ip", "mac", "key_file", "aggregators"}, prefix) ||
	    !r.integer(t, "id", prefix, &out->id, 1, 65535, true) || !r.ip(t, "ip", prefix, &out->ip, true) ||
	    !r.mac(t, "mac", prefix, out->mac, true) || !r.key_file(t, prefix, &out->key))
		return false;
	if (const toml::node *n = t.get("aggregators")) {
		const toml::array *a = n->as_array();
		auto f = a && a->size() == 2 ? (*a)[0].value_exact<int64_t>() : std::nullopt;
		auto e = a && a->size() == 2 ? (*a)[1].value_exact<int64_t>() : std::nullopt;
		if (!f || !e || *f < 0 || *e <= *f || *e > (1ll << 30))
			return r.fail(prefix + "aggregators", "must be [first, end], 0 <= first < end");
		*span = GoatSlots{uint32_t(*f), uint32_t(*e), 0, 0};
	}
	return true;
}

/* [goat]: plan = "FILE" (ina-goat-plan's output) and a [[goat.switch]] per
 * switch of the plan that aggregates, which the PS sends its part. */
bool read_goat(Reader &r, const toml::node &n, PsJobConfig *c)
{
	const toml::table *t = n.as_table();
	if (!t)
		return r.fail("goat", "must be a table [goat]");
	if (!r.only(*t, {"plan", "switch"}, "goat.") || !r.path_at(*t, "plan", "goat.", &c->goat_plan))
		return false;
	GoatPlan plan;
	std::string err = goat_plan_read(c->goat_plan, &plan);
	if (!err.empty())
		return r.fail("goat.plan", err);
	if (plan.workers.size() != c->workers.size())
		return r.fail("goat.plan", "has " + std::to_string(plan.workers.size()) + " workers, the job " +
						   std::to_string(c->workers.size()) + " (plan worker i is the job's i-th)");
	const toml::node *sn = t->get("switch");
	const toml::array *sa = sn ? sn->as_array() : nullptr;
	if (sn && !sa)
		return r.fail("goat.switch", "entries must be tables ([[goat.switch]])");
	for (size_t i = 0; sa && i < sa->size(); i++) {
		const std::string prefix = "goat.switch[" + std::to_string(i) + "].";
		const toml::table *st = (*sa)[i].as_table();
		PsGoatSwitch gs;
		GoatSlots span;
		if (!st)
			return r.fail("goat.switch", "entries must be tables ([[goat.switch]])");
		if (!read_goat_switch(r, *st, prefix, *c, &gs, &span))
			return false;
		for (const PsGoatSwitch &o : c->goat)
			if (o.id == gs.id)
				return r.fail(prefix + "id", "a second [[goat.switch]] with id " + std::to_string(gs.id));
		GoatSwitchPart part;
		err = goat_switch_part(plan, gs.id, {span}, &part);
		if (!err.empty())
			return r.fail(prefix + "id", c->goat_plan + ": " + err);
		gs.slots = part.slots;
		gs.submodels = part.submodels;
		if (!gs.submodels.empty())
			c->goat.push_back(gs);
	}
	for (const GoatPlan::Switch &s : plan.switches) {
		const bool listed = std::any_of(c->goat.begin(), c->goat.end(),
						[&](const PsGoatSwitch &g) { return g.id == s.id; });
		bool used = false;
		for (const std::vector<uint16_t> &nodes : plan.node)
			used = used || std::find(nodes.begin(), nodes.end(), s.id) != nodes.end();
		if (!listed && used)
			return r.fail("goat.switch", "the plan's switch '" + s.name + "' (id " + std::to_string(s.id) +
							     ") aggregates sub-models: give it a [[goat.switch]]");
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
		os << source << ":" << e.source().begin.line << ": " << e.description();
		*error = os.str();
		return false;
	}
	Reader r{source, error};
	PsJobConfig c;
	if (!r.only(root,
		    {"job", "elements", "aggregators", "window", "levels", "fan_in", "ps_count", "ps_index",
		     "ack", "ack_holdoff_us", "float_holdoff_us", "bypass_holdoff_us", "float_slots",
		     "switch", "workers", "goat"},
		    ""))
		return false;
	/* No `elements`, or "auto": the path sizes the fragments (ina-ps,
	 * docs/ps.md "Fragment size"). */
	const toml::node *elements = root.get("elements");
	c.elements_auto = !elements || (elements->is_string() && *elements->value<std::string>() == "auto");
	if (c.elements_auto)
		c.elements = 0;
	else if (elements->is_string())
		return r.fail("elements", "must be an integer 1.." + std::to_string(INA_MAX_ELEMENTS) + " or \"auto\"");
	if (!r.integer(root, "job", "", &c.job, 1, 65535, true) ||
	    (!c.elements_auto && !r.integer(root, "elements", "", &c.elements, 1, INA_MAX_ELEMENTS)) ||
	    !r.integer(root, "aggregators", "", &c.aggregators, 1, 1ll << 30) ||
	    !r.integer(root, "window", "", &c.window, 1, 1 << 24) ||
	    !r.integer(root, "levels", "", &c.levels, 0, INA_MAX_LEVELS, true) ||
	    !r.per_level(root, "fan_in", "", c.fan_in, c.levels, 1, INA_BITMAP_BITS) ||
	    !r.integer(root, "ps_count", "", &c.ps_count, 1, 1024) ||
	    !r.integer(root, "ps_index", "", &c.ps_index, 0, 1023) ||
	    !r.integer(root, "ack_holdoff_us", "", &c.ack_holdoff_us, 0, 10000000) ||
	    !r.integer(root, "float_holdoff_us", "", &c.float_holdoff_us, 0, 10000000) ||
	    !r.integer(root, "bypass_holdoff_us", "", &c.bypass_holdoff_us, 0, 10000000) ||
	    !r.integer(root, "float_slots", "", &c.float_slots, 1, 1 << 20))
		return false;

	if (const toml::node *sw = root.get("switch")) {
		const toml::table *t = sw->as_table();
		if (!t)
			return r.fail("switch", "must be a table [switch]");
		if (!r.only(*t, {"ip", "mac", "key_file", "register_timeout_ms"}, "switch.") ||
		    !r.ip(*t, "ip", "switch.", &c.switch_ip, true) ||
		    !r.mac(*t, "mac", "switch.", c.switch_mac, true) ||
		    !r.integer(*t, "register_timeout_ms", "switch.", &c.register_timeout_ms, 100, 3600000) ||
		    !r.key_file(*t, "switch.", &c.switch_key))
			return false;
		c.has_switch = true;
	}
	c.multicast_ack = c.has_switch;
	if (const toml::node *ack = root.get("ack")) {
		auto s = ack->value<std::string>();
		if (!ack->is_string() || (*s != "multicast" && *s != "unicast"))
			return r.fail("ack", "must be \"multicast\" or \"unicast\"");
		c.multicast_ack = *s == "multicast";
	}

	const toml::node *wn = root.get("workers");
	const toml::array *wa = wn ? wn->as_array() : nullptr;
	if (!wa || wa->empty())
		return r.fail("workers", "missing: one [[workers]] table per worker");
	for (size_t i = 0; i < wa->size(); i++) {
		const toml::table *t = (*wa)[i].as_table();
		std::string prefix = "workers[" + std::to_string(i) + "].";
		if (!t)
			return r.fail("workers", "entries must be tables ([[workers]])");
		PsWorker w;
		if (!r.only(*t, {"ip", "mac", "bits"}, prefix) || !r.ip(*t, "ip", prefix, &w.ip, true) ||
		    !r.mac(*t, "mac", prefix, w.mac, false) ||
		    !r.per_level(*t, "bits", prefix, w.bit, c.levels, 0, 255))
			return false;
		for (const PsWorker &o : c.workers)
			if (o.ip == w.ip)
				return r.fail(prefix + "ip", "the same address as another worker");
		if (c.has_switch && w.ip == c.switch_ip)
			return r.fail(prefix + "ip", "the switch's own address (switch.ip)");
		c.workers.push_back(w);
	}
	if (const toml::node *g = root.get("goat"))
		if (!read_goat(r, *g, &c))
			return false;
	std::string too_big;
	if (!ps_job_memory_ok(c, &too_big))
		return r.fail("window", too_big);
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
