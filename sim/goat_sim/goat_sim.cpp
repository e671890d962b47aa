/*
 * goat-sim: the GOAT paper's §IV-C simulation (Figs. 10-12) without
 * hardware. For each topology and worker count it plans with the GOAT
 * planner and replays goat, atp and none on the same switches, rates and
 * paths; docs/goat.md ("Paper-scale simulation") describes the model.
 * Exit 0 ok, 2 bad usage (one line on stderr), 1 solver failure.
 */
#include "model_partition.h"
#include "report.h"
#include "scenario.h"
#include "schemes.h"

#include "ina/cli.h"

#include <iostream>
#include <map>

namespace {

using goat_sim::Outcome;

/* Worker counts of the sweep; the paper's text quotes 35 (leaf-spine) and
 * 40 (fat-tree). */
const std::map<std::string, std::vector<int>> kSweep = {
	{"leaf-spine", {5, 10, 15, 20, 25, 30, 35, 40, 45}},
	{"fat-tree", {20, 40, 60, 80, 100, 120, 140, 160}},
};
const std::map<std::string, std::vector<int>> kQuickSweep = {
	{"leaf-spine", {10, 35}},
	{"fat-tree", {40}},
};

struct Options {
	std::string topology = "all";
	std::vector<int> workers;
	uint64_t seed = 1;
	bool quick = false, json = false;
	double gradient_mb = 221, switch_memory_mb = 64, max_submodel_mb = 16;
	uint64_t fragment_bytes = 256;
	double programmable_share = 0.2, rate_mean = 0.5, rate_sd = 0.2;
};

void run_topology(const std::string &name, const Options &opt)
{
	goat_sim::ScenarioConfig cfg;
	cfg.topology = name;
	cfg.programmable_share = opt.programmable_share;
	cfg.switch_memory_bytes = uint64_t(opt.switch_memory_mb * 1e6);
	cfg.rate_mean = opt.rate_mean;
	cfg.rate_sd = opt.rate_sd;
	cfg.seed = opt.seed;
	const goat_sim::Scenario scenario(cfg);

	goat_sim::SimParams p;
	p.fragments.gradient_bytes = uint64_t(opt.gradient_mb * 1e6) / 4 * 4;
	p.fragments.fragment_bytes = opt.fragment_bytes;
	p.seed = opt.seed;
	const ina::goat::Model model = goat_sim::alexnet_partition(
		p.fragments.gradient_bytes, uint64_t(opt.max_submodel_mb * 1e6), opt.fragment_bytes);

	std::vector<int> sweep = opt.workers;
	if (sweep.empty())
		sweep = (opt.quick ? kQuickSweep : kSweep).at(name);
	for (int w : sweep) /* a bad count fails before any output */
		if (w > scenario.max_workers())
			throw std::invalid_argument(name + " has room for 1 to " +
						    std::to_string(scenario.max_workers()) +
						    " workers, not " + std::to_string(w));
	if (!opt.json) {
		std::cout << name << ": " << scenario.describe() << "\n"
			  << "  model: " << model.submodels.size() << " sub-models of AlexNet, "
			  << p.fragments.gradient_bytes / 1e6 << " MB; fragments of "
			  << opt.fragment_bytes << " B; rate ratio N(" << opt.rate_mean << ", "
			  << opt.rate_sd << ")\n";
		goat_sim::print_table_header(std::cout);
	}
	for (int w : sweep) {
		const goat_sim::Instance in = scenario.instance(w);
		for (const Outcome &o : {goat_sim::run_goat(in, model, p), goat_sim::run_atp(in, p),
					 goat_sim::run_none(in, p)}) {
			if (opt.json)
				goat_sim::print_json_line(std::cout, name, w, opt.seed, o);
			else
				goat_sim::print_table_row(std::cout, name, w, o);
		}
		std::cout << std::flush;
	}
	if (!opt.json)
		std::cout << "\n";
}

int run(int argc, char **argv)
{
	Options opt;
	CLI::App app{"GOAT paper §IV-C simulation: goat vs atp vs none (docs/goat.md)", "goat-sim"};
	ina::add_standard_options(app, "goat-sim");
	app.add_option("--topology", opt.topology, "leaf-spine, fat-tree or all")
		->check(CLI::IsMember({"leaf-spine", "fat-tree", "all"}))
		->capture_default_str();
	app.add_option("--workers", opt.workers, "worker counts (default: the sweep)")
		->check(CLI::Range(1, 1 << 20))
		->default_str(""); /* the sweep, not an empty list */
	app.add_option("--seed", opt.seed, "seed of every draw and of KRGS")->capture_default_str();
	app.add_flag("--quick", opt.quick, "a short sweep with 4 KB fragments (for tests)");
	app.add_flag("--json", opt.json, "one JSON object per line");
	app.add_option("--gradient-mb", opt.gradient_mb, "gradient per worker, MB (1e6 B)")
		->check(ina::finite_range(0.01, 1e6))->capture_default_str();
	app.add_option("--switch-memory-mb", opt.switch_memory_mb, "aggregator memory per programmable switch, MB")
		->check(ina::finite_range(0.01, 1e6))->capture_default_str();
	app.add_option("--max-submodel-mb", opt.max_submodel_mb, "largest sub-model, MB")
		->check(ina::finite_range(0.001, 1e6))->capture_default_str();
	auto *frag = app.add_option("--fragment-bytes", opt.fragment_bytes, "aggregator slot / fragment size")
		->check(CLI::Range(uint64_t(4), uint64_t(1) << 24));
	app.add_option("--programmable-share", opt.programmable_share, "share of switches that are programmable")
		->check(ina::finite_range(0, 1))->capture_default_str();
	app.add_option("--rate-mean", opt.rate_mean, "mean of the sending-rate ratio")
		->check(ina::finite_range(0.01, 1))->capture_default_str();
	app.add_option("--rate-sd", opt.rate_sd, "standard deviation of the sending-rate ratio")
		->check(ina::finite_range(0, 10))->capture_default_str();
	const int rc = ina::parse_cli("goat-sim", app, argc, argv);
	if (rc >= 0)
		return rc;
	if (opt.quick && frag->count() == 0)
		opt.fragment_bytes = 4096;
	if (opt.fragment_bytes % 4 != 0) {
		ina::print_error("goat-sim", "--fragment-bytes must be a multiple of 4");
		return ina::kExitUsage;
	}
	if (uint64_t(opt.switch_memory_mb * 1e6) < opt.fragment_bytes) {
		ina::print_error("goat-sim", "--switch-memory-mb must hold at least one fragment");
		return ina::kExitUsage;
	}

	const std::vector<std::string> topologies =
		opt.topology == "all" ? std::vector<std::string>{"leaf-spine", "fat-tree"}
				      : std::vector<std::string>{opt.topology};
	try {
		for (const std::string &t : topologies)
			run_topology(t, opt);
	} catch (const std::invalid_argument &e) {
		ina::print_error("goat-sim", e.what());
		return ina::kExitUsage;
	} catch (const ina::goat::SolverError &e) {
		ina::print_error("goat-sim", e.what());
		return 1;
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	return ina::run_main("goat-sim", [&] { return run(argc, argv); });
}
