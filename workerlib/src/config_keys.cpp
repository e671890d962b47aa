/* SPDX-License-Identifier: BSD-3-Clause */
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
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

/* One key: its setter and, for the error, the range it takes (docs/worker.md). */
struct Key {
	std::function<bool(const std::string &)> set;
	std::string range;
};
using KeyTable = std::map<std::string, Key>;

/* An integer in [lo, hi] into *field. */
template <typename T> Key int_key(T *field, uint64_t lo, uint64_t hi)
{
	return {[field, lo, hi](const std::string &s) {
			uint64_t x;
			if (!to_u64(s, hi, &x) || x < lo)
				return false;
			*field = static_cast<T>(x);
			return true;
		},
		"int " + std::to_string(lo) + ".." + std::to_string(hi)};
}

std::string number_text(double x)
{
	char b[32];
	snprintf(b, sizeof(b), "%g", x);
	return b;
}

/* A finite float in [lo, hi], lo or hi left out where open ('>' or '<'). */
Key float_key(double *field, double lo, double hi, bool open_lo = false, bool open_hi = false)
{
	return {[=](const std::string &s) {
			double x;
			if (!to_double(s, lo, hi, &x) || (open_lo && x == lo) || (open_hi && x == hi))
				return false;
			*field = x;
			return true;
		},
		std::string("float ") + (open_lo ? ">" : "") + number_text(lo) + ".." + (open_hi ? "<" : "") +
			number_text(hi)};
}

/* Microseconds (or another unit, as a factor to ns) into a ns field. */
Key ns_key(uint64_t *field, uint64_t lo, uint64_t ns_per_unit)
{
	const uint64_t hi = UINT64_MAX / ns_per_unit;
	return {[=](const std::string &s) {
			uint64_t x;
			if (!to_u64(s, hi, &x) || x < lo)
				return false;
			*field = x * ns_per_unit;
			return true;
		},
		"int " + std::to_string(lo) + ".." + std::to_string(hi)};
}

Key text_key(std::function<bool(const std::string &)> set, std::string what)
{
	return {std::move(set), std::move(what)};
}

/* The keys whose value is a number. Windows are bounded by the window
 * capacity (2^24 fragments at most), the rest by their field or meaning;
 * relations between keys are validate()'s. */
void add_numeric_keys(KeyTable *t, WorkerConfig *c)
{
	const double kWindows = static_cast<double>(kMaxWindowCapacity - 1);
	*t = {
		{"job", int_key(&c->job_id, 1, 0xFFFF)},
		{"rank", int_key(&c->rank, 0, 0xFFFFFFFF)},
		{"levels", int_key(&c->levels, 0, INA_MAX_LEVELS)},
		{"start_level", int_key(&c->start_level, 0, INA_MAX_LEVELS - 1)},
		{"udp_port", int_key(&c->transport.udp_port, 0, 0xFFFF)},
		{"udp_gso", int_key(&c->transport.udp_gso, 0, 1)},
		{"drop", float_key(&c->transport.drop, 0, 1)},
		{"duplicate", float_key(&c->transport.duplicate, 0, 1)},
		{"reorder", float_key(&c->transport.reorder, 0, 1)},
		{"seed", int_key(&c->transport.seed, 0, UINT64_MAX)},
		{"ps_query_timeout_ms", int_key(&c->ps_query_timeout_ms, 0, 3600000)},
		{"aggregators", int_key(&c->aggregators, 1, kMaxAggregators)},
		{"scale", float_key(&c->scale, 0, 1e30, true)},
		{"agg_node", int_key(&c->agg_node, 0, 0xFFFF)},
		{"threads", int_key(&c->threads, 1, 64)},
		{"initial_window", float_key(&c->cc.initial_window, 1, kWindows)},
		{"min_window", float_key(&c->cc.min_window, 1, kWindows)},
		{"max_window", float_key(&c->cc.max_window, 1, kWindows)},
		{"ssthresh", float_key(&c->cc.initial_ssthresh, 0, kWindows)},
		{"a2tp_w", float_key(&c->cc.a2tp_w, 0, 1, true, true)},
		{"a2tp_g", float_key(&c->cc.a2tp_g, 0, 1, true, true)},
		{"a2tp_h", float_key(&c->cc.a2tp_h, -1, 1, false, true)},
		{"a2tp_gamma_smoothing", float_key(&c->cc.a2tp_gamma_smoothing, 0, 1)},
		{"initial_acw", float_key(&c->cc.initial_acw, 0, kWindows)},
		{"a2tp_flows", int_key(&c->a2tp_flows, 0, 1u << 20)},
		{"a2tp_round_us", ns_key(&c->cc.a2tp_round_ns, 0, 1000)},
		{"min_rto_us", ns_key(&c->rtt.min_rto_ns, 1, 1000)},
		{"max_rto_us", ns_key(&c->rtt.max_rto_ns, 1, 1000)},
		{"initial_rto_us", ns_key(&c->rtt.initial_rto_ns, 1, 1000)},
		{"delay_target_us", ns_key(&c->delay_target_ns, 0, 1000)},
		{"max_backoff", int_key(&c->rtt.max_backoff, 0, 1u << 20)},
		{"timeout_burst", int_key(&c->timeout_burst, 1, 1u << 20)},
		{"reorder_window_pct", int_key(&c->reorder_window_pct, 0, 1000)},
		{"window_capacity", int_key(&c->window_capacity, 16, kMaxWindowCapacity)},
		{"ps_window", int_key(&c->ps_window, 1, 1u << 30)},
		{"stall_timeout_ms", ns_key(&c->stall_timeout_ns, 0, 1000000)},
	};
}

