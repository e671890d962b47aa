/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/ps_config.h"

#include <set>
#include <sstream>
#include <toml++/toml.h>

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

	/* switch.key_file: the switch's control key (relative to the job
	 * file's directory). */
	bool key_file(const toml::table &t, const std::string &job_file, CtrlKey *out)
	{
		const toml::node *n = t.get("key_file");
		if (!n)
			return true;
		auto s = n->value<std::string>();
		if (!n->is_string() || s->empty())
			return fail("switch.key_file", "must be the path of a key file");
		std::string path = *s;
		const size_t slash = job_file.rfind('/');
		if (path[0] != '/' && slash != std::string::npos)
			path = job_file.substr(0, slash + 1) + path;
		std::string why;
		if (!load_ctrl_key_file(path, out, &why))
			return fail("switch.key_file", why);
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
		     "ack", "ack_holdoff_us", "float_holdoff_us", "float_slots", "switch", "workers"},
		    ""))
		return false;
	if (!r.integer(root, "job", "", &c.job, 1, 65535, true) ||
	    !r.integer(root, "elements", "", &c.elements, 1, INA_MAX_ELEMENTS) ||
	    !r.integer(root, "aggregators", "", &c.aggregators, 1, 1ll << 30) ||
	    !r.integer(root, "window", "", &c.window, 1, 1 << 24) ||
	    !r.integer(root, "levels", "", &c.levels, 0, INA_MAX_LEVELS, true) ||
	    !r.per_level(root, "fan_in", "", c.fan_in, c.levels, 1, INA_BITMAP_BITS) ||
	    !r.integer(root, "ps_count", "", &c.ps_count, 1, 1024) ||
	    !r.integer(root, "ps_index", "", &c.ps_index, 0, 1023) ||
	    !r.integer(root, "ack_holdoff_us", "", &c.ack_holdoff_us, 0, 10000000) ||
	    !r.integer(root, "float_holdoff_us", "", &c.float_holdoff_us, 0, 10000000) ||
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
		    !r.key_file(*t, source, &c.switch_key))
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
