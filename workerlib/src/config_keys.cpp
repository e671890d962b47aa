/* SPDX-License-Identifier: BSD-3-Clause */
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>

#include "ina/codec.h"
#include "ina/worker.h"

namespace ina {

namespace {

bool to_u64(const std::string &v, uint64_t max, uint64_t *out)
{
	if (v.empty() || !isdigit(static_cast<unsigned char>(v[0])) || v.find('\0') != std::string::npos)
		return false;
	char *end = nullptr;
	errno = 0;
	unsigned long long x = strtoull(v.c_str(), &end, 0);
	if (errno || *end || x > max)
		return false;
	*out = x;
	return true;
}

/* A finite number in [lo, hi]: strtod alone would also take "nan" and "inf". */
bool to_double(const std::string &v, double lo, double hi, double *out)
{
	if (v.empty() || v.find('\0') != std::string::npos)
		return false;
	char *end = nullptr;
	errno = 0;
	double x = strtod(v.c_str(), &end);
	if (errno || *end || !std::isfinite(x) || x < lo || x > hi)
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

/* GOAT plan: end:node[:first-end],... (empty: no plan). */
bool goat_ranges(const std::string &v, std::vector<GoatRange> *out)
{
	std::vector<GoatRange> r;
	for (const std::string &e : split(v, ',')) {
		const std::vector<std::string> f = split(e, ':');
		uint64_t end, node, first = 0, last = 0;
		const size_t dash = f.size() == 3 ? f[2].find('-') : std::string::npos;
		if (f.size() < 2 || f.size() > 3 || !to_u64(f[0], UINT64_MAX, &end) || !to_u64(f[1], 0xFFFF, &node) ||
		    (f.size() == 3 && (dash == std::string::npos || !to_u64(f[2].substr(0, dash), kMaxAggregators, &first) ||
				       !to_u64(f[2].substr(dash + 1), kMaxAggregators, &last) || first >= last)))
			return false;
		r.push_back(GoatRange{end, static_cast<uint16_t>(node), static_cast<uint32_t>(first),
				      static_cast<uint32_t>(last)});
	}
	*out = std::move(r);
	return true;
}

/* GOAT switches' aggregators for the job: node:first-end,... */
bool goat_aggregators(const std::string &v, std::vector<GoatAggregators> *out)
{
	std::vector<GoatAggregators> r;
	for (const std::string &e : split(v, ',')) {
		const size_t colon = e.find(':'), dash = e.find('-');
		uint64_t node, first, end;
		if (colon == std::string::npos || dash == std::string::npos || dash < colon ||
		    !to_u64(e.substr(0, colon), 0xFFFF, &node) ||
		    !to_u64(e.substr(colon + 1, dash - colon - 1), kMaxAggregators, &first) ||
		    !to_u64(e.substr(dash + 1), kMaxAggregators, &end))
			return false;
		r.push_back(GoatAggregators{static_cast<uint16_t>(node), static_cast<uint32_t>(first),
					    static_cast<uint32_t>(end)});
	}
	*out = std::move(r);
	return true;
}

/* Aggregator index policy: hash, linear, static:FIRST-END. */
bool index_policy(const std::string &v, IndexPolicy *out)
{
	if (v == "hash" || v == "linear") {
		*out = IndexPolicy{v == "hash" ? IndexPolicy::Hash : IndexPolicy::Linear, 0, 0};
		return true;
	}
	const size_t dash = v.find('-');
	uint64_t first, end;
	if (v.compare(0, 7, "static:") != 0 || dash == std::string::npos ||
	    !to_u64(v.substr(7, dash - 7), kMaxAggregators, &first) || !to_u64(v.substr(dash + 1), kMaxAggregators, &end) ||
	    first >= end)
		return false;
	*out = IndexPolicy{IndexPolicy::Static, static_cast<uint32_t>(first), static_cast<uint32_t>(end)};
	return true;
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

/* A MAC a host can have (ina/codec.h's strict parser). */
bool unicast_mac(const std::string &v, uint8_t out[6])
{
	uint8_t m[6];
	if (!parse_mac(v, m) || !is_unicast_mac(m))
		return false;
	memcpy(out, m, 6);
	return true;
}

bool ps_list(const std::string &v, std::vector<PsAddress> *out)
{
	std::vector<PsAddress> list;
	for (const std::string &item : split(v, ',')) {
		PsAddress a;
		size_t slash = item.find('/');
		std::string ip = item.substr(0, slash);
		if (!parse_ipv4(ip, &a.ip))
			return false;
		if (slash != std::string::npos && !unicast_mac(item.substr(slash + 1), a.mac))
			return false;
		for (const PsAddress &o : list)
			if (o.ip == a.ip)
				return false; /* the same PS twice */
		list.push_back(a);
	}
	if (list.empty())
		return false;
	*out = list;
	return true;
}

/* IP or IP:port (roce set-up addresses); the port stays as it is when not
 * given. */
bool ip_port(const std::string &v, uint32_t *ip, uint16_t *port)
{
	size_t colon = v.find(':');
	uint32_t a;
	if (!parse_ipv4(v.substr(0, colon), &a))
		return false;
	if (colon != std::string::npos) {
		uint64_t p;
		if (!to_u64(v.substr(colon + 1), 0xFFFF, &p) || p == 0)
			return false;
		*port = static_cast<uint16_t>(p);
	}
	*ip = a;
	return true;
}

template <typename T> bool set_uint(T *field, const std::string &v, uint64_t max)
{
	uint64_t x;
	if (!to_u64(v, max, &x))
		return false;
	*field = static_cast<T>(x);
	return true;
}

/* The roce transport's keys (NetReduce); ranges are checked by validate(). */
bool set_roce_key(WorkerConfig *c, const std::string &key, const std::string &v, std::string *error)
{
	RoceRingConfig &r = c->roce;
	bool ok;
	if (key == "roce_ring")
		ok = set_uint(&r.ring_id, v, 0xFFFF);
	else if (key == "roce_ranks")
		ok = set_uint(&r.ranks, v, 255);
	else if (key == "roce_next")
		ok = ip_port(v, &r.successor_ip, &r.successor_port);
	else if (key == "roce_listen")
		ok = ip_port(v, &r.listen_ip, &r.listen_port);
	else if (key == "roce_window")
		ok = set_uint(&r.window.window, v, 0xFFFFFFFF);
	else if (key == "roce_msg_bytes")
		ok = set_uint(&r.window.msg_bytes, v, 0xFFFFFFFF);
	else if (key == "roce_mtu")
		ok = set_uint(&r.window.mtu, v, 0xFFFFFFFF);
	else if (key == "roce_timeout_us") {
		uint64_t us = 0;
		ok = set_uint(&us, v, UINT64_MAX / 1000);
		if (ok)
			r.window.timeout_ns = us * 1000;
	}
	else if (key == "roce_gid_index")
		ok = set_uint(&r.gid_index, v, 0x7FFFFFFF);
	else if (key == "roce_ib_port")
		ok = set_uint(&r.port, v, 255);
	else if (key == "roce_setup_timeout_ms")
		ok = set_uint(&r.setup_timeout_ms, v, 0xFFFFFFFF);
	else {
		if (error)
			*error = "unknown worker config key '" + key + "'";
		return false;
	}
	if (!ok && error)
		*error = "bad value '" + v + "' for worker config key '" + key + "'";
	return ok;
}

} /* namespace */

bool set_config_key(WorkerConfig *c, const std::string &key, const std::string &v, std::string *error)
{
	if (key.compare(0, 5, "roce_") == 0)
		return set_roce_key(c, key, v, error);
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
	auto d = [](double *field, double lo = -1e300, double hi = 1e300) {
		return Setter([field, lo, hi](const std::string &s) { return to_double(s, lo, hi, field); });
	};
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
		{"epoch", u(&c->epoch, 0xFF)},
		{"rank", u(&c->rank, 0xFFFFFFFF)},
		{"levels", u(&c->levels, INA_MAX_LEVELS)},
		{"start_level", u(&c->start_level, INA_MAX_LEVELS - 1)},
		{"bit", [c](const std::string &s) { return per_level(s, c->bit); }},
		{"fan_in", [c](const std::string &s) { return per_level(s, c->fan_in); }},
		{"ps", [c](const std::string &s) { return ps_list(s, &c->ps); }},
		{"next_hop_mac", [c](const std::string &s) { return unicast_mac(s, c->next_hop_mac); }},
		{"transport", [c](const std::string &s) { c->transport.kind = s; return !s.empty(); }},
		{"device", [c](const std::string &s) { c->transport.device = s; return true; }},
		{"eal_args", [c](const std::string &s) { c->transport.eal_args = s; return true; }},
		{"ip", [c](const std::string &s) { return parse_ipv4(s, &c->transport.ip); }},
		{"udp_port", u(&c->transport.udp_port, 0xFFFF)},
		{"udp_gso", u(&c->transport.udp_gso, 1)},
		{"drop", d(&c->transport.drop, 0, 1)},
		{"duplicate", d(&c->transport.duplicate, 0, 1)},
		{"reorder", d(&c->transport.reorder, 0, 1)},
		{"seed", u(&c->transport.seed, UINT64_MAX)},
		{"elements",
		 [c, u](const std::string &s) {
			 if (s != "auto")
				 return u(&c->elements_per_packet, INA_MAX_ELEMENTS)(s);
			 c->elements_per_packet = 0;
			 return true;
		 }},
		{"ps_query_timeout_ms", u(&c->ps_query_timeout_ms, 3600000)},
		{"aggregators", u(&c->aggregators, kMaxAggregators)},
		{"index", [c](const std::string &s) { return index_policy(s, &c->index); }},
		{"cc", [c](const std::string &s) { return parse_cc_kind(s, &c->cc.kind); }},
		{"scale", d(&c->scale)},
		{"agg_node", u(&c->agg_node, 0xFFFF)},
		{"goat", [c](const std::string &s) { return goat_ranges(s, &c->goat); }},
		{"goat_aggregators", [c](const std::string &s) { return goat_aggregators(s, &c->goat_aggregators); }},
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
		{"delay_target_us", us(&c->delay_target_ns)},
		{"max_backoff", u(&c->rtt.max_backoff, 1u << 20)},
		{"timeout_burst", u(&c->timeout_burst, 1u << 20)},
		{"reorder_window_pct", u(&c->reorder_window_pct, 1000)},
		{"window_capacity", u(&c->window_capacity, kMaxWindowCapacity)},
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
