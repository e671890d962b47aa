/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The resolved configuration as JSON: what `ina-switchd --check-config FILE`
 * prints, and the only input of the P4 build's control plane
 * (pipeline/p4/p4gen.py). It has the shape of the TOML file (config/README.md)
 * with every default filled in, so that p4gen never repeats a default of
 * config.cpp: [egress] is folded into each port, fan_in and bit have one
 * entry per level, addresses are strings. A value that only start-up can
 * decide (lcores, a MAC left to the port) is null.
 */
#include <cstdio>

#include <nlohmann/json.hpp>

#include "config.h"

namespace switchd {

namespace {

/* ordered: the output keeps the order of config/README.md, switch first. */
using json = nlohmann::ordered_json;

/* An all-zero MAC is how the structs say "not given". */
json mac_or_null(const Mac &m)
{
	return m == Mac{} ? json(nullptr) : json(mac_str(m));
}

json per_level(const std::array<uint8_t, INA_MAX_LEVELS> &v, uint8_t levels)
{
	json a = json::array();
	for (unsigned l = 0; l < levels; l++)
		a.push_back(v[l]);
	return a;
}

json switch_json(const SwitchConfig &c)
{
	json s;
	s["id"] = c.switch_id;
	s["ip"] = ipv4_str(c.ip);
	s["mac"] = mac_or_null(c.mac);
	s["aggregators"] = c.aggregators;
	s["elements"] = c.elements;
	s["gc_timeout_ms"] = c.gc_timeout_ms;
	s["sweep_slots"] = c.sweep_slots;
	s["lease_refreshes"] = c.lease_refreshes;
	s["job_share"] = c.job_share;
	s["lcores"] = c.lcores.empty() ? json(nullptr) : json(c.lcores);
	s["stats_interval_s"] = c.stats_interval_s;
	s["idle_sleep_us"] = c.idle_sleep_us;
	s["mbufs"] = c.mbufs;
	s["burst"] = c.burst;
	s["rx_descriptors"] = c.rx_descriptors;
	s["tx_descriptors"] = c.tx_descriptors;
	s["handoff_ring_size"] = c.handoff_ring_size;
	s["steering"] = c.steering;
	/* The key file's path, never the key. */
	s["control_key_file"] = c.control_key_file.empty() ? json(nullptr) : json(c.control_key_file);
	s["control_auth"] = c.control_auth;
	s["control_window_s"] = c.control_window_s;
	return s;
}

json port_json(const PortConfig &p)
{
	json j;
	j["device"] = p.device;
	j["name"] = p.name;
	j["vdev"] = p.is_vdev;
	j["rate_gbps"] = p.egress.rate_gbps;
	j["queue_capacity"] = p.egress.queue_capacity;
	j["ecn_threshold"] = p.egress.ecn_threshold;
	j["drop_rate"] = p.egress.drop_rate;
	j["neighbour"] = json::array();
	for (const Neighbour &n : p.neighbours)
		j["neighbour"].push_back({{"ip", ipv4_str(n.ip)}, {"mac", mac_str(n.mac)}});
	return j;
}

json job_json(const JobConfig &job)
{
	json j;
	j["id"] = job.id;
	j["ps_ip"] = ipv4_str(job.ps_ip);
	j["ps_mac"] = mac_or_null(job.ps_mac);
	j["levels"] = job.levels;
	j["fan_in"] = per_level(job.fan_in, job.levels);
	j["control"] = job.control_allowed ? "allow" : "deny";
	j["max_aggregators"] = job.max_aggregators;
	j["worker"] = json::array();
	for (const JobWorker &w : job.workers)
		j["worker"].push_back({{"ip", ipv4_str(w.ip)},
				       {"mac", mac_or_null(w.mac)},
				       {"bit", per_level(w.bit, job.levels)}});
	return j;
}

} /* namespace */

std::string config_json(const SwitchConfig &cfg)
{
	json root;
	root["file"] = cfg.path;
	root["switch"] = switch_json(cfg);
	root["port"] = json::array();
	for (const PortConfig &p : cfg.ports)
		root["port"].push_back(port_json(p));
	root["job"] = json::array();
	for (const JobConfig &j : cfg.jobs)
		root["job"].push_back(job_json(j));
	/* [[goat]] (goat_assign.h), only when there is one. */
	for (const GoatJobConfig &g : cfg.goat) {
		json r = json::array();
		for (const GoatRange &x : g.ranges)
			r.push_back(x.fan_in ? json{x.first, x.end, x.fan_in, x.children} : json{x.first, x.end});
		root["goat"].push_back({{"job", g.job},
					{"plan", g.plan.empty() ? json(nullptr) : json(g.plan)},
					{"submodels", g.submodels},
					{"aggregators", r}});
	}
	if (!cfg.netreduce.rings.empty()) {
		json n;
		n["connections"] = cfg.netreduce.connections;
		n["clt_timeout_ms"] = cfg.netreduce_clt_timeout_ms;
		n["lcore"] = cfg.netreduce_lcore;
		n["check_icrc"] = cfg.netreduce.check_icrc;
		n["ring"] = json::array();
		for (const ina::NrRingConfig &r : cfg.netreduce.rings)
			n["ring"].push_back({{"id", r.ring_id},
					     {"ranks", r.ranks},
					     {"window", r.window},
					     {"msg_len", r.msg_len},
					     {"mtu", r.mtu},
					     {"type", r.dtype == NR_DTYPE_INT32 ? "int32" : "float32"}});
		root["netreduce"] = n;
	}
	/* toml++ hands over valid UTF-8 only; replace rather than throw should a
	 * byte ever slip through, so that the check never aborts. */
	return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

int check_config(const std::string &path)
{
	SwitchConfig cfg;
	try {
		cfg = load_config(path);
	} catch (const ConfigError &e) {
		std::fprintf(stderr, "ina-switchd: error: invalid config: %s\n", e.what());
		return 2;
	}
	std::fputs(config_json(cfg).c_str(), stdout);
	return std::fflush(stdout) == 0 ? 0 : 1;
}

} /* namespace switchd */
