/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Parser of conformance vector files; the grammar is tests/vectors/README.md.
 * Strict on purpose: an unknown key or a malformed value is an error, so a
 * typo in a vector cannot make it pass by checking less.
 */
#include "vector_file.h"

#include <cerrno>
#include <cctype>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace inavec {

namespace {

struct ParseError {
	std::string msg;
};

[[noreturn]] void fail(const std::string &msg)
{
	throw ParseError{msg};
}

std::string trim(const std::string &s)
{
	size_t b = s.find_first_not_of(" \t\r");
	if (b == std::string::npos)
		return "";
	size_t e = s.find_last_not_of(" \t\r");
	return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string &s, char sep)
{
	std::vector<std::string> out;
	std::string cur;
	for (char c : s) {
		if (c == sep) {
			out.push_back(cur);
			cur.clear();
		} else {
			cur += c;
		}
	}
	out.push_back(cur);
	return out;
}

std::vector<std::string> words(const std::string &s)
{
	std::vector<std::string> out;
	std::istringstream is(s);
	std::string w;
	while (is >> w)
		out.push_back(w);
	return out;
}

/* Unsigned integer, decimal or 0x hexadecimal, at most `max`. */
uint64_t parse_uint(const std::string &s, uint64_t max, const char *what)
{
	if (s.empty())
		fail(std::string("empty value for ") + what);
	bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *p = s.c_str() + (hex ? 2 : 0);
	if (*p == '\0' || *p == '-' || *p == '+')
		fail(std::string("bad number '") + s + "' for " + what);
	errno = 0;
	char *end = nullptr;
	unsigned long long v = std::strtoull(p, &end, hex ? 16 : 10);
	if (errno != 0 || *end != '\0')
		fail(std::string("bad number '") + s + "' for " + what);
	if (v > max)
		fail(std::string("value ") + s + " too large for " + what);
	return v;
}

/* One int32: decimal (signed) or a 0x bit pattern. */
int32_t parse_i32(const std::string &s)
{
	if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return static_cast<int32_t>(static_cast<uint32_t>(parse_uint(s, UINT32_MAX, "value")));
	errno = 0;
	char *end = nullptr;
	long long v = std::strtoll(s.c_str(), &end, 10);
	if (s.empty() || errno != 0 || *end != '\0' || v < INT32_MIN || v > INT32_MAX)
		fail("bad int32 '" + s + "'");
	return static_cast<int32_t>(v);
}

std::vector<int32_t> parse_values(const std::string &s)
{
	std::vector<int32_t> out;
	if (s.empty())
		return out;
	for (const std::string &item : split(s, ',')) {
		size_t star = item.find('*');
		size_t dots = item.find("..");
		if (star != std::string::npos) {
			int32_t v = parse_i32(item.substr(0, star));
			uint64_t n = parse_uint(item.substr(star + 1), 1u << 20, "repeat count");
			out.insert(out.end(), n, v);
		} else if (dots != std::string::npos) {
			int64_t a = parse_i32(item.substr(0, dots));
			int64_t b = parse_i32(item.substr(dots + 2));
			if ((a > b ? a - b : b - a) > (1 << 20))
				fail("range too long '" + item + "'");
			int64_t step = a <= b ? 1 : -1;
			for (int64_t v = a;; v += step) {
				out.push_back(static_cast<int32_t>(v));
				if (v == b)
					break;
			}
		} else {
			out.push_back(parse_i32(item));
		}
	}
	return out;
}

struct FlagName {
	const char *name;
	uint16_t bit;
};

constexpr FlagName kFlags[] = {
	{"ACK", INA_F_ACK},	      {"RESEND", INA_F_RESEND},	    {"COLLISION", INA_F_COLLISION},
	{"ECN", INA_F_ECN},	      {"OVERFLOW", INA_F_OVERFLOW}, {"COL", INA_F_COL},
	{"BYPASS", INA_F_BYPASS},     {"FLOAT", INA_F_FLOAT},
};

uint16_t parse_flags(const std::string &s)
{
	uint16_t f = 0;
	for (const std::string &n : split(s, '|')) {
		if (!n.empty() && n[0] >= '0' && n[0] <= '9') {
			f |= static_cast<uint16_t>(parse_uint(n, UINT16_MAX, "flags"));
			continue;
		}
		bool found = false;
		for (const FlagName &fn : kFlags) {
			if (n == fn.name) {
				f |= fn.bit;
				found = true;
			}
		}
		if (!found)
			fail("unknown flag '" + n + "'");
	}
	return f;
}

template <typename T, size_t N> void parse_list(const std::string &s, T (&out)[N], uint64_t max, const char *what)
{
	std::vector<std::string> items = split(s, ',');
	if (items.size() > N)
		fail(std::string("more than ") + std::to_string(N) + " items for " + what);
	for (size_t i = 0; i < N; i++)
		out[i] = i < items.size() ? static_cast<T>(parse_uint(items[i], max, what)) : T(0);
}

std::pair<std::string, std::string> key_value(const std::string &w)
{
	size_t eq = w.find('=');
	if (eq == std::string::npos || eq == 0)
		fail("expected key=value, got '" + w + "'");
	return {w.substr(0, eq), w.substr(eq + 1)};
}

/* Applies one frame key; false if the key is not a frame key. */
bool frame_key(FrameFields &f, const std::string &k, const std::string &v)
{
	if (k == "version")
		f.version = static_cast<uint8_t>(parse_uint(v, 255, "version"));
	else if (k == "type")
		f.type = v == "data"	    ? uint8_t(INA_TYPE_DATA)
			 : v == "control" ? uint8_t(INA_TYPE_CONTROL)
					  : static_cast<uint8_t>(parse_uint(v, 255, "type"));
	else if (k == "flags")
		f.flags = parse_flags(v);
	else if (k == "job")
		f.job = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, "job"));
	else if (k == "agg_node")
		f.agg_node = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, "agg_node"));
	else if (k == "seq")
		f.seq = static_cast<uint32_t>(parse_uint(v, UINT32_MAX, "seq"));
	else if (k == "index")
		f.index = static_cast<uint32_t>(parse_uint(v, UINT32_MAX, "index"));
	else if (k == "remap")
		f.remap = v == "none" ? INA_NO_REMAP : static_cast<uint32_t>(parse_uint(v, UINT32_MAX, "remap"));
	else if (k == "elems")
		f.elems = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, "elems"));
	else if (k == "level")
		f.level = static_cast<uint8_t>(parse_uint(v, 255, "level"));
	else if (k == "levels")
		f.levels = static_cast<uint8_t>(parse_uint(v, 255, "levels"));
	else if (k == "bitmaps")
		parse_list(v, f.bitmaps, UINT32_MAX, "bitmaps");
	else if (k == "fan_ins")
		parse_list(v, f.fan_ins, 255, "fan_ins");
	else if (k == "values") {
		f.values = parse_values(v);
		f.values_given = true;
	} else if (k == "eth_type")
		f.eth_type = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, k.c_str()));
	else if (k == "ip_vihl")
		f.ip_vihl = static_cast<uint8_t>(parse_uint(v, 255, k.c_str()));
	else if (k == "ip_tos")
		f.ip_tos = static_cast<uint8_t>(parse_uint(v, 255, k.c_str()));
	else if (k == "ip_len")
		f.ip_len = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, k.c_str()));
	else if (k == "ip_proto")
		f.ip_proto = static_cast<uint8_t>(parse_uint(v, 255, k.c_str()));
	else if (k == "udp_dport")
		f.udp_dport = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, k.c_str()));
	else if (k == "udp_len")
		f.udp_len = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, k.c_str()));
	else if (k == "frame_len")
		f.frame_len = static_cast<uint32_t>(parse_uint(v, 65535, k.c_str()));
	else
		return false;
	return true;
}

