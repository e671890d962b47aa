/*
 * GOAT planner tests. The objective is the paper's maximisation form, Eq. (4)
 * (aggregated traffic), so on every instance LP >= ILP >= KRGS must hold.
 */
#include "ina/goat.h"
#include "krgs.h" /* goat/src: min_max_bins */

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
using namespace ina::goat;

namespace {

struct Instance {
	Topology topo;
	Model model;
};

/* Small random instances the ILP solves in milliseconds. `tightness` scales
 * switch memory relative to the model: small values force memory repairs. */
Instance random_instance(uint64_t seed, double tightness = 1.0)
{
	std::mt19937_64 rng(seed);
	auto uni = [&](int lo, int hi) { return lo + int(rng() % uint64_t(hi - lo + 1)); };
	Instance in;
	const int S = uni(2, 4), W = uni(2, 6), G = uni(3, 8);
	uint64_t next = 0, total = 0;
	for (int g = 0; g < G; g++) {
		SubModel sm;
		sm.name = "g" + std::to_string(g);
		sm.elements = uint64_t(uni(100, 5000));
		sm.bytes = sm.elements * 4;
		sm.first_element = next;
		next += sm.elements;
		total += sm.bytes;
		in.model.submodels.push_back(sm);
	}
	for (int s = 0; s < S; s++) {
		Switch sw;
		sw.name = "s" + std::to_string(s + 1);
		sw.id = uint16_t(s + 1);
		sw.memory_bytes = uint64_t(double(total) * tightness * uni(15, 60) / 100.0);
		sw.distance_to_ps = uni(1, 3);
		in.topo.switches.push_back(sw);
	}
	for (int w = 0; w < W; w++) {
		Worker wk;
		wk.name = "w" + std::to_string(w + 1);
		for (int s = 0; s < S; s++)
			wk.distance_to_switch.push_back(uni(1, 4));
		wk.distance_to_ps = uni(2, 5);
		in.topo.workers.push_back(wk);
	}
	return in;
}

/* Every constraint of Eq. (1) on an integral plan. */
void expect_feasible(const Instance &in, const Assignment &a, const char *what)
{
	const std::vector<uint64_t> load = switch_load(in.model, a);
	for (size_t s = 0; s < in.topo.switches.size(); s++)
		EXPECT_LE(load[s], in.topo.switches[s].memory_bytes) << what << " switch " << s;
	for (size_t w = 0; w < in.topo.workers.size(); w++)
		for (size_t g = 0; g < in.model.submodels.size(); g++) {
			int n = a.node[w][g];
			if (n == kToPs)
				continue;
			ASSERT_GE(n, 0);
			ASSERT_LT(size_t(n), in.topo.switches.size());
			EXPECT_TRUE(a.aggregates[g][size_t(n)]) << what << ": y <= x broken";
		}
}

double tol(double a, double b) { return 1e-6 * std::max({1.0, std::abs(a), std::abs(b)}); }

} // namespace

TEST(GoatBins, MinMaxSumIsExactOnSmallInputs)
{
	/* Greedy (LPT) gives {0.6,0.4,0.3}=1.3 / {0.5,0.5}=1.0; the best split
	 * is {0.6,0.5} / {0.5,0.4,0.3}, max sum 1.2. */
	std::vector<double> w{0.6, 0.5, 0.5, 0.4, 0.3};
	auto bins = detail::min_max_bins(w, 2);
	ASSERT_EQ(bins.size(), 2u);
	double worst = 0;
	size_t items = 0;
	for (const auto &b : bins) {
		double sum = 0;
		for (size_t i : b)
			sum += w[i];
		worst = std::max(worst, sum);
		items += b.size();
	}
	EXPECT_EQ(items, w.size());
	EXPECT_NEAR(worst, 1.2, 1e-12);
	EXPECT_TRUE(detail::min_max_bins(w, 0).empty());
}

