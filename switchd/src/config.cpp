/* SPDX-License-Identifier: BSD-3-Clause
 *
 * TOML configuration reader. toml++ reports the line and column of every
 * node; each section checks its keys against the documented set so that a
 * typo is an error with file:line, never silently ignored.
 */
#include "config.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "ina/codec.h"
#include "ina/input_file.h"
#include "ina/key_hint.h"

namespace switchd {

/* The strict parsers of ina/codec.h, on switchd's types. */
bool parse_ipv4(const std::string &s, uint32_t *out)
{
	return ina::parse_ipv4(s, out);
}

bool parse_mac(const std::string &s, Mac *out)
{
	return ina::parse_mac(s, out->data());
}

std::string ipv4_str(uint32_t ip)
{
	return ina::ipv4_text(ip);
}

std::string mac_str(const Mac &m)
{
	char buf[18];
	std::snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		      m[5]);
	return buf;
}

uint32_t default_max_aggregators(const SwitchConfig &cfg)
{
	const auto n = static_cast<uint32_t>(cfg.job_share * double(cfg.aggregators));
	return std::clamp<uint32_t>(n, 1, cfg.aggregators);
}

namespace {

/* A value as it may appear in a one-line error: control characters (an
 * embedded NUL or newline) as \xNN. */
std::string printable(const std::string &s)
{
	std::string out;
	for (unsigned char c : s) {
		if (c < 0x20 || c == 0x7f) {
			char buf[5];
			std::snprintf(buf, sizeof(buf), "\\x%02x", c);
			out += buf;
		} else {
			out += static_cast<char>(c);
		}
	}
	return out;
}

[[noreturn]] void fail(const std::string &file, const toml::source_region &where,
		       const std::string &key, const std::string &why)
{
	std::ostringstream os;
	os << file << ':' << where.begin.line << ':' << where.begin.column << ": " << key << ": "
	   << why;
	throw ConfigError(os.str());
}

/* One TOML table with a documented set of keys. Every getter registers its
 * key; finish() rejects whatever was not asked for. */
class Section {
public:
	Section(const std::string &file, const toml::table &t, std::string prefix)
		: file_(file), t_(t), prefix_(std::move(prefix))
	{
	}

	std::string key(const std::string &k) const { return prefix_.empty() ? k : prefix_ + "." + k; }
	const toml::node *node(const std::string &k)
	{
		known_.insert(k);
		return t_.get(k);
	}
	/* A required key that is absent; under its old name, that is said. */
	[[noreturn]] void missing(const std::string &k)
	{
		for (auto &&[old, v] : t_)
			if (ina::renamed_key(std::string(old.str())) == k)
				fail(file_, old.source().begin.line ? old.source() : v.source(),
				     key(std::string(old.str())), "unknown key; renamed: use `" + k + "`");
		fail(file_, t_.source(), key(k), "missing (required)");
	}
	[[noreturn]] void bad(const std::string &k, const std::string &why)
	{
		const toml::node *n = t_.get(k);
		fail(file_, n ? n->source() : t_.source(), key(k), why);
	}

	template <typename T>
	T integer(const std::string &k, T def, int64_t lo, int64_t hi)
	{
		const toml::node *n = node(k);
		if (!n)
			return def;
		auto v = n->value_exact<int64_t>();
		if (!v)
			bad(k, "must be an integer");
		if (*v < lo || *v > hi)
			bad(k, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
				       ", got " + std::to_string(*v));
		return static_cast<T>(*v);
	}

	double number(const std::string &k, double def, double lo, double hi)
	{
		const toml::node *n = node(k);
		if (!n)
			return def;
		std::optional<double> v;
		if (n->is_floating_point())
			v = n->value_exact<double>();
		else if (n->is_integer())
			v = static_cast<double>(*n->value_exact<int64_t>());
		if (!v)
			bad(k, "must be a number");
		if (!std::isfinite(*v) || *v < lo || *v > hi) {
			std::ostringstream os;
			os << "must be between " << lo << " and " << hi << ", got " << *v;
			bad(k, os.str());
		}
		return *v;
	}