std::vector<uint8_t> parse_hex(const std::string &s)
{
	if (s.size() % 2 != 0)
		fail("raw: odd number of hex digits");
	std::vector<uint8_t> out;
	for (size_t i = 0; i < s.size(); i += 2) {
		char b[3] = {s[i], s[i + 1], 0};
		char *end = nullptr;
		long v = std::strtol(b, &end, 16);
		if (*end != '\0' || !std::isxdigit(static_cast<unsigned char>(b[0])))
			fail("raw: bad hex '" + std::string(b) + "'");
		out.push_back(static_cast<uint8_t>(v));
	}
	return out;
}

InPacket parse_in(const std::string &rest)
{
	InPacket in;
	FrameFields f;
	bool raw = false, fields = false;
	for (const std::string &w : words(rest)) {
		auto [k, v] = key_value(w);
		if (k == "now") {
			in.now = parse_uint(v, UINT64_MAX, "now");
		} else if (k == "raw") {
			in.frame = parse_hex(v);
			raw = true;
		} else if (frame_key(f, k, v)) {
			fields = true;
		} else {
			fail("unknown in key '" + k + "'");
		}
	}
	if (raw && fields)
		fail("in: raw= excludes the other frame keys");
	if (!raw)
		in.frame = build_frame(f);
	return in;
}

