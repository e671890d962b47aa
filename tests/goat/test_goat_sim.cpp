/*
 * sim/goat_sim: the parts of the §IV-C model checked directly (topologies,
 * the model partition, the aggregator-slot replay), then the simulator run
 * in --quick mode with the invariants its table must keep.
 */
#include "aggregator_slots.h"
#include "model_partition.h"
#include "network.h"
#include "scenario.h"

#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

using namespace goat_sim;

namespace {

TEST(GoatSimNetwork, LeafSpineHopsAndSize)
{
	const Network n = Network::leaf_spine(10, 10, 50);
	EXPECT_EQ(n.switches().size(), 20u);
	ASSERT_EQ(n.servers().size(), 50u);
	const std::vector<int> d = n.distances_from(n.servers()[0]);
	EXPECT_EQ(d[size_t(n.servers()[1])], 2);  /* same leaf */
	EXPECT_EQ(d[size_t(n.servers()[49])], 4); /* leaf, spine, leaf */
	for (int s : n.servers())
		EXPECT_LE(d[size_t(s)], 4);
}

TEST(GoatSimNetwork, FatTreeHasThePapersCounts)
{
	const Network n = Network::fat_tree(8, 6);
	EXPECT_EQ(n.switches().size(), 80u);
	ASSERT_EQ(n.servers().size(), 192u);
	const std::vector<int> d = n.distances_from(n.servers()[0]);
	EXPECT_EQ(d[size_t(n.servers()[5])], 2);   /* same edge switch */
	EXPECT_EQ(d[size_t(n.servers()[6])], 4);   /* same pod */
	EXPECT_EQ(d[size_t(n.servers()[191])], 6); /* another pod, via a core */
}

TEST(GoatSimNetwork, EcmpPathIsAShortestPath)
{
	const Network n = Network::fat_tree(8, 6);
	const int to = n.servers()[100];
	const std::vector<int> dist = n.distances_from(to);
	std::mt19937_64 rng(7);
	for (int from : n.servers()) {
		const std::vector<int> p = n.ecmp_path(from, to, dist, rng);
		ASSERT_EQ(int(p.size()) - 1, dist[size_t(from)]);
		EXPECT_EQ(p.front(), from);
		EXPECT_EQ(p.back(), to);
	}
}

TEST(GoatSimScenario, DrawsTwentyPercentProgrammableAndNestedWorkers)
{
	ScenarioConfig cfg;
	cfg.topology = "fat-tree";
	const Scenario sc(cfg);
	const Instance small = sc.instance(20), large = sc.instance(40);
	EXPECT_EQ(large.programmable.size(), 16u); /* 20 % of 80 */
	for (size_t w = 0; w < small.workers.size(); w++) {
		EXPECT_EQ(small.workers[w], large.workers[w]);
		EXPECT_NE(small.workers[w], small.ps);
		EXPECT_GT(small.rate_ratio[w], 0.0);
		EXPECT_LE(small.rate_ratio[w], 1.0);
	}
	EXPECT_THROW(sc.instance(192), std::invalid_argument); /* 191 servers besides the PS */
	cfg.topology = "torus";
	EXPECT_THROW(Scenario{cfg}, std::invalid_argument);
}

TEST(GoatSimModel, AlexNetPartitionCoversTheGradient)
{
	const uint64_t gradient = 221000000, frag = 256, max = 16000000;
	const ina::goat::Model m = alexnet_partition(gradient, max, frag);
	uint64_t next = 0, bytes = 0;
	for (size_t g = 0; g < m.submodels.size(); g++) {
		const ina::goat::SubModel &s = m.submodels[g];
		EXPECT_EQ(s.first_element, next);
		EXPECT_LE(s.bytes, max) << s.name;
		if (g + 1 < m.submodels.size()) {
			EXPECT_EQ(s.bytes % frag, 0u) << s.name;
		}
		next += s.elements;
		bytes += s.bytes;
	}
	EXPECT_EQ(bytes, gradient);
	/* fc6 (62 % of AlexNet) is larger than a 64 MB switch: it must be split. */
	EXPECT_GE(m.submodels.size(), 15u);
	EXPECT_THROW(alexnet_partition(221000001, max, frag), std::invalid_argument);
}

TEST(GoatSimSlots, HandReplayedCollision)
{
	/* One slot, three fragments; worker A sends one per second, B one
	 * per 2.5 s. f0: both at t=0, merged. f1: A at 1 holds the slot;
	 * f2 from A at 2 collides (to the PS); B's f1 at 2.5 completes it;
	 * B's f2 at 5 takes the free slot alone. */
	Fragments fr;
	fr.fragment_bytes = 100;
	fr.gradient_bytes = 300;
	SlotStream s;
	s.seconds_per_fragment = {2.5, 1.0};
	s.end = 3;
	const SlotTally t = replay_slots(1, {s}, fr);
	EXPECT_EQ(t.arrived_bytes, 600u);
	EXPECT_EQ(t.merged_bytes, 400u);
	EXPECT_EQ(t.alone_bytes, 100u);
	EXPECT_EQ(t.bypass_bytes, 100u);
	EXPECT_EQ(t.collisions, 1u);
	EXPECT_EQ(t.output_bytes, 300u); /* one result per slot use */
}

TEST(GoatSimSlots, EqualRatesNeverCollide)
{
	Fragments fr;
	fr.fragment_bytes = 256;
	fr.gradient_bytes = 1000000; /* 3907 fragments, the last 64 B */
	SlotStream s;
	s.seconds_per_fragment = {1e-6, 1e-6, 1e-6};
	s.end = fr.count();
	const SlotTally t = replay_slots(1000, {s}, fr);
	EXPECT_EQ(t.collisions, 0u);
	EXPECT_EQ(t.merged_bytes, 3 * fr.gradient_bytes);
	EXPECT_EQ(t.output_bytes, fr.gradient_bytes);
}

TEST(GoatSimSlots, OverlappingExclusiveRegionsCollide)
{
	/* Two sub-models given the same slots: the replay must notice. */
	Fragments fr;
	fr.fragment_bytes = 4;
	fr.gradient_bytes = 80;
	SlotStream a, b;
	a.seconds_per_fragment = b.seconds_per_fragment = {1.0, 3.0};
	a.first = 0, a.end = 10, a.slot_base = 0;
	b.first = 10, b.end = 20, b.slot_base = 5; /* overlaps a's slots 5..9 */
	const SlotTally t = replay_slots(20, {a, b}, fr);
	EXPECT_GT(t.collisions, 0u);
	b.slot_base = 10;
	EXPECT_EQ(replay_slots(20, {a, b}, fr).collisions, 0u);
}

/* Runs goat-sim; returns its exit status, stdout in *out. */
int run_sim(const std::string &args, std::string *out)
{
	const char *bin = std::getenv("INA_GOAT_SIM");
	const std::string cmd = std::string(bin) + " " + args + " 2>&1";
	FILE *f = popen(cmd.c_str(), "r");
	if (!f)
		return -1;
	char buf[4096];
	size_t n;
	out->clear();
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		out->append(buf, n);
	const int st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

class GoatSimRun : public ::testing::Test {
protected:
	void SetUp() override
	{
		if (!std::getenv("INA_GOAT_SIM"))
			GTEST_SKIP() << "INA_GOAT_SIM not set (run via meson test)";
	}
};

TEST_F(GoatSimRun, QuickSweepKeepsThePapersInvariants)
{
	std::string out;
	ASSERT_EQ(run_sim("--quick --json --seed 3", &out), 0) << out;
	/* (topology, workers) -> scheme -> line */
	std::map<std::pair<std::string, int>, std::map<std::string, nlohmann::json>> rows;
	std::istringstream lines(out);
	std::string line;
	while (std::getline(lines, line)) {
		const nlohmann::json j = nlohmann::json::parse(line);
		rows[{j.at("topology").get<std::string>(), j.at("workers").get<int>()}]
		    [j.at("scheme").get<std::string>()] = j;
	}
	ASSERT_EQ(rows.size(), 3u) << out; /* leaf-spine 10, 35; fat-tree 40 */
	uint64_t atp_collisions = 0;
	for (const auto &[key, by_scheme] : rows) {
		const std::string where = key.first + " " + std::to_string(key.second);
		ASSERT_EQ(by_scheme.size(), 3u) << where;
		for (const auto &[scheme, j] : by_scheme) {
			const uint64_t total = j.at("total_bytes"), ps = j.at("ps_bytes"),
				       ina = j.at("ina_bytes");
			EXPECT_EQ(total, uint64_t(key.second) * 221000000u) << where << " " << scheme;
			EXPECT_EQ(ps + ina, total) << where << " " << scheme; /* bytes conserved */
			EXPECT_GE(uint64_t(j.at("ps_rx_bytes")), ps) << where << " " << scheme;
			EXPECT_LE(uint64_t(j.at("max_switch_bytes")), 64000000u) << where << " " << scheme;
		}
		const nlohmann::json &goat = by_scheme.at("goat"), &atp = by_scheme.at("atp"),
				     &none = by_scheme.at("none");
		EXPECT_EQ(uint64_t(none.at("ina_bytes")), 0u) << where;
		/* The paper's claim (Fig. 10): GOAT <= ATP <= no aggregation at the PS. */
		EXPECT_LE(uint64_t(goat.at("ps_bytes")), uint64_t(atp.at("ps_bytes"))) << where;
		EXPECT_LE(uint64_t(atp.at("ps_bytes")), uint64_t(none.at("ps_bytes"))) << where;
		/* Exclusive slots: a plan that fits never collides. */
		EXPECT_EQ(uint64_t(goat.at("collisions")), 0u) << where;
		EXPECT_GT(double(goat.at("plan_seconds")), 0.0) << where;
		EXPECT_LT(double(goat.at("comm_byte_hops")), double(none.at("comm_byte_hops"))) << where;
		atp_collisions += uint64_t(atp.at("collisions"));
	}
	/* Unequal rates must make ATP's shared slots collide somewhere. */
	EXPECT_GT(atp_collisions, 0u);

	std::string again;
	ASSERT_EQ(run_sim("--quick --json --seed 3", &again), 0);
	auto strip_times = [](std::string s) {
		std::string r;
		std::istringstream in(s);
		for (std::string l; std::getline(in, l);) {
			nlohmann::json j = nlohmann::json::parse(l);
			j.erase("plan_seconds"), j.erase("lp_seconds"), j.erase("krgs_seconds");
			r += j.dump() + "\n";
		}
		return r;
	};
	EXPECT_EQ(strip_times(again), strip_times(out)) << "the same seed must give the same run";
}

TEST_F(GoatSimRun, EqualRatesLeaveAtpWithoutCollisions)
{
	/* The paper's Fig. 13 at sd 0: every worker at the same rate, ATP
	 * aggregates everything its first switch is expected to. */
	std::string out;
	ASSERT_EQ(run_sim("--quick --json --topology leaf-spine --workers 35 --rate-sd 0", &out), 0)
		<< out;
	bool seen = false;
	std::istringstream lines(out);
	for (std::string line; std::getline(lines, line);) {
		const nlohmann::json j = nlohmann::json::parse(line);
		if (j.at("scheme") != "atp")
			continue;
		seen = true;
		EXPECT_EQ(uint64_t(j.at("collisions")), 0u);
		EXPECT_GT(uint64_t(j.at("ina_bytes")), 0u);
	}
	EXPECT_TRUE(seen) << out;
}

TEST_F(GoatSimRun, BadInputIsOneLineAndExitTwo)
{
	for (const char *args : {"--topology leaf-spine --workers 50", "--topology torus",
				 "--fragment-bytes 6", "--rate-sd nan", "--bogus", "--workers 0",
				 "--fragment-bytes 1048576 --switch-memory-mb 0.5"}) {
		std::string out;
		EXPECT_EQ(run_sim(args, &out), 2) << args << ": " << out;
		EXPECT_EQ(out.rfind("goat-sim: error: ", 0), 0u) << args << ": " << out;
		EXPECT_EQ(out.find('\n'), out.size() - 1) << args << ": " << out;
	}
}

} // namespace
