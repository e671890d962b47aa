/* SPDX-License-Identifier: BSD-3-Clause
 * Reading a plan and each installer's part of it (ina/goat_plan.h): the
 * checks, the layout of split sub-models, and that what switchd/ina-ps
 * install and what ina-worker sends agree on random plans. */
#include <gtest/gtest.h>

#include <random>

#include <nlohmann/json.hpp>

#include "ina/goat_plan.h"

using namespace ina;
using nlohmann::json;

namespace {

/* A plan in ina-goat-plan's format: node[w][g] per worker and sub-model,
 * `elements` per sub-model, switch ids 1..switches (each holding what some
 * worker sends it). */
std::string plan_text(const std::vector<std::vector<uint16_t>> &node, uint64_t elements, uint16_t switches)
{
	const size_t subs = node[0].size();
	json p;
	for (size_t g = 0; g < subs; g++)
		p["submodels"].push_back({{"name", "g" + std::to_string(g)},
					  {"first_element", g * elements},
					  {"end_element", (g + 1) * elements}});
	for (uint16_t s = 1; s <= switches; s++) {
		json held = json::array();
		for (size_t g = 0; g < subs; g++)
			for (const auto &n : node)
				if (n[g] == s) {
					held.push_back("g" + std::to_string(g));
					break;
				}
		p["switches"].push_back({{"name", "s" + std::to_string(s)}, {"id", s}, {"submodels", held}});
	}
	for (size_t w = 0; w < node.size(); w++) {
		json ranges = json::array();
		for (size_t g = 0; g < subs; g++)
			ranges.push_back({{"submodel", "g" + std::to_string(g)},
					  {"first_element", g * elements},
					  {"end_element", (g + 1) * elements},
					  {"agg_node", node[w][g]}});
		p["workers"].push_back({{"name", "w" + std::to_string(w)}, {"ranges", ranges}});
	}
	return json{{"plan", p}}.dump();
}

GoatPlan parse(const std::string &text)
{
	GoatPlan p;
	const std::string err = goat_plan_parse(text, &p);
	EXPECT_EQ(err, "");
	return p;
}

GoatSlots whole(uint16_t) { return GoatSlots{0, 512, 0, 0}; }

} /* namespace */

TEST(GoatPlan, WholeSubModelsKeepTheGivenRanges)
{
	const GoatPlan p = parse(plan_text({{1, 2, 1}, {1, 2, 1}}, 100, 2));
	EXPECT_EQ(p.round(), 300u);
	GoatSwitchPart part;
	ASSERT_EQ(goat_switch_part(p, 1, {GoatSlots{0, 100, 0, 0}, GoatSlots{400, 512, 0, 0}}, &part), "");
	EXPECT_EQ(part.submodels, (std::vector<std::string>{"g0", "g2"}));
	ASSERT_EQ(part.slots.size(), 2u) << "no split: the job's ranges as given";
	EXPECT_EQ(part.slots[1].first, 400u);
	EXPECT_EQ(part.slots[1].fan_in, 0u);
	std::vector<GoatRoute> r;
	ASSERT_EQ(goat_worker_routes(p, 1, whole, &r), "");
	ASSERT_EQ(r.size(), 3u);
	EXPECT_EQ(r[1].node, 2);
	EXPECT_EQ(r[1].end_element, 200u);
	EXPECT_EQ(r[1].end, 512u);
	EXPECT_EQ(goat_switch_part(p, 9, {whole(0)}, &part), "the plan has no switch with id 9 (switch.id)");
}

TEST(GoatPlan, SplitSubModelsGetARunWithTheirChildren)
{
	/* g1: w0, w1 -> 1, w2 -> 2; g2: w0 -> 2, w1, w2 -> PS; g0 and g3 whole. */
	const GoatPlan p = parse(plan_text({{1, 1, 2, 2}, {1, 1, 0, 2}, {1, 2, 0, 2}}, 62, 2));
	GoatSwitchPart s1, s2;
	ASSERT_EQ(goat_switch_part(p, 1, {GoatSlots{0, 300, 0, 0}}, &s1), "");
	ASSERT_EQ(goat_switch_part(p, 2, {GoatSlots{0, 300, 0, 0}}, &s2), "");
	/* Two signatures: three parts of 100. */
	ASSERT_EQ(s1.slots.size(), 2u);
	EXPECT_EQ(s1.slots[0].first, 0u);
	EXPECT_EQ(s1.slots[0].end, 100u);
	EXPECT_EQ(s1.slots[0].fan_in, 2);
	EXPECT_EQ(s1.slots[0].children, 0b011u);
	EXPECT_EQ(s1.slots[1].first, 200u) << "its whole sub-model g0 in the last part";
	EXPECT_EQ(s1.slots[1].fan_in, 0);
	ASSERT_EQ(s2.slots.size(), 3u);
	EXPECT_EQ(s2.slots[0].children, 0b100u);
	EXPECT_EQ(s2.slots[1].first, 100u);
	EXPECT_EQ(s2.slots[1].children, 0b001u) << "g2: w0 only";
	EXPECT_EQ(s2.slots[2].first, 200u) << "g3, whole";
	/* Worker 2 sends g2 to the PS with switch 2's index run for g2. */
	std::vector<GoatRoute> r;
	auto span = [](uint16_t) { return GoatSlots{0, 300, 0, 0}; };
	ASSERT_EQ(goat_worker_routes(p, 2, span, &r), "");
	EXPECT_EQ(r[2].node, 0);
	EXPECT_EQ(r[2].first, 100u);
	EXPECT_EQ(r[2].end, 200u);
	EXPECT_EQ(r[3].first, 200u);
	EXPECT_EQ(r[3].end, 300u);

	EXPECT_NE(goat_switch_part(p, 1, {GoatSlots{0, 10, 0, 0}, GoatSlots{20, 30, 0, 0}}, &s1)
			  .find("needs one range of aggregators for the job, not 2"),
		  std::string::npos);
	EXPECT_NE(goat_switch_part(p, 1, {GoatSlots{0, 2, 0, 0}}, &s1).find("cannot be cut into the 3 parts"),
		  std::string::npos);
	auto uneven = [](uint16_t id) { return GoatSlots{0, id == 1 ? 300u : 512u, 0, 0}; };
	EXPECT_NE(goat_worker_routes(p, 0, uneven, &r).find("give the job different aggregators"),
		  std::string::npos);
}