bool verdict_from_name(const std::string &s, ina::Verdict *v)
{
	static const std::pair<const char *, ina::Verdict> kNames[] = {
		{"drop", ina::Verdict::kDrop},	     {"downstream", ina::Verdict::kDownstream},
		{"multicast", ina::Verdict::kMulticast}, {"pass", ina::Verdict::kPass},
		{"control", ina::Verdict::kControl},
	};
	for (auto &n : kNames) {
		if (s == n.first) {
			*v = n.second;
			return true;
		}
	}
	return false;
}

OutSpec parse_out(const std::string &rest)
{
	OutSpec o;
	std::vector<std::string> w = words(rest);
	if (w.size() < 2)
		fail("out: needs <verdict> <reason>");
	if (!verdict_from_name(w[0], &o.verdict))
		fail("out: unknown verdict '" + w[0] + "'");
	if (!ina::counter_from_name(w[1].c_str(), &o.reason))
		fail("out: unknown reason '" + w[1] + "'");
	bool rewrites = o.verdict == ina::Verdict::kDownstream || o.verdict == ina::Verdict::kMulticast;
	if (!rewrites && w.size() > 2)
		fail("out: " + w[0] + " takes no keys");
	std::set<std::string> seen;
	for (size_t i = 2; i < w.size(); i++) {
		auto [k, v] = key_value(w[i]);
		if (k == "raw" || k == "now" || k.rfind("ip_", 0) == 0 || k.rfind("udp_", 0) == 0 ||
		    k == "eth_type" || k == "frame_len" || !frame_key(o.fields, k, v))
			fail("out: unknown key '" + k + "'");
		seen.insert(k);
	}
	if (rewrites) {
		for (const char *k : {"flags", "job", "agg_node", "seq", "index", "remap", "elems", "level",
				      "levels", "bitmaps", "fan_ins", "values"}) {
			if (!seen.count(k))
				fail(std::string("out: ") + w[0] + " must give every header field; missing '" + k + "'");
		}
	}
	return o;
}