	std::optional<std::string> string(const std::string &k)
	{
		const toml::node *n = node(k);
		if (!n)
			return std::nullopt;
		auto v = n->value_exact<std::string>();
		if (!v)
			bad(k, "must be a string");
		return v;
	}

	std::string required_string(const std::string &k)
	{
		auto v = string(k);
		if (!v)
			missing(k);
		return *v;
	}

	uint32_t ip(const std::string &k, bool required)
	{
		auto s = required ? std::optional<std::string>(required_string(k)) : string(k);
		uint32_t ip = 0;
		if (s && !parse_ipv4(*s, &ip))
			bad(k, "not an IPv4 address: '" + printable(*s) + "'");
		return ip;
	}

	Mac mac(const std::string &k, bool required)
	{
		auto s = required ? std::optional<std::string>(required_string(k)) : string(k);
		Mac m{};
		if (s && !parse_mac(*s, &m))
			bad(k, "not a MAC address (aa:bb:cc:dd:ee:ff): '" + printable(*s) + "'");
		if (s && !ina::is_unicast_mac(m.data()))
			bad(k, "not a host's MAC address (zero, multicast or broadcast): '" + *s + "'");
		return m;
	}

	/* Array of integers in [lo, hi]; nullopt if absent. */
	std::optional<std::vector<int64_t>> int_array(const std::string &k, int64_t lo, int64_t hi)
	{
		const toml::node *n = node(k);
		if (!n)
			return std::nullopt;
		const toml::array *a = n->as_array();
		if (!a)
			bad(k, "must be an array of integers");
		std::vector<int64_t> out;
		for (const toml::node &e : *a) {
			auto v = e.value_exact<int64_t>();
			if (!v)
				fail(file_, e.source(), key(k), "must be an array of integers");
			if (*v < lo || *v > hi)
				fail(file_, e.source(), key(k),
				     "elements must be between " + std::to_string(lo) + " and " +
					     std::to_string(hi) + ", got " + std::to_string(*v));
			out.push_back(*v);
		}
		return out;
	}

	/* Array of tables ([[name]]); empty if absent. */
	std::vector<const toml::table *> tables(const std::string &k)
	{
		std::vector<const toml::table *> out;
		const toml::node *n = node(k);
		if (!n)
			return out;
		const toml::array *a = n->as_array();
		if (!a)
			bad(k, "must be an array of tables ([[" + key(k) + "]])");
		for (const toml::node &e : *a) {
			const toml::table *t = e.as_table();
			if (!t)
				fail(file_, e.source(), key(k), "must be an array of tables");
			out.push_back(t);
		}
		return out;
	}

	const toml::table *table(const std::string &k)
	{
		const toml::node *n = node(k);
		if (!n)
			return nullptr;
		const toml::table *t = n->as_table();
		if (!t)
			bad(k, "must be a table ([" + key(k) + "])");
		return t;
	}

	void finish()
	{
		for (auto &&[k, v] : t_) {
			std::string name(k.str());
			if (!known_.count(name))
				fail(file_, k.source().begin.line ? k.source() : v.source(), key(name),
				     ina::unknown_key_message(name, {known_.begin(), known_.end()}));
		}
	}

