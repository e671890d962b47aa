/* SPDX-License-Identifier: BSD-3-Clause */
#include "plan.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "ina/codec.h"

namespace ina::sim {

namespace {

using json = nlohmann::json;

uint32_t ip_of(const json &j)
{
	uint32_t ip = 0;
	if (!parse_ipv4(j.get<std::string>(), &ip))
		throw std::runtime_error("bad IPv4 address " + j.get<std::string>());
	return ip;
}

PlanSwitch switch_of(const json &s)
{
	PlanSwitch w;
	w.name = s.at("name");
	w.id = s.at("id");
	w.ip = ip_of(s.at("ip"));
	if (!parse_mac(s.at("mac").get<std::string>(), w.mac))
		throw std::runtime_error("bad MAC of switch " + w.name);
	w.aggregators = s.at("aggregators");
	w.ecn_threshold = s.value("ecn_threshold", 0u);
	w.rate_gbps = s.value("rate_gbps", 0.0);
	w.queue_capacity = s.value("queue_capacity", 1024u);
	for (const json &p : s.at("ports")) {
		PlanPort port;
		port.peer = p.at("peer");
		port.to_switch = p.at("peer_kind") == "switch";
		port.up = p.value("up", false);
		port.drop_rate = p.value("drop_rate", 0.0);
		port.rate_gbps = p.value("rate_gbps", 0.0);
		for (const json &n : p.at("neighbours")) {
			port.neighbour_ips.push_back(ip_of(n.at("ip")));
			port.neighbour_names.push_back(n.at("name"));
		}
		w.ports.push_back(std::move(port));
	}
	return w;
}

PlanJob job_of(const json &j)
{
	PlanJob b;
	b.id = j.at("id");
	b.name = j.at("name");
	b.mode = j.at("mode");
	b.ps = j.at("ps").at("name");
	b.cc = j.value("cc", "");
	b.levels = j.at("levels");
	const json &f = j.at("fan_in");
	for (size_t i = 0; i < f.size() && i < 4; i++)
		b.fan_in[i] = f[i];
	for (const json &w : j.at("workers")) {
		PlanWorker pw;
		pw.host = w.at("name");
		pw.rank = w.at("rank");
		pw.start_level = w.at("start_level");
		pw.agg_node = w.value("agg_node", 0);
		pw.compute_us = w.value("compute_us", uint64_t{0});
		const json &bits = w.at("bit");
		for (size_t i = 0; i < bits.size() && i < 4; i++)
			pw.bit[i] = bits[i];
		b.workers.push_back(pw);
	}
	for (const json &s : j.at("switches"))
		b.switches.push_back(s);
	b.tensor = j.at("tensor");
	b.iterations = j.at("iterations");
	b.window = j.value("window", 0u);
	b.start_delay_s = j.value("start_delay_s", 0.0);
	if (j.contains("worker_keys"))
		for (const auto &kv : j.at("worker_keys").items())
			b.worker_keys.emplace_back(kv.key(), kv.value().is_string() ? kv.value().get<std::string>()
										    : kv.value().dump());
	return b;
}

PlanBackground background_of(const json &f)
{
	PlanBackground b;
	b.name = f.at("name");
	b.from = f.at("from");
	b.to = f.at("to");
	b.protocol = f.value("protocol", "udp");
	b.rate_mbps = f.value("rate_mbps", 0.0);
	b.start_s = f.value("start_s", 0.0);
	b.stop_s = f.value("stop_s", 0.0);
	b.port = f.value("port", 5201);
	return b;
}

} /* namespace */

const PlanHost *Plan::host(const std::string &n) const
{
	for (const PlanHost &h : hosts)
		if (h.name == n)
			return &h;
	return nullptr;
}

const PlanSwitch *Plan::sw(const std::string &n) const
{
	for (const PlanSwitch &s : switches)
		if (s.name == n)
			return &s;
	return nullptr;
}

bool read_plan(const std::string &path, Plan *out, std::string *error)
{
	std::ifstream in(path);
	if (!in) {
		*error = path + ": cannot open";
		return false;
	}
	try {
		const json j = json::parse(in);
		Plan p;
		p.name = j.value("name", "");
		p.elements = j.at("elements");
		p.gc_timeout_ms = j.value("gc_timeout_ms", 1000u);
		p.job_share = j.value("job_share", 1.0);
		for (const json &s : j.at("switches"))
			p.switches.push_back(switch_of(s));
		for (const json &h : j.at("hosts")) {
			PlanHost host;
			host.name = h.at("name");
			host.sw = h.at("switch");
			host.ip = ip_of(h.at("ip"));
			if (!parse_mac(h.at("mac").get<std::string>(), host.mac))
				throw std::runtime_error("bad MAC of host " + host.name);
			p.hosts.push_back(host);
		}
		for (const json &b : j.at("jobs"))
			p.jobs.push_back(job_of(b));
		if (j.contains("background"))
			for (const json &f : j.at("background"))
				p.background.push_back(background_of(f));
		*out = std::move(p);
	} catch (const std::exception &e) {
		*error = path + ": " + e.what();
		return false;
	}
	return true;
}

} /* namespace ina::sim */