AggSpec parse_agg(const std::string &rest, bool allow_empty)
{
	AggSpec a;
	std::vector<std::string> w = words(rest);
	if (w.empty())
		fail("aggregator line needs an index");
	a.index = static_cast<uint32_t>(parse_uint(w[0], UINT32_MAX, "aggregator index"));
	if (w.size() == 2 && w[1] == "empty") {
		if (!allow_empty)
			fail("before: an aggregator without a line is empty; 'empty' is for after:");
		a.empty = true;
		return a;
	}
	bool has_job = false;
	for (size_t i = 1; i < w.size(); i++) {
		auto [k, v] = key_value(w[i]);
		if (k == "job") {
			a.job = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, "job"));
			has_job = true;
		} else if (k == "seq")
			a.seq = static_cast<uint32_t>(parse_uint(v, UINT32_MAX, "seq"));
		else if (k == "epoch")
			a.epoch = static_cast<uint8_t>(parse_uint(v, UINT8_MAX, "epoch"));
		else if (k == "timestamp")
			a.timestamp = parse_uint(v, UINT64_MAX, "timestamp");
		else if (k == "bitmap")
			a.bitmap = static_cast<uint32_t>(parse_uint(v, UINT32_MAX, "bitmap"));
		else if (k == "count")
			a.count = static_cast<uint32_t>(parse_uint(v, UINT32_MAX, "count"));
		else if (k == "ecn")
			a.ecn = parse_uint(v, 1, "ecn");
		else if (k == "col")
			a.col = parse_uint(v, 1, "col");
		else if (k == "overflow")
			a.overflow = parse_uint(v, 1, "overflow");
		else if (k == "values")
			a.values = parse_values(v);
		else
			fail("unknown aggregator key '" + k + "'");
	}
	if (!has_job || a.job == 0)
		fail("an occupied aggregator needs job=<n>, n != 0");
	return a;
}

/* max_aggregators=<job>:<n>[,<job>:<n>...] */
void parse_shares(const std::string &v, std::map<uint16_t, uint32_t> &out)
{
	for (const std::string &item : split(v, ',')) {
		const size_t colon = item.find(':');
		if (colon == std::string::npos)
			fail("max_aggregators: want <job>:<n>, got '" + item + "'");
		const auto job = static_cast<uint16_t>(parse_uint(item.substr(0, colon), UINT16_MAX, "job"));
		if (job == 0 || !out.emplace(job, static_cast<uint32_t>(parse_uint(item.substr(colon + 1), UINT32_MAX,
										   "max_aggregators"))).second)
			fail("max_aggregators: job " + std::to_string(job) + " is 0 or listed twice");
	}
}

void parse_config(const std::string &rest, ina::PipelineConfig &c, std::map<uint16_t, uint32_t> &shares)
{
	for (const std::string &w : words(rest)) {
		auto [k, v] = key_value(w);
		if (k == "aggregators")
			c.aggregators = static_cast<uint32_t>(parse_uint(v, 1u << 24, "aggregators"));
		else if (k == "elements")
			c.elements = static_cast<uint16_t>(parse_uint(v, INA_MAX_ELEMENTS, "elements"));
		else if (k == "switch_id")
			c.switch_id = static_cast<uint16_t>(parse_uint(v, UINT16_MAX, "switch_id"));
		else if (k == "gc_timeout")
			c.gc_timeout = parse_uint(v, UINT64_MAX, "gc_timeout");
		else if (k == "stride")
			c.stride = static_cast<uint32_t>(parse_uint(v, 1u << 16, "stride"));
		else if (k == "offset")
			c.offset = static_cast<uint32_t>(parse_uint(v, 1u << 16, "offset"));
		else if (k == "max_aggregators")
			parse_shares(v, shares);
		else
			fail("unknown config key '" + k + "'");
	}
}

const std::set<std::string> kKnownTargets = {"cpu", "p4"};

