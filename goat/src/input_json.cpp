/*
 * Topology and model JSON -> planner structs. Every check throws InputError
 * with the path of the bad value, so the CLI can print one useful line.
 */
#include "ina/goat.h"

#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

namespace ina::goat {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string &where, const std::string &what)
{
	throw InputError(where + ": " + what);
}

const json &member(const json &obj, const std::string &where, const char *key)
{
	if (!obj.is_object())
		fail(where, "expected an object");
	auto it = obj.find(key);
	if (it == obj.end())
		fail(where, std::string("missing key '") + key + "'");
	return *it;
}

const json &array_member(const json &obj, const std::string &where, const char *key)
{
	const json &v = member(obj, where, key);
	if (!v.is_array())
		fail(where + "." + key, "expected an array");
	return v;
}

std::string name_of(const json &obj, const std::string &where)
{
	const json &v = member(obj, where, "name");
	if (!v.is_string() || v.get<std::string>().empty())
		fail(where + ".name", "expected a non-empty string");
	return v.get<std::string>();
}

/* Distances are hop counts in the paper; any finite value >= 0 is accepted. */
double distance(const json &v, const std::string &where)
{
	if (!v.is_number())
		fail(where, "expected a number");
	double d = v.get<double>();
	if (!std::isfinite(d) || d < 0)
		fail(where, "expected a finite distance >= 0");
	return d;
}

uint64_t count(const json &v, const std::string &where, uint64_t min, uint64_t max)
{
	if (v.is_number_float() || !v.is_number())
		fail(where, "expected an integer");
	if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0)
		fail(where, "must not be negative");
	uint64_t n = v.get<uint64_t>();
	if (n < min || n > max)
		fail(where, "out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
	return n;
}

/* Sizes reach the LP as doubles; 2^50 bytes keeps them exact. */
constexpr uint64_t kMaxBytes = uint64_t(1) << 50;

} // namespace

Topology topology_from_json(const json &j)
{
	Topology t;
	if (!j.is_object())
		fail("topology", "expected an object");
	if (j.contains("ps")) {
		if (!j["ps"].is_string() || j["ps"].get<std::string>().empty())
			fail("topology.ps", "expected a non-empty string");
		t.ps_name = j["ps"].get<std::string>();
	}

	std::unordered_map<std::string, size_t> switch_index;
	std::set<uint16_t> ids;
	const json &sw = array_member(j, "topology", "switches");
	for (size_t i = 0; i < sw.size(); i++) {
		std::string where = "topology.switches[" + std::to_string(i) + "]";
		Switch s;
		s.name = name_of(sw[i], where);
		s.id = uint16_t(count(member(sw[i], where, "id"), where + ".id", 1, 65535));
		s.memory_bytes = count(member(sw[i], where, "memory_bytes"), where + ".memory_bytes",
				       0, kMaxBytes);
		s.distance_to_ps = distance(member(sw[i], where, "distance_to_ps"),
					    where + ".distance_to_ps");
		if (s.name == t.ps_name || !switch_index.emplace(s.name, i).second)
			fail(where + ".name", "duplicate node name '" + s.name + "'");
		if (!ids.insert(s.id).second)
			fail(where + ".id", "duplicate switch id " + std::to_string(s.id));
		t.switches.push_back(s);
	}

	std::set<std::string> worker_names;
	const json &wk = array_member(j, "topology", "workers");
	if (wk.empty())
		fail("topology.workers", "needs at least one worker");
	for (size_t i = 0; i < wk.size(); i++) {
		std::string where = "topology.workers[" + std::to_string(i) + "]";
		Worker w;
		w.name = name_of(wk[i], where);
		if (!worker_names.insert(w.name).second)
			fail(where + ".name", "duplicate worker name '" + w.name + "'");
		const json &dist = member(wk[i], where, "distance");
		if (!dist.is_object())
			fail(where + ".distance", "expected an object {node name: hops}");
		/* D_w(s) for every s in S and D_w(alpha): the paper's model needs all. */
		w.distance_to_switch.assign(t.switches.size(), -1);
		bool have_ps = false;
		for (auto it = dist.begin(); it != dist.end(); ++it) {
			std::string key_where = where + ".distance." + it.key();
			double d = distance(it.value(), key_where);
			if (it.key() == t.ps_name) {
				w.distance_to_ps = d;
				have_ps = true;
				continue;
			}
			auto s = switch_index.find(it.key());
			if (s == switch_index.end())
				fail(key_where, "unknown switch '" + it.key() + "'");
			w.distance_to_switch[s->second] = d;
		}
		if (!have_ps)
			fail(where + ".distance", "missing the PS '" + t.ps_name + "'");
		for (size_t s = 0; s < t.switches.size(); s++)
			if (w.distance_to_switch[s] < 0)
				fail(where + ".distance",
				     "missing switch '" + t.switches[s].name + "'");
		t.workers.push_back(std::move(w));
	}
	return t;
}

Model model_from_json(const json &j)
{
	Model m;
	if (!j.is_object())
		fail("model", "expected an object");
	if (j.contains("name")) {
		if (!j["name"].is_string())
			fail("model.name", "expected a string");
		m.name = j["name"].get<std::string>();
	}
	if (j.contains("element_bytes"))
		m.element_bytes = uint32_t(count(j["element_bytes"], "model.element_bytes", 1, 64));

	std::set<std::string> names;
	const json &subs = array_member(j, "model", "submodels");
	if (subs.empty())
		fail("model.submodels", "needs at least one sub-model");
	uint64_t next_element = 0;
	for (size_t i = 0; i < subs.size(); i++) {
		std::string where = "model.submodels[" + std::to_string(i) + "]";
		SubModel g;
		g.name = name_of(subs[i], where);
		if (!names.insert(g.name).second)
			fail(where + ".name", "duplicate sub-model name '" + g.name + "'");
		/* Exactly one of elements / bytes: two sizes could disagree. */
		bool has_elements = subs[i].contains("elements");
		bool has_bytes = subs[i].contains("bytes");
		if (has_elements == has_bytes)
			fail(where, "needs exactly one of 'elements' and 'bytes'");
		if (has_elements) {
			g.elements = count(subs[i]["elements"], where + ".elements", 1,
					   kMaxBytes / m.element_bytes);
		} else {
			uint64_t bytes = count(subs[i]["bytes"], where + ".bytes", 1, kMaxBytes);
			if (bytes % m.element_bytes != 0)
				fail(where + ".bytes", "not a multiple of element_bytes");
			g.elements = bytes / m.element_bytes;
		}
		g.bytes = g.elements * m.element_bytes;
		g.first_element = next_element;
		next_element += g.elements;
		if (next_element > kMaxBytes)
			fail(where, "model too large");
		m.submodels.push_back(std::move(g));
	}
	return m;
}

} // namespace ina::goat
