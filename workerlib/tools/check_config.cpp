/* SPDX-License-Identifier: BSD-3-Clause */
#include "check_config.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "ina/codec.h"

namespace {

using json = nlohmann::ordered_json;

std::string mac_text(const uint8_t m[6])
{
	char b[18];
	snprintf(b, sizeof(b), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return b;
}

/* The first n entries of a per-level array. */
json per_level(const uint8_t *v, uint32_t n)
{
	json a = json::array();
	for (uint32_t i = 0; i < n; i++)
		a.push_back(v[i]);
	return a;
}

/* The job, its levels, its PS instances and the transport. */
void add_job(json &j, const ina::WorkerConfig &c)
{
	const uint32_t levels = c.levels ? c.levels : 1;
	j["job"] = c.job_id;
	j["epoch"] = c.epoch_named || c.epoch ? json(c.epoch) : json("auto");
	j["rank"] = c.rank;
	j["levels"] = c.levels;
	j["start_level"] = c.start_level;
	j["bit"] = per_level(c.bit, levels);
	j["fan_in"] = per_level(c.fan_in, levels);
	json ps = json::array();
	for (const ina::PsAddress &p : c.ps) {
		const bool mac = p.mac[0] | p.mac[1] | p.mac[2] | p.mac[3] | p.mac[4] | p.mac[5];
		ps.push_back(ina::ipv4_text(p.ip) + (mac ? "/" + mac_text(p.mac) : ""));
	}
	j["ps"] = ps;
	j["next_hop_mac"] = mac_text(c.next_hop_mac);
	j["transport"] = c.transport.kind;
	j["device"] = c.transport.device;
	j["eal_args"] = c.transport.eal_args;
	j["ip"] = ina::ipv4_text(c.transport.ip);
	j["udp_port"] = c.transport.udp_port;
	j["udp_gso"] = c.transport.udp_gso ? 1 : 0;
	j["drop"] = c.transport.drop;
	j["duplicate"] = c.transport.duplicate;
	j["reorder"] = c.transport.reorder;
	j["seed"] = c.transport.seed;
	j["elements"] = c.elements_per_packet ? json(c.elements_per_packet) : json("auto");
	j["ps_query_timeout_ms"] = c.ps_query_timeout_ms;
	j["aggregators"] = c.aggregators;
	switch (c.index.kind) {
	case ina::IndexPolicy::Hash: j["index"] = "hash"; break;
	case ina::IndexPolicy::Linear: j["index"] = "linear"; break;
	case ina::IndexPolicy::Static:
		j["index"] = "static:" + std::to_string(c.index.first) + "-" + std::to_string(c.index.end);
		break;
	}
	j["scale"] = c.scale;
}

/* GOAT: the node, the plan's ranges and the switches' aggregators, in the
 * keys' own text. */
void add_goat(json &j, const ina::WorkerConfig &c)
{
	j["agg_node"] = c.agg_node;
	std::string goat, aggs;
	for (const ina::GoatRange &r : c.goat) {
		goat += (goat.empty() ? "" : ",") + std::to_string(r.end_element) + ":" + std::to_string(r.agg_node);
		if (r.index_end > r.index_first)
			goat += ":" + std::to_string(r.index_first) + "-" + std::to_string(r.index_end);
	}
	for (const ina::GoatAggregators &a : c.goat_aggregators)
		aggs += (aggs.empty() ? "" : ",") + std::to_string(a.agg_node) + ":" + std::to_string(a.first) + "-" +
			std::to_string(a.end);
	j["goat"] = goat;
	j["goat_aggregators"] = aggs;
}

/* Threads, windows, congestion control and timers. */
void add_flow(json &j, const ina::WorkerConfig &c)
{
	j["threads"] = c.threads;
	j["cc"] = ina::cc_kind_name(c.cc.kind);
	j["initial_window"] = c.cc.initial_window;
	j["min_window"] = c.cc.min_window;
	j["max_window"] = c.cc.max_window;
	j["ssthresh"] = c.cc.initial_ssthresh;
	j["a2tp_w"] = c.cc.a2tp_w;
	j["a2tp_g"] = c.cc.a2tp_g;
	j["a2tp_h"] = c.cc.a2tp_h;
	j["a2tp_gamma_smoothing"] = c.cc.a2tp_gamma_smoothing;
	j["initial_acw"] = c.cc.initial_acw;
	j["a2tp_round_us"] = c.cc.a2tp_round_ns / 1000;
	j["a2tp_flows"] = c.a2tp_flows;
	j["min_rto_us"] = c.rtt.min_rto_ns / 1000;
	j["max_rto_us"] = c.rtt.max_rto_ns / 1000;
	j["initial_rto_us"] = c.rtt.initial_rto_ns / 1000;
	j["max_backoff"] = c.rtt.max_backoff;
	j["timeout_burst"] = c.timeout_burst;
	j["recovery"] = c.recovery == ina::Recovery::atp ? "atp" : "timeout";
	j["reorder_window_pct"] = c.reorder_window_pct;
	j["delay_target_us"] = c.delay_target_ns / 1000;
	j["window_capacity"] = c.window_capacity;
	j["ps_window"] = c.ps_window;
	j["stall_timeout_ms"] = c.stall_timeout_ns / 1000000;
}

/* transport = roce: NetReduce's ring (docs/netreduce.md). */
void add_roce(json &j, const ina::WorkerConfig &c)
{
	const ina::RoceRingConfig &r = c.roce;
	j["roce_ring"] = r.ring_id;
	j["roce_ranks"] = r.ranks;
	j["roce_next"] = ina::ipv4_text(r.successor_ip) + ":" + std::to_string(r.successor_port);
	j["roce_listen"] = ina::ipv4_text(r.listen_ip) + ":" + std::to_string(r.listen_port);
	j["roce_window"] = r.window.window;
	j["roce_msg_bytes"] = r.window.msg_bytes;
	j["roce_mtu"] = r.window.mtu;
	j["roce_timeout_us"] = r.window.timeout_ns / 1000;
	j["roce_gid_index"] = r.gid_index;
	j["roce_ib_port"] = r.port;
	j["roce_setup_timeout_ms"] = r.setup_timeout_ms;
}

} /* namespace */

std::string worker_config_json(const ina::WorkerConfig &cfg)
{
	json j = json::object();
	add_job(j, cfg);
	add_goat(j, cfg);
	add_flow(j, cfg);
	if (cfg.transport.kind == "roce")
		add_roce(j, cfg);
	return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

int check_worker_config(const ina::WorkerConfig &cfg)
{
	std::string err;
	if (!ina::validate(cfg, &err)) {
		std::fprintf(stderr, "ina-worker: error: invalid config: %s\n", err.c_str());
		return 2;
	}
	std::fputs(worker_config_json(cfg).c_str(), stdout);
	return std::fflush(stdout) == 0 ? 0 : 1;
}