TEST(GoatPlan, BadPlansAreOneLineErrors)
{
	GoatPlan p;
	EXPECT_EQ(goat_plan_parse("{", &p).rfind("not JSON: ", 0), 0u);
	std::string t = plan_text({{1, 2}, {1, 2}}, 10, 2);
	json j = json::parse(t);
	j["plan"]["workers"][1]["ranges"][0]["agg_node"] = 2;
	EXPECT_EQ(goat_plan_parse(j.dump(), &p),
		  "plan.workers[1].ranges[0]: agg_node 2 is not a switch of the plan that holds 'g0'");
	j = json::parse(t);
	j["plan"]["workers"][0]["ranges"].erase(1);
	EXPECT_EQ(goat_plan_parse(j.dump(), &p), "plan.workers[0]: 1 ranges for 2 sub-models");
	j = json::parse(t);
	j["plan"]["submodels"][1]["first_element"] = 11;
	EXPECT_EQ(goat_plan_parse(j.dump(), &p),
		  "plan.submodels[1]: element range [11, 20) does not follow the previous sub-model");
	j = json::parse(t);
	j["plan"]["switches"][1]["id"] = 1;
	EXPECT_EQ(goat_plan_parse(j.dump(), &p), "plan.switches[1]: a second switch with id 1");
	/* 33 workers cannot be a split's children. */
	std::vector<std::vector<uint16_t>> many(33, std::vector<uint16_t>{1});
	many[0][0] = 0;
	p = parse(plan_text(many, 10, 1));
	GoatSwitchPart part;
	EXPECT_NE(goat_switch_part(p, 1, {whole(1)}, &part).find("at most 32 workers"), std::string::npos);
	EXPECT_NE(goat_plan_read("/nonexistent.json", &p).find("cannot open"), std::string::npos);
}

/* Random plans: every fragment a worker sends to a switch falls in one of
 * that switch's ranges, whose children (or, fan-in 0, everyone) include the
 * worker; the workers a range takes are exactly those that send there; a
 * split sub-model uses the same run at every node. */
TEST(GoatPlan, SwitchesAndWorkersAgreeOnRandomPlans)
{
	std::mt19937 rng(7);
	for (int trial = 0; trial < 300; trial++) {
		const size_t workers = 1 + rng() % 8, subs = 1 + rng() % 6;
		const uint16_t switches = static_cast<uint16_t>(1 + rng() % 3);
		std::vector<std::vector<uint16_t>> node(workers, std::vector<uint16_t>(subs));
		for (size_t g = 0; g < subs; g++) {
			const bool split = rng() % 2;
			const uint16_t one = static_cast<uint16_t>(rng() % (switches + 1));
			for (size_t w = 0; w < workers; w++)
				node[w][g] = split ? static_cast<uint16_t>(rng() % (switches + 1)) : one;
		}
		const GoatPlan p = parse(plan_text(node, 50, switches));
		std::vector<GoatSwitchPart> parts(switches + 1);
		for (uint16_t s = 1; s <= switches; s++)
			ASSERT_EQ(goat_switch_part(p, s, {whole(s)}, &parts[s]), "");
		std::vector<std::vector<GoatRoute>> routes(workers);
		for (size_t w = 0; w < workers; w++)
			ASSERT_EQ(goat_worker_routes(p, w, whole, &routes[w]), "");
		for (size_t g = 0; g < subs; g++) {
			uint32_t senders[4] = {};
			for (size_t w = 0; w < workers; w++)
				senders[node[w][g]] |= 1u << w;
			const bool split = std::count(std::begin(senders), std::end(senders), 0u) < 3;
			for (size_t w = 0; w < workers; w++) {
				const GoatRoute &r = routes[w][g];
				ASSERT_EQ(r.node, node[w][g]);
				if (!r.node) {
					EXPECT_EQ(r.end > r.first, split) << "to the PS: the switches' run when split";
					continue;
				}
				const GoatSwitchPart &sp = parts[r.node];
				auto it = std::find_if(sp.slots.begin(), sp.slots.end(), [&](const GoatSlots &s) {
					return s.first == r.first && s.end == r.end;
				});
				ASSERT_NE(it, sp.slots.end()) << "trial " << trial << ": worker " << w << " sub-model " << g;
				if (split) {
					EXPECT_EQ(it->children, senders[r.node]);
					EXPECT_EQ(it->fan_in, __builtin_popcount(senders[r.node]));
				} else {
					EXPECT_EQ(it->fan_in, 0);
				}
				for (size_t v = 0; v < workers && split; v++) {
					EXPECT_EQ(routes[v][g].first, r.first) << "one run per split sub-model";
				}
			}
		}
		for (uint16_t s = 1; s <= switches; s++)
			for (size_t i = 1; i < parts[s].slots.size(); i++)
				EXPECT_LE(parts[s].slots[i - 1].end, parts[s].slots[i].first) << "disjoint, in order";
	}
}