	const std::string &file() const { return file_; }
	const toml::table &raw() const { return t_; }

private:
	const std::string &file_;
	const toml::table &t_;
	std::string prefix_;
	std::set<std::string> known_;
};

void read_egress(Section &s, EgressConfig *e)
{
	e->rate_gbps = s.number("rate_gbps", e->rate_gbps, 0.0, 1000.0);
	e->queue_capacity = s.integer<uint32_t>("queue_capacity", e->queue_capacity, 1, 1 << 20);
	e->ecn_threshold = s.integer<uint32_t>("ecn_threshold", e->ecn_threshold, 0, 1 << 20);
	e->drop_rate = s.number("drop_rate", e->drop_rate, 0.0, 1.0);
}

std::vector<uint8_t> per_level(Section &s, const std::string &k, uint8_t levels, int64_t lo,
			       int64_t hi, uint8_t fill, bool required)
{
	auto v = s.int_array(k, lo, hi);
	if (!v) {
		if (required)
			s.missing(k);
		return std::vector<uint8_t>(INA_MAX_LEVELS, fill);
	}
	if (v->size() != levels)
		s.bad(k, "needs one entry per level (levels = " + std::to_string(levels) + "), got " +
				 std::to_string(v->size()));
	std::vector<uint8_t> out(INA_MAX_LEVELS, fill);
	for (size_t i = 0; i < v->size(); i++)
		out[i] = static_cast<uint8_t>((*v)[i]);
	return out;
}

/* The control-message keys of [switch]. The key is read from a file only:
 * a config is printed (--check-config), copied and committed, a key file
 * can stay private (mode 600). */
void read_control(Section &s, SwitchConfig *cfg)
{
	if (const toml::node *n = s.node("control_auth")) {
		auto v = n->value_exact<bool>();
		if (!v)
			s.bad("control_auth", "must be true or false");
		cfg->control_auth = *v;
	}
	cfg->control_window_s = s.integer<uint32_t>("control_window_s", cfg->control_window_s, 1, 86400);
	if (auto f = s.string("control_key_file")) {
		if (!cfg->control_auth)
			s.bad("control_key_file", "a key with control_auth = false: drop one of them");
		std::string path = *f, why;
		const size_t slash = s.file().rfind('/');
		if (!path.empty() && path[0] != '/' && slash != std::string::npos)
			path = s.file().substr(0, slash + 1) + path; /* relative to the config file */
		if (!ina::load_ctrl_key_file(path, &cfg->control_key, &why, &cfg->control_key_warning))
			s.bad("control_key_file", why);
		cfg->control_key_file = path;
	}
}

JobConfig read_job(Section &s)
{
	JobConfig j;
	j.id = s.integer<uint16_t>("id", 0, 1, 65535);
	if (!s.node("id"))
		s.missing("id");
	j.ps_ip = s.ip("ps_ip", true);
	j.ps_mac = s.mac("ps_mac", false);
	j.levels = s.integer<uint8_t>("levels", 1, 0, INA_MAX_LEVELS);
	auto fan = per_level(s, "fan_in", j.levels, 1, INA_BITMAP_BITS, 0, j.levels > 0);
	std::copy(fan.begin(), fan.end(), j.fan_in.begin());
	if (auto c = s.string("control")) {
		if (*c != "allow" && *c != "deny")
			s.bad("control", "must be \"allow\" or \"deny\", got \"" + *c + "\"");
		j.control_allowed = *c == "allow";
	}
	j.max_aggregators = s.integer<uint32_t>("max_aggregators", 0, 1, 1u << 24);
	auto workers = s.tables("worker");
	if (workers.empty() && s.raw().get("workers"))
		s.missing("worker"); /* the PS's old name */
	if (workers.empty())
		fail(s.file(), s.raw().source(), s.key("worker"), "a job needs at least one [[job.worker]]");
	if (workers.size() > 255)
		s.bad("worker", "at most 255 workers per job");
	std::set<uint32_t> ips;
	for (size_t i = 0; i < workers.size(); i++) {
		Section w(s.file(), *workers[i], s.key("worker[" + std::to_string(i) + "]"));
		JobWorker jw;
		jw.ip = w.ip("ip", true);
		jw.mac = w.mac("mac", false);
		auto bits = per_level(w, "bit", j.levels, 0, 255, 0xFF, j.levels > 0);
		for (unsigned l = 0; l < j.levels; l++) {
			if (bits[l] != 0xFF && bits[l] >= j.fan_in[l])
				w.bad("bit", "bit " + std::to_string(bits[l]) + " at level " +
						     std::to_string(l) + " is not below fan_in " +
						     std::to_string(j.fan_in[l]) + " (255 = not at this level)");
		}
		std::copy(bits.begin(), bits.end(), jw.bit.begin());
		if (!ips.insert(jw.ip).second)
			w.bad("ip", "worker " + ipv4_str(jw.ip) + " listed twice");
		w.finish();
		j.workers.push_back(jw);
	}
	return j;
}

/* [[goat]]: job = N, plan = "file" (ina-goat-plan's output; this switch's
 * part by switch.id) and/or aggregators = [[first, end], ...] (default with
 * a plan: the whole table). */
void read_goat(Section &top, SwitchConfig *cfg)
{
	auto goats = top.tables("goat");
	for (size_t i = 0; i < goats.size(); i++) {
		Section s(top.file(), *goats[i], "goat[" + std::to_string(i) + "]");
		GoatJobConfig g;
		g.job = s.integer<uint16_t>("job", 0, 1, 65535);
		if (!s.node("job"))
			s.missing("job");
		for (const GoatJobConfig &o : cfg->goat)
			if (o.job == g.job)
				s.bad("job", "job " + std::to_string(g.job) + " has two [[goat]] tables");
		auto plan = s.string("plan");
		const toml::node *ranges = s.node("aggregators");
		if (!plan && !ranges)
			fail(s.file(), s.raw().source(), s.key("plan"),
			     "give a plan (a file from ina-goat-plan), aggregators, or both");
		if (ranges) {
			const toml::array *a = ranges->as_array();
			if (!a)
				s.bad("aggregators", "must be an array of [first, end] pairs");
			for (const toml::node &e : *a) {
				const toml::array *pair = e.as_array();
				auto f = pair && pair->size() == 2 ? (*pair)[0].value_exact<int64_t>() : std::nullopt;
				auto l = pair && pair->size() == 2 ? (*pair)[1].value_exact<int64_t>() : std::nullopt;
				if (!f || !l || *f < 0 || *l < 0 || *f > UINT32_MAX || *l > UINT32_MAX)
					fail(s.file(), e.source(), s.key("aggregators"),
					     "each entry must be [first, end], two indices >= 0");
				g.ranges.push_back(GoatRange{uint32_t(*f), uint32_t(*l), 0, 0});
			}
			const std::string err = goat_check_ranges(&g.ranges, cfg->aggregators);
			if (!err.empty())
				s.bad("aggregators", err);
		}
		if (plan) {
			std::string path = *plan;
			const size_t slash = s.file().rfind('/');
			if (!path.empty() && path[0] != '/' && slash != std::string::npos)
				path = s.file().substr(0, slash + 1) + path; /* relative to the config file */
			const std::string err = goat_from_plan(path, cfg->switch_id, cfg->aggregators, &g);
			if (!err.empty())
				s.bad("plan", err);
		}
		for (const GoatJobConfig &o : cfg->goat)
			for (const GoatRange &a : o.ranges)
				for (const GoatRange &b : g.ranges)
					if (a.first < b.end && b.first < a.end)
						s.bad(plan ? "plan" : "aggregators",
						      "range [" + std::to_string(b.first) + ", " + std::to_string(b.end) +
							      ") overlaps job " + std::to_string(o.job) +
							      "'s: GOAT ranges are exclusive");
		s.finish();
		cfg->goat.push_back(std::move(g));
	}
}

/* [[job]]s: the jobs known at start. */
void read_jobs(Section &top, SwitchConfig *cfg)
{
	std::set<uint16_t> job_ids;
	auto jobs = top.tables("job");
	for (size_t i = 0; i < jobs.size(); i++) {
		Section s(top.file(), *jobs[i], "job[" + std::to_string(i) + "]");
		JobConfig j = read_job(s);
		if (j.ps_ip == cfg->ip)
			s.bad("ps_ip", "is the switch's own address (switch.ip); the PS is another host");
		if (!job_ids.insert(j.id).second)
			s.bad("id", "job " + std::to_string(j.id) + " defined twice");
		if (j.max_aggregators > cfg->aggregators)
			s.bad("max_aggregators", "above switch.aggregators (" + std::to_string(cfg->aggregators) + ")");
		if (j.max_aggregators == 0)
			j.max_aggregators = default_max_aggregators(*cfg);
		s.finish();
		cfg->jobs.push_back(std::move(j));
	}
}

/* [netreduce] with its [[netreduce.ring]]s: the RoCE-mode jobs. */
void read_netreduce(Section &top, SwitchConfig *cfg)
{
	const toml::table *t = top.table("netreduce");
	if (!t)
		return;
	Section s(top.file(), *t, "netreduce");
	cfg->netreduce.connections = s.integer<uint32_t>("connections", 1024, 2, 1u << 20);
	cfg->netreduce_clt_timeout_ms =
		s.integer<uint32_t>("clt_timeout_ms", cfg->netreduce_clt_timeout_ms, 0, 86400000);
	cfg->netreduce_lcore = s.integer<unsigned>("lcore", 0, 0, 1023);
	if (const toml::node *n = s.node("check_icrc")) {
		auto b = n->value_exact<bool>();
		if (!b)
			s.bad("check_icrc", "must be true or false");
		cfg->netreduce.check_icrc = *b;
	}
	auto rings = s.tables("ring");
	if (rings.empty())
		fail(s.file(), t->source(), s.key("ring"), "[netreduce] needs at least one [[netreduce.ring]]");
	for (size_t i = 0; i < rings.size(); i++) {
		Section r(s.file(), *rings[i], s.key("ring[" + std::to_string(i) + "]"));
		ina::NrRingConfig rc;
		rc.ring_id = r.integer<uint16_t>("id", 0, 0, 65535);
		if (!r.node("id"))
			r.missing("id");
		for (const ina::NrRingConfig &o : cfg->netreduce.rings)
			if (o.ring_id == rc.ring_id)
				r.bad("id", "ring " + std::to_string(rc.ring_id) + " configured twice");
		rc.ranks = r.integer<uint8_t>("ranks", 0, 2, NR_MAX_RANKS);
		if (!r.node("ranks"))
			r.missing("ranks");
		rc.window = r.integer<uint16_t>("window", 8, 1, 4096);
		rc.msg_len = r.integer<uint16_t>("msg_len", 16, 1, 4096);
		rc.mtu = r.integer<uint16_t>("mtu", 1024, 256, 4096);
		if (rc.mtu % 4 != 0)
			r.bad("mtu", "must be a multiple of 4 (whole 4-byte elements)");
		if (2ull * rc.window * rc.msg_len > (1u << 20))
			r.bad("window", "2 x window x msg_len must be at most 1048576 slots");
		if (auto ty = r.string("type")) {
			if (*ty != "float32" && *ty != "int32")
				r.bad("type", "must be \"float32\" or \"int32\", got \"" + printable(*ty) + "\"");
			rc.dtype = *ty == "int32" ? NR_DTYPE_INT32 : NR_DTYPE_FLOAT32;
		}
		r.finish();
		cfg->netreduce.rings.push_back(rc);
	}
	if (cfg->netreduce.connections < rings.size() * 2)
		s.bad("connections", "fewer CLT entries than the rings' connections need (2 per ring at least)");
	s.finish();
}

} /* namespace */