void parse_lines(std::istream &is, Vector &v, int *lineno)
{
	bool have_name = false, have_targets = false, have_config = false, want_out = false;
	std::string raw;
	while (std::getline(is, raw)) {
		++*lineno;
		std::string line = trim(raw);
		if (line.empty() || line[0] == '#')
			continue;
		size_t colon = line.find(':');
		if (colon == std::string::npos)
			fail("expected '<keyword>: ...'");
		std::string kw = line.substr(0, colon);
		std::string rest = trim(line.substr(colon + 1));
		if (want_out && kw != "out")
			fail("an in: line must be followed by its out: line");
		if (kw == "name") {
			if (have_name)
				fail("second name:");
			v.name = rest;
			have_name = true;
		} else if (kw == "doc") {
			v.doc.push_back(rest);
		} else if (kw == "targets") {
			if (have_targets)
				fail("second targets:");
			for (const std::string &t : words(rest)) {
				if (!kKnownTargets.count(t))
					fail("unknown target '" + t + "'");
				v.targets.insert(t);
			}
			have_targets = true;
		} else if (kw == "skip") {
			std::vector<std::string> w = words(rest);
			if (w.size() < 2 || !kKnownTargets.count(w[0]))
				fail("skip: <target> <reason>");
			v.skip[w[0]] = trim(rest.substr(w[0].size()));
		} else if (kw == "config") {
			if (have_config)
				fail("second config:");
			parse_config(rest, v.config, v.max_aggregators);
			have_config = true;
		} else if (kw == "before") {
			AggSpec a = parse_agg(rest, false);
			a.line = *lineno;
			v.before.push_back(a);
		} else if (kw == "after") {
			AggSpec a = parse_agg(rest, true);
			a.line = *lineno;
			v.after.push_back(a);
		} else if (kw == "in") {
			Step s;
			s.in = parse_in(rest);
			s.in.line = *lineno;
			v.steps.push_back(s);
			want_out = true;
		} else if (kw == "out") {
			if (!want_out)
				fail("out: without an in: before it");
			v.steps.back().out = parse_out(rest);
			v.steps.back().out.line = *lineno;
			want_out = false;
		} else if (kw == "counters") {
			for (const std::string &w : words(rest)) {
				auto [k, val] = key_value(w);
				ina::Counter c;
				if (!ina::counter_from_name(k.c_str(), &c))
					fail("unknown counter '" + k + "'");
				if (v.counters.count(c))
					fail("counter '" + k + "' given twice");
				v.counters[c] = parse_uint(val, UINT64_MAX, "counter");
			}
		} else {
			fail("unknown keyword '" + kw + "'");
		}
	}
	++*lineno;
	if (want_out)
		fail("the last in: has no out:");
	if (!have_name)
		fail("missing name:");
	if (!have_targets)
		fail("missing targets:");
	if (v.steps.empty())
		fail("no in: lines");
	for (const std::string &t : kKnownTargets) {
		if (!v.targets.count(t) && !v.skip.count(t))
			fail("target '" + t + "' is neither in targets: nor has a skip: reason");
		if (v.targets.count(t) && v.skip.count(t))
			fail("target '" + t + "' both in targets: and skip:");
	}
}

void put16(std::vector<uint8_t> &b, size_t off, uint16_t v)
{
	ina_store16(&b[off], v);
}

void put32(std::vector<uint8_t> &b, size_t off, uint32_t v)
{
	ina_store32(&b[off], v);
}

/* INA header + payload at `off` of `b`, which is large enough. */
void put_ina(std::vector<uint8_t> &b, size_t off, const FrameFields &f)
{
	b[off + offsetof(ina_hdr, version)] = f.version;
	b[off + offsetof(ina_hdr, type)] = f.type;
	put16(b, off + offsetof(ina_hdr, flags), f.flags);
	put16(b, off + offsetof(ina_hdr, job_id), f.job);
	put16(b, off + offsetof(ina_hdr, agg_node), f.agg_node);
	put32(b, off + offsetof(ina_hdr, seq), f.seq);
	put32(b, off + offsetof(ina_hdr, agg_index), f.index);
	put32(b, off + offsetof(ina_hdr, remap_index), f.remap);
	put16(b, off + offsetof(ina_hdr, elem_count), f.elems ? *f.elems : static_cast<uint16_t>(f.values.size()));
	b[off + offsetof(ina_hdr, level)] = f.level;
	b[off + offsetof(ina_hdr, levels)] = f.levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		put32(b, off + offsetof(ina_hdr, bitmap) + 4 * i, f.bitmaps[i]);
		b[off + offsetof(ina_hdr, fan_in) + i] = f.fan_ins[i];
	}
	for (size_t i = 0; i < f.values.size(); i++)
		put32(b, off + INA_HDR_LEN + 4 * i, static_cast<uint32_t>(f.values[i]));
}

/* Values of a frame: given, or `elems` zeros. */
FrameFields with_default_values(const FrameFields &in)
{
	FrameFields f = in;
	if (!f.values_given && f.elems)
		f.values.assign(*f.elems, 0);
	return f;
}

} /* namespace */