TEST(GoatPlan, LpIlpKrgsOrderMemoryAndRatio)
{
	constexpr int kInstances = 100;
	double ratio_min = 1e9, ratio_sum = 0;
	int ratios = 0;
	unsigned repairs = 0, moves = 0, filled = 0;
	double lp_max = 0, krgs_max = 0, ilp_max = 0, lp_sum = 0, krgs_sum = 0, ilp_sum = 0;
	for (int i = 0; i < kInstances; i++) {
		const Instance in = random_instance(1000 + uint64_t(i));
		Options opt;
		opt.seed = uint64_t(i);
		opt.solve_ilp = true;
		const Plan p = make_plan(in.topo, in.model, opt);
		ASSERT_TRUE(p.ilp && p.ilp_values);
		ASSERT_TRUE(p.ilp_optimal) << "instance " << i;
		const double lp = p.lp_value, ilp = p.ilp_values->aggregated_traffic,
			     krgs = p.krgs_values.aggregated_traffic;
		EXPECT_GE(lp + tol(lp, ilp), ilp) << "instance " << i;
		EXPECT_GE(ilp + tol(ilp, krgs), krgs) << "instance " << i;
		expect_feasible(in, p.krgs, "krgs");
		expect_feasible(in, *p.ilp, "ilp");
		if (ilp > 0) {
			ratio_min = std::min(ratio_min, krgs / ilp);
			ratio_sum += krgs / ilp;
			ratios++;
		}
		repairs += p.memory_repairs;
		moves += p.memory_moves;
		filled += p.filled;
		lp_max = std::max(lp_max, p.lp_seconds);
		krgs_max = std::max(krgs_max, p.krgs_seconds);
		ilp_max = std::max(ilp_max, p.ilp_seconds);
		lp_sum += p.lp_seconds;
		krgs_sum += p.krgs_seconds;
		ilp_sum += p.ilp_seconds;
	}
	ASSERT_GT(ratios, kInstances / 2);
	std::printf("KRGS/ILP over %d instances (ILP > 0): min %.3f mean %.3f; "
		    "memory repairs %u (moved %u), filled %u\n",
		    ratios, ratio_min, ratio_sum / ratios, repairs, moves, filled);
	/* docs/goat.md, "Measured": KRGS/ILP min 0.644, mean 0.939 on these
	 * seeded instances. The table's three decimals are the floor a change
	 * of the planner must not fall below (-0.0005: the rounding). */
	EXPECT_GE(ratio_min, 0.644 - 5e-4);
	EXPECT_GE(ratio_sum / ratios, 0.939 - 5e-4);
	std::printf("time ms mean/max: LP %.2f/%.2f KRGS %.3f/%.3f ILP %.2f/%.2f\n",
		    1e3 * lp_sum / kInstances, 1e3 * lp_max, 1e3 * krgs_sum / kInstances,
		    1e3 * krgs_max, 1e3 * ilp_sum / kInstances, 1e3 * ilp_max);
}

TEST(GoatPlan, TightMemoryIsRepairedNeverExceeded)
{
	unsigned repairs = 0;
	for (int i = 0; i < 100; i++) {
		const Instance in = random_instance(5000 + uint64_t(i), 0.4);
		Options opt;
		opt.seed = uint64_t(i);
		const Plan p = make_plan(in.topo, in.model, opt);
		expect_feasible(in, p.krgs, "krgs");
		EXPECT_GE(p.lp_value + tol(p.lp_value, 0), p.krgs_values.aggregated_traffic);
		repairs += p.memory_repairs;
	}
	std::printf("tight memory: %u repairs over 100 instances\n", repairs);
}

TEST(GoatPlan, SameSeedSamePlan)
{
	const Instance in = random_instance(42);
	Options opt;
	opt.seed = 7;
	const Plan a = make_plan(in.topo, in.model, opt), b = make_plan(in.topo, in.model, opt);
	EXPECT_EQ(a.krgs.aggregates, b.krgs.aggregates);
	EXPECT_EQ(a.krgs.node, b.krgs.node);
}

TEST(GoatPlan, NoSwitchesMeansEverythingToThePs)
{
	Instance in = random_instance(3);
	in.topo.switches.clear();
	for (Worker &w : in.topo.workers)
		w.distance_to_switch.clear();
	Options opt;
	opt.solve_ilp = true;
	const Plan p = make_plan(in.topo, in.model, opt);
	EXPECT_EQ(p.lp_value, 0);
	for (const auto &row : p.krgs.node)
		for (int n : row)
			EXPECT_EQ(n, kToPs);
	EXPECT_DOUBLE_EQ(p.krgs_values.communication_overhead, p.no_ina_overhead);
}