SwitchConfig load_config(const std::string &path)
{
	SwitchConfig cfg;
	cfg.path = path;
	std::string text, err;
	if (!ina::read_input_file(path, &text, &err))
		throw ConfigError(err);
	toml::table root;
	try {
		root = toml::parse(text, path);
	} catch (const toml::parse_error &e) {
		std::ostringstream os;
		os << path << ':' << e.source().begin.line << ':' << e.source().begin.column << ": "
		   << e.description();
		throw ConfigError(os.str());
	}

	Section top(path, root, "");
	const toml::table *sw = top.table("switch");
	if (!sw)
		fail(path, root.source(), "switch", "missing [switch] table");
	{
		Section s(path, *sw, "switch");
		cfg.switch_id = s.integer<uint16_t>("id", 1, 1, 65535);
		cfg.ip = s.ip("ip", true);
		cfg.mac = s.mac("mac", false);
		cfg.aggregators = s.integer<uint32_t>("aggregators", cfg.aggregators, 1, 1u << 24);
		cfg.elements = s.integer<uint16_t>("elements", cfg.elements, 1, INA_MAX_ELEMENTS);
		cfg.gc_timeout_ms = s.integer<uint32_t>("gc_timeout_ms", cfg.gc_timeout_ms, 0, 3600000);
		cfg.sweep_slots = s.integer<uint32_t>("sweep_slots", cfg.sweep_slots, 0, 4096);
		cfg.lease_refreshes = s.integer<uint32_t>("lease_refreshes", cfg.lease_refreshes, 0, 1000);
		cfg.job_share = s.number("job_share", cfg.job_share, 0.0, 1.0);
		if (cfg.job_share <= 0.0)
			s.bad("job_share", "must be above 0 (a fraction of aggregators, up to 1)");
		if (auto l = s.int_array("lcores", 0, 1023)) {
			if (l->empty())
				s.bad("lcores", "must list at least one CPU");
			std::set<int64_t> seen;
			for (int64_t c : *l) {
				if (!seen.insert(c).second)
					s.bad("lcores", "CPU " + std::to_string(c) + " listed twice");
				cfg.lcores.push_back(static_cast<unsigned>(c));
			}
			const auto &src = sw->get("lcores")->source();
			cfg.lcores_where = path + ":" + std::to_string(src.begin.line) + ":" +
					   std::to_string(src.begin.column);
		}
		cfg.stats_interval_s = s.integer<uint32_t>("stats_interval_s", cfg.stats_interval_s, 0, 86400);
		cfg.idle_sleep_us = s.integer<uint32_t>("idle_sleep_us", cfg.idle_sleep_us, 0, 100000);
		cfg.mbufs = s.integer<uint32_t>("mbufs", cfg.mbufs, 1023, 1u << 22);
		cfg.burst = s.integer<uint16_t>("burst", cfg.burst, 1, 256);
		cfg.rx_descriptors = s.integer<uint16_t>("rx_descriptors", cfg.rx_descriptors, 64, 16384);
		cfg.tx_descriptors = s.integer<uint16_t>("tx_descriptors", cfg.tx_descriptors, 64, 16384);
		cfg.handoff_ring_size =
			s.integer<uint32_t>("handoff_ring_size", cfg.handoff_ring_size, 64, 1u << 20);
		if ((cfg.handoff_ring_size & (cfg.handoff_ring_size - 1)) != 0)
			s.bad("handoff_ring_size", "must be a power of two");
		if (auto st = s.string("steering")) {
			if (*st != "auto" && *st != "software")
				s.bad("steering", "must be \"auto\" or \"software\", got \"" + *st + "\"");
			cfg.steering = *st;
		}
		read_control(s, &cfg);
		s.finish();
	}

	EgressConfig egress_default;
	if (const toml::table *eg = top.table("egress")) {
		Section s(path, *eg, "egress");
		read_egress(s, &egress_default);
		s.finish();
	}

	auto ports = top.tables("port");
	if (ports.empty())
		fail(path, root.source(), "port", "at least one [[port]] is required");
	if (ports.size() > 32)
		top.bad("port", "at most 32 ports");
	std::set<uint32_t> neighbour_ips;
	std::set<std::string> names;
	for (size_t i = 0; i < ports.size(); i++) {
		Section s(path, *ports[i], "port[" + std::to_string(i) + "]");
		PortConfig p;
		p.device = s.required_string("device");
		p.name = p.device.substr(0, p.device.find(','));
		if (p.name.empty())
			s.bad("device", "empty device name");
		p.is_vdev = p.name.rfind("net_", 0) == 0 || p.name.rfind("eth_", 0) == 0;
		if (!names.insert(p.name).second)
			s.bad("device", "port '" + p.name + "' listed twice");
		p.egress = egress_default;
		read_egress(s, &p.egress);
		auto nbs = s.tables("neighbour");
		for (size_t k = 0; k < nbs.size(); k++) {
			Section n(path, *nbs[k], s.key("neighbour[" + std::to_string(k) + "]"));
			Neighbour nb;
			nb.ip = n.ip("ip", true);
			nb.mac = n.mac("mac", true);
			if (!neighbour_ips.insert(nb.ip).second)
				n.bad("ip", "neighbour " + ipv4_str(nb.ip) + " is on two ports");
			n.finish();
			p.neighbours.push_back(nb);
		}
		s.finish();
		cfg.ports.push_back(std::move(p));
	}

	read_jobs(top, &cfg);
	read_goat(top, &cfg);
	read_netreduce(top, &cfg);
	top.finish();
	return cfg;
}

} /* namespace switchd */