/* The keys whose value is text, a list or a name. */
void add_text_keys(KeyTable *t, WorkerConfig *c)
{
	const Key elements = int_key(&c->elements_per_packet, 1, INA_MAX_ELEMENTS);
	const Key epoch = int_key(&c->epoch, 0, 0xFF);
	t->insert({
		/* A number names the epoch, which then wins over the PS's
		 * answer; auto (the default) takes the PS's. */
		{"epoch", text_key(
				  [c, epoch](const std::string &s) {
					  if (s == "auto") {
						  c->epoch = 0;
						  c->epoch_named = false;
						  return true;
					  }
					  if (!epoch.set(s))
						  return false;
					  c->epoch_named = true;
					  return true;
				  },
				  epoch.range + " or auto")},
		{"bit", text_key([c](const std::string &s) { return per_level(s, c->bit); }, "a comma list of int")},
		{"fan_in", text_key([c](const std::string &s) { return per_level(s, c->fan_in); }, "a comma list of int")},
		{"ps", text_key([c](const std::string &s) { return ps_list(s, &c->ps); }, "IP[/MAC],...")},
		{"next_hop_mac",
		 text_key([c](const std::string &s) { return unicast_mac(s, c->next_hop_mac); }, "a unicast MAC")},
		{"transport",
		 text_key([c](const std::string &s) { c->transport.kind = s; return !s.empty(); }, "a transport name")},
		{"device", text_key([c](const std::string &s) { c->transport.device = s; return true; }, "text")},
		{"eal_args", text_key([c](const std::string &s) { c->transport.eal_args = s; return true; }, "text")},
		{"ip", text_key([c](const std::string &s) { return parse_ipv4(s, &c->transport.ip); }, "an IPv4 address")},
		{"elements", text_key(
				     [c, elements](const std::string &s) {
					     if (s != "auto")
						     return elements.set(s);
					     c->elements_per_packet = 0;
					     return true;
				     },
				     elements.range + " or auto")},
		{"index", text_key([c](const std::string &s) { return index_policy(s, &c->index); },
				   "hash, linear, static:FIRST-END")},
		{"cc", text_key([c](const std::string &s) { return parse_cc_kind(s, &c->cc.kind); }, "none, atp, a2tp")},
		{"goat", text_key([c](const std::string &s) { return goat_ranges(s, &c->goat); },
				  "end:node[:first-end],...")},
		{"goat_aggregators",
		 text_key([c](const std::string &s) { return goat_aggregators(s, &c->goat_aggregators); },
			  "node:first-end,...")},
		{"recovery", text_key(
				     [c](const std::string &s) {
					     if (s != "atp" && s != "timeout")
						     return false;
					     c->recovery = s == "atp" ? Recovery::atp : Recovery::timeout;
					     return true;
				     },
				     "atp, timeout")},
	});
}

} /* namespace */

bool set_config_key(WorkerConfig *c, const std::string &key, const std::string &v, std::string *error)
{
	if (key.compare(0, 5, "roce_") == 0)
		return set_roce_key(c, key, v, error);
	KeyTable keys;
	add_numeric_keys(&keys, c);
	add_text_keys(&keys, c);
	auto it = keys.find(key);
	if (it == keys.end()) {
		if (error)
			*error = "unknown worker config key '" + key + "'";
		return false;
	}
	if (!it->second.set(v)) {
		if (error)
			*error = "bad value '" + v + "' for worker config key '" + key + "' (" + it->second.range + ")";
		return false;
	}
	return true;
}

} /* namespace ina */