TEST(GoatPlan, LeafSpineScale)
{
	/* §IV-C's leaf-spine: 20 switches, 20% programmable (4) with 64 MB,
	 * ~50 servers (49 workers + PS), AlexNet-sized 221 MB in 16 sub-models.
	 * docs/goat.md ("Measured") states what is asserted here; the times it
	 * gives are printed only (a loaded machine is no failure). */
	std::mt19937_64 rng(11);
	Instance in;
	const uint64_t sizes_mb[] = {1, 1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 30, 40, 49};
	uint64_t next = 0;
	for (size_t g = 0; g < 16; g++) {
		SubModel sm{"g" + std::to_string(g), next, sizes_mb[g] * 250000, sizes_mb[g] * 1000000};
		next += sm.elements;
		in.model.submodels.push_back(sm);
	}
	for (int s = 0; s < 4; s++)
		in.topo.switches.push_back({"s" + std::to_string(s), uint16_t(s + 1), 64000000,
					    double(1 + rng() % 2)});
	for (int w = 0; w < 49; w++) {
		Worker wk{"w" + std::to_string(w), {}, 3};
		for (int s = 0; s < 4; s++)
			wk.distance_to_switch.push_back(double(1 + rng() % 3));
		in.topo.workers.push_back(wk);
	}
	/* KRGS seeds 1-10: each plan fits every switch, stays under the LP
	 * bound, reaches at least 0.8 of it (0.819 measured at worst, 1.000 for
	 * seed 1, the default), and costs at most 0.75 of Eq. (1) without INA
	 * (0.688-0.741 measured). */
	double ratio_min = 1e9, ratio_sum = 0, cost_max = 0;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		Options opt;
		opt.seed = seed;
		const Plan p = make_plan(in.topo, in.model, opt);
		const double lp = p.lp_value, krgs = p.krgs_values.aggregated_traffic;
		expect_feasible(in, p.krgs, "krgs");
		ASSERT_GT(lp, 0);
		EXPECT_GE(lp + tol(lp, krgs), krgs) << "seed " << seed;
		ratio_min = std::min(ratio_min, krgs / lp);
		ratio_sum += krgs / lp;
		cost_max = std::max(cost_max, p.krgs_values.communication_overhead / p.no_ina_overhead);
		if (seed == 1) {
			EXPECT_GE(krgs / lp, 1 - 1e-6) << "seed 1: KRGS reaches the LP bound";
			std::printf("leaf-spine scale (4 switches, 49 workers, 16 sub-models), seed 1: "
				    "LP %.1f ms, KRGS %.2f ms\n",
				    1e3 * p.lp_seconds, 1e3 * p.krgs_seconds);
		}
	}
	std::printf("KRGS/LP over seeds 1-10: min %.3f mean %.3f; Eq. (1) / no INA at most %.3f\n",
		    ratio_min, ratio_sum / 10, cost_max);
	EXPECT_GE(ratio_min, 0.8);
	EXPECT_LE(cost_max, 0.75);
}

TEST(GoatInput, RejectsBadTopologyAndModel)
{
	using nlohmann::json;
	const json good = json::parse(R"({"switches":[{"name":"s1","id":1,"memory_bytes":100,
		"distance_to_ps":1}],"workers":[{"name":"w1","distance":{"s1":1,"ps":2}}]})");
	EXPECT_NO_THROW(topology_from_json(good));
	auto bad = [&](const std::function<void(json &)> &edit) {
		json j = good;
		edit(j);
		EXPECT_THROW(topology_from_json(j), InputError) << j.dump();
	};
	bad([](json &j) { j.erase("switches"); });
	bad([](json &j) { j["switches"][0].erase("memory_bytes"); });
	bad([](json &j) { j["switches"][0]["memory_bytes"] = -1; });
	bad([](json &j) { j["switches"][0]["memory_bytes"] = 1.5; });
	bad([](json &j) { j["switches"][0]["id"] = 0; });
	bad([](json &j) { j["switches"][0]["distance_to_ps"] = -2; });
	bad([](json &j) { j["workers"][0]["distance"]["s9"] = 1; });
	bad([](json &j) { j["workers"][0]["distance"].erase("ps"); });
	bad([](json &j) { j["workers"][0]["distance"].erase("s1"); });
	bad([](json &j) { j["workers"] = json::array(); });
	bad([](json &j) { j["switches"].push_back(j["switches"][0]); });

	EXPECT_NO_THROW(model_from_json(json::parse(R"({"submodels":[{"name":"a","bytes":8}]})")));
	for (const char *m : {R"({"submodels":[]})", R"({"submodels":[{"name":"a","elements":-4}]})",
			      R"({"submodels":[{"name":"a","elements":0}]})",
			      R"({"submodels":[{"name":"a"}]})",
			      R"({"submodels":[{"name":"a","bytes":6}]})",
			      R"({"submodels":[{"name":"a","bytes":8,"elements":2}]})", R"([1])"})
		EXPECT_THROW(model_from_json(json::parse(m)), InputError) << m;
}

