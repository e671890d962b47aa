/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A job file as JSON: what `ina-ps --check-job FILE` prints. It has the
 * shape of the TOML file (docs/ps.md, "Job file") with every default filled
 * in, in the style of `ina-switchd --check-config`: fan_in and bit have one
 * entry per level, addresses are strings, null means not given (a MAC, a
 * key file) or decided at start (`elements` = "auto": sized from the path).
 * Key files appear as their path, never the key.
 */
#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "ina/codec.h"
#include "ina/ps_config.h"

namespace ina {

namespace {

/* ordered: the output keeps the order of docs/ps.md. */
using json = nlohmann::ordered_json;

/* An all-zero MAC is how the structs say "not given". */
json mac_or_null(const uint8_t m[6])
{
	static const uint8_t zero[6] = {};
	if (std::equal(m, m + 6, zero))
		return nullptr;
	char buf[18];
	std::snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

json path_or_null(const std::string &p)
{
	return p.empty() ? json(nullptr) : json(p);
}

json per_level(const uint8_t *v, uint8_t levels)
{
	json a = json::array();
	for (unsigned l = 0; l < levels; l++)
		a.push_back(v[l]);
	return a;
}

json goat_json(const PsJobConfig &c)
{
	json g;
	g["plan"] = c.goat_plan;
	g["switch"] = json::array();
	for (const PsGoatSwitch &s : c.goat) {
		json ranges = json::array();
		for (const GoatSlots &r : s.slots)
			ranges.push_back({r.first, r.end});
		g["switch"].push_back({{"id", s.id},
				       {"ip", ina::ipv4_text(s.ip)},
				       {"mac", mac_or_null(s.mac)},
				       {"control_key_file", path_or_null(s.key_file)},
				       {"aggregators", ranges},
				       {"submodels", s.submodels}});
	}
	return g;
}

} /* namespace */

std::string ps_job_json(const PsJobConfig &c, const std::string &file)
{
	json j;
	j["file"] = file;
	j["id"] = c.job;
	j["elements"] = c.elements_auto ? json("auto") : json(c.elements);
	j["aggregators"] = c.aggregators;
	j["window"] = c.window;
	j["levels"] = c.levels;
	j["fan_in"] = per_level(c.fan_in, c.levels);
	j["ps_count"] = c.ps_count;
	j["ps_index"] = c.ps_index;
	j["ack"] = c.multicast_ack ? "multicast" : "unicast";
	j["ack_holdoff_us"] = c.ack_holdoff_us;
	j["float_holdoff_us"] = c.float_holdoff_us;
	j["bypass_holdoff_us"] = c.bypass_holdoff_us;
	j["float_slots"] = c.float_slots;
	if (c.has_switch)
		j["switch"] = {{"ip", ina::ipv4_text(c.switch_ip)},
			       {"mac", mac_or_null(c.switch_mac)},
			       {"control_key_file", path_or_null(c.switch_key_file)},
			       {"register_timeout_ms", c.register_timeout_ms}};
	else
		j["switch"] = nullptr;
	j["worker"] = json::array();
	for (const PsWorker &w : c.workers)
		j["worker"].push_back(
			{{"ip", ina::ipv4_text(w.ip)}, {"mac", mac_or_null(w.mac)}, {"bit", per_level(w.bit, c.levels)}});
	j["goat"] = c.goat_plan.empty() ? json(nullptr) : goat_json(c);
	/* toml++ hands over valid UTF-8 only; replace rather than throw. */
	return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} /* namespace ina */