std::vector<uint8_t> build_frame(const FrameFields &in)
{
	FrameFields f = with_default_values(in);
	size_t payload = 4 * f.values.size();
	std::vector<uint8_t> b(INA_PAYLOAD_OFFSET + payload, 0);
	static const uint8_t dst[6] = {0x02, 0, 0, 0, 0, 0x02}, src[6] = {0x02, 0, 0, 0, 0, 0x01};
	std::memcpy(&b[0], dst, 6);
	std::memcpy(&b[6], src, 6);
	put16(b, 12, f.eth_type.value_or(0x0800));
	size_t ip = sizeof(ina_eth_hdr);
	b[ip + 0] = f.ip_vihl.value_or(0x45);
	b[ip + 1] = f.ip_tos.value_or(0);
	put16(b, ip + 2, f.ip_len.value_or(static_cast<uint16_t>(20 + 8 + INA_HDR_LEN + payload)));
	put16(b, ip + 4, 0);
	put16(b, ip + 6, 0x4000);
	b[ip + 8] = 64;
	b[ip + 9] = f.ip_proto.value_or(17);
	put32(b, ip + 12, 0x0A000001u);
	put32(b, ip + 16, 0x0A000064u);
	uint32_t sum = 0;
	for (size_t i = 0; i < 20; i += 2)
		sum += ina_load16(&b[ip + i]);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	put16(b, ip + 10, static_cast<uint16_t>(~sum));
	size_t udp = ip + sizeof(ina_ipv4_hdr);
	put16(b, udp + 0, INA_UDP_PORT);
	put16(b, udp + 2, f.udp_dport.value_or(INA_UDP_PORT));
	put16(b, udp + 4, f.udp_len.value_or(static_cast<uint16_t>(8 + INA_HDR_LEN + payload)));
	put16(b, udp + 6, 0);
	put_ina(b, INA_HDR_OFFSET, f);
	if (f.frame_len)
		b.resize(*f.frame_len, 0);
	return b;
}

std::vector<uint8_t> build_expected(const FrameFields &in, const std::vector<uint8_t> &in_frame)
{
	FrameFields f = with_default_values(in);
	std::vector<uint8_t> b = in_frame;
	size_t need = INA_PAYLOAD_OFFSET + 4 * f.values.size();
	if (b.size() < need)
		b.resize(need, 0); /* a length mismatch the comparison reports */
	put_ina(b, INA_HDR_OFFSET, f);
	return b;
}

bool parse_vector_file(const std::string &path, Vector *out, std::string *err)
{
	std::ifstream is(path);
	if (!is) {
		*err = path + ": cannot open: " + std::strerror(errno);
		return false;
	}
	Vector v;
	v.path = path;
	int line = 0;
	try {
		parse_lines(is, v, &line);
	} catch (const ParseError &e) {
		*err = path + ":" + std::to_string(line) + ": " + e.msg;
		return false;
	}
	*out = std::move(v);
	return true;
}

const char *verdict_name(ina::Verdict v)
{
	switch (v) {
	case ina::Verdict::kDrop:
		return "drop";
	case ina::Verdict::kDownstream:
		return "downstream";
	case ina::Verdict::kMulticast:
		return "multicast";
	case ina::Verdict::kPass:
		return "pass";
	case ina::Verdict::kControl:
		return "control";
	}
	return "?";
}

std::string flags_string(uint16_t flags)
{
	if (flags == 0)
		return "0";
	std::string s;
	uint16_t rest = flags;
	for (const FlagName &fn : kFlags) {
		if (flags & fn.bit) {
			s += (s.empty() ? "" : "|");
			s += fn.name;
			rest &= static_cast<uint16_t>(~fn.bit);
		}
	}
	if (rest) {
		char b[16];
		std::snprintf(b, sizeof(b), "0x%x", rest);
		s += (s.empty() ? "" : "|") + std::string(b);
	}
	return s;
}

} /* namespace inavec */