/* The CLI, run as a process. */
class GoatCli : public ::testing::Test {
protected:
	void SetUp() override
	{
		const char *bin = std::getenv("INA_GOAT_PLAN");
		const char *ex = std::getenv("INA_GOAT_EXAMPLES");
		if (!bin || !ex)
			GTEST_SKIP() << "INA_GOAT_PLAN / INA_GOAT_EXAMPLES not set (run via meson test)";
		bin_ = bin;
		examples_ = ex;
		dir_ = fs::temp_directory_path() /
		       ("goat-cli-" + std::to_string(::getpid()) + "-" +
			::testing::UnitTest::GetInstance()->current_test_info()->name());
		fs::create_directories(dir_);
	}
	void TearDown() override
	{
		if (!dir_.empty())
			fs::remove_all(dir_);
	}

	struct Result {
		int code;
		std::string err;
	};
	Result run(const std::string &args)
	{
		const fs::path err = dir_ / "stderr";
		const std::string cmd = bin_ + " " + args + " >" + (dir_ / "stdout").string() +
					" 2>" + err.string();
		int st = std::system(cmd.c_str());
		std::ifstream in(err);
		std::stringstream s;
		s << in.rdbuf();
		return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, s.str()};
	}
	std::string write(const std::string &name, const std::string &text)
	{
		std::ofstream(dir_ / name) << text;
		return (dir_ / name).string();
	}
	std::string topo() const { return examples_ + "/testbed-topology.json"; }
	std::string model() const { return examples_ + "/resnet18-model.json"; }
	void expect_input_error(const std::string &args)
	{
		Result r = run(args);
		EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
		EXPECT_EQ(r.err.rfind("ina-goat-plan: error: ", 0), 0u) << r.err;
		EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
	}

	std::string bin_, examples_;
	fs::path dir_;
};

TEST_F(GoatCli, ExamplePlanIsWritten)
{
	const std::string out = (dir_ / "plan.json").string();
	Result r = run("--topology " + topo() + " --model " + model() + " --seed 5 --ilp --out " + out);
	ASSERT_EQ(r.code, 0) << r.err;
	std::ifstream in(out);
	nlohmann::json j = nlohmann::json::parse(in);
	EXPECT_EQ(j["seed"], 5);
	ASSERT_EQ(j["plan"]["workers"].size(), 8u);
	for (const auto &w : j["plan"]["workers"])
		EXPECT_EQ(w["ranges"].size(), 6u);
	for (const auto &s : j["plan"]["switches"])
		EXPECT_LE(s["used_bytes"].get<uint64_t>(), s["memory_bytes"].get<uint64_t>());
	EXPECT_TRUE(j["ilp"]["optimal"].get<bool>());
	EXPECT_GE(j["lp_relaxation"]["aggregated_traffic"].get<double>() + 1,
		  j["ilp"]["aggregated_traffic"].get<double>());
}

TEST_F(GoatCli, BadInputIsOneLineAndExitTwo)
{
	const std::string t = topo(), m = model();
	expect_input_error("--topology " + t);                               /* no --model */
	expect_input_error("--topology " + t + " --model " + m + " --bogus"); /* unknown option */
	expect_input_error("--topology " + (dir_ / "nope.json").string() + " --model " + m);
	expect_input_error("--topology " + dir_.string() + " --model " + m); /* a directory */
	expect_input_error("--topology /dev/null --model " + m);              /* not regular */
	const std::string big = (dir_ / "big.json").string();
	fs::resize_file(write("big.json", "{}"), (16u << 20) + 1);
	expect_input_error("--topology " + big + " --model " + m);
	expect_input_error("--topology " + write("x.json", "{not json") + " --model " + m);
	expect_input_error("--topology " + t + " --model " +
			   write("m1.json", R"({"name":"x"})")); /* missing submodels */
	expect_input_error("--topology " + t + " --model " +
			   write("m2.json", R"({"submodels":[{"name":"a","elements":-3}]})"));
	expect_input_error("--model " + m + " --topology " +
			   write("t1.json", R"({"switches":[{"name":"s1","id":1,"memory_bytes":9,
			   "distance_to_ps":1}],"workers":[{"name":"w","distance":{"s7":1,"ps":2}}]})"));
	expect_input_error("--model " + m + " --topology " +
			   write("t2.json", R"({"switches":[{"name":"s1","id":1,"memory_bytes":-9,
			   "distance_to_ps":1}],"workers":[]})"));
}
