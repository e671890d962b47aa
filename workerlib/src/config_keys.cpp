/* SPDX-License-Identifier: BSD-3-Clause */
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

#include "ina/codec.h"
#include "ina/worker.h"

namespace ina {

namespace {

bool to_u64(const std::string &v, uint64_t max, uint64_t *out)
{
	if (v.empty() || v[0] == '-')
		return false;
	char *end = nullptr;
	errno = 0;
	unsigned long long x = strtoull(v.c_str(), &end, 0);
	if (errno || *end || x > max)
		return false;
	*out = x;
	return true;
}

bool to_double(const std::string &v, double *out)
{
	if (v.empty())
		return false;
	char *end = nullptr;
	errno = 0;
	double x = strtod(v.c_str(), &end);
	if (errno || *end)
		return false;
	*out = x;
	return true;
}

std::vector<std::string> split(const std::string &v, char sep)
{
	std::vector<std::string> out;
	std::stringstream ss(v);
	std::string item;
	while (std::getline(ss, item, sep))
		out.push_back(item);
	return out;
}

bool per_level(const std::string &v, uint8_t out[INA_MAX_LEVELS])
{
	auto parts = split(v, ',');
	if (parts.empty() || parts.size() > INA_MAX_LEVELS)
		return false;
	for (size_t i = 0; i < parts.size(); i++) {
		uint64_t x;
		if (!to_u64(parts[i], 255, &x))
			return false;
		out[i] = static_cast<uint8_t>(x);
	}
	return true;
}

bool ps_list(const std::string &v, std::vector<PsAddress> *out)
{
	std::vector<PsAddress> list;
	for (const std::string &item : split(v, ',')) {
		PsAddress a;
		size_t slash = item.find('/');
		std::string ip = item.substr(0, slash);
		if (!parse_ipv4(ip.c_str(), &a.ip))
			return false;
		if (slash != std::string::npos && !parse_mac(item.substr(slash + 1).c_str(), a.mac))
			return false;
		list.push_back(a);
	}
	if (list.empty())
		return false;
	*out = list;
	return true;
}

} /* namespace */

bool set_config_key(WorkerConfig *c, const std::string &key, const std::string &v, std::string *error)
{
	using Setter = std::function<bool(const std::string &)>;
	auto u = [](auto *field, uint64_t max) {
		return Setter([field, max](const std::string &s) {
			uint64_t x;
			if (!to_u64(s, max, &x))
				return false;
			*field = static_cast<std::remove_pointer_t<decltype(field)>>(x);
			return true;
		});
	};
	auto d = [](double *field) { return Setter([field](const std::string &s) { return to_double(s, field); }); };
	auto us = [](uint64_t *field) {
		return Setter([field](const std::string &s) {
			uint64_t x;
			if (!to_u64(s, UINT64_MAX / 1000, &x))
				return false;
			*field = x * 1000;
			return true;
		});
	};
	const std::map<std::string, Setter> setters = {
		{"job", u(&c->job_id, 0xFFFF)},
		{"rank", u(&c->rank, 0xFFFFFFFF)},
		{"levels", u(&c->levels, INA_MAX_LEVELS)},
		{"start_level", u(&c->start_level, INA_MAX_LEVELS - 1)},
		{"bit", [c](const std::string &s) { return per_level(s, c->bit); }},
		{"fan_in", [c](const std::string &s) { return per_level(s, c->fan_in); }},
		{"ps", [c](const std::string &s) { return ps_list(s, &c->ps); }},
		{"next_hop_mac", [c](const std::string &s) { return parse_mac(s.c_str(), c->next_hop_mac); }},
		{"transport", [c](const std::string &s) { c->transport.kind = s; return !s.empty(); }},
		{"device", [c](const std::string &s) { c->transport.device = s; return true; }},
		{"eal_args", [c](const std::string &s) { c->transport.eal_args = s; return true; }},
		{"ip", [c](const std::string &s) { return parse_ipv4(s.c_str(), &c->transport.ip); }},
		{"udp_port", u(&c->transport.udp_port, 0xFFFF)},
		{"drop", d(&c->transport.drop)},
		{"duplicate", d(&c->transport.duplicate)},
		{"reorder", d(&c->transport.reorder)},
		{"seed", u(&c->transport.seed, UINT64_MAX)},
		{"elements", u(&c->elements_per_packet, INA_MAX_ELEMENTS)},
		{"aggregators", u(&c->aggregators, 0xFFFFFFFF)},
		{"cc", [c](const std::string &s) { return parse_cc_kind(s, &c->cc.kind); }},
		{"scale", d(&c->scale)},
		{"agg_node", u(&c->agg_node, 0xFFFF)},
		{"threads", u(&c->threads, 64)},
		{"initial_window", d(&c->cc.initial_window)},
		{"min_window", d(&c->cc.min_window)},
		{"max_window", d(&c->cc.max_window)},
		{"ssthresh", d(&c->cc.initial_ssthresh)},
		{"a2tp_w", d(&c->cc.a2tp_w)},
		{"a2tp_g", d(&c->cc.a2tp_g)},
		{"a2tp_h", d(&c->cc.a2tp_h)},
		{"a2tp_gamma_smoothing", d(&c->cc.a2tp_gamma_smoothing)},
		{"acw_increase", d(&c->cc.acw_increase)},
		{"initial_acw", d(&c->cc.initial_acw)},
		{"a2tp_bypass",
		 [c](const std::string &s) {
			 if (s != "window" && s != "hash")
				 return false;
			 c->cc.bypass_by_hash = s == "hash";
			 return true;
		 }},
		{"a2tp_flows", u(&c->a2tp_flows, 1u << 20)},
		{"min_rto_us", us(&c->rtt.min_rto_ns)},
		{"max_rto_us", us(&c->rtt.max_rto_ns)},
		{"initial_rto_us", us(&c->rtt.initial_rto_ns)},
		{"max_backoff", u(&c->rtt.max_backoff, 1u << 20)},
		{"timeout_burst", u(&c->timeout_burst, 1u << 20)},
		{"reorder_window_pct", u(&c->reorder_window_pct, 1000)},
		{"window_capacity", u(&c->window_capacity, 1u << 24)},
		{"ps_window", u(&c->ps_window, 1u << 30)},
		{"stall_timeout_ms",
		 [c](const std::string &s) {
			 uint64_t x;
			 if (!to_u64(s, UINT64_MAX / 1000000, &x))
				 return false;
			 c->stall_timeout_ns = x * 1000000;
			 return true;
		 }},
	};
	auto it = setters.find(key);
	if (it == setters.end()) {
		if (error)
			*error = "unknown worker config key '" + key + "'";
		return false;
	}
	if (!it->second(v)) {
		if (error)
			*error = "bad value '" + v + "' for worker config key '" + key + "'";
		return false;
	}
	return true;
}

} /* namespace ina */
