/*
 * ina-goat-plan: topology + model JSON -> GOAT plan JSON (docs/goat.md).
 * Exit 0 on success, 2 on bad input or usage (one line on stderr),
 * 1 when the solver or the output file fails.
 */
#include "ina/goat.h"

#include "ina/cli.h"
#include "ina/input_file.h"

#include <fstream>
#include <iostream>

namespace {

constexpr uintmax_t kMaxInputBytes = 16u << 20; /* far above any real topology */

struct Failure {
	int code;
	std::string message;
};

nlohmann::json read_json(const std::string &path, const char *what)
{
	std::string text, err;
	if (!ina::read_input_file(path, &text, &err, kMaxInputBytes))
		throw Failure{2, std::string(what) + ": " + err};
	try {
		return nlohmann::json::parse(text);
	} catch (const nlohmann::json::exception &e) {
		throw Failure{2, std::string(what) + " '" + path + "' is not JSON: " + e.what()};
	}
}

int run(int argc, char **argv)
{
	CLI::App app{"GOAT planner: LP relaxation of GINA (GLPK) + KRGS rounding", "ina-goat-plan"};
	ina::add_standard_options(app, "ina-goat-plan");
	std::string topology_path, model_path, out_path;
	uint64_t seed = 1;
	bool ilp = false;
	double ilp_time_limit = 60;
	app.add_option("--topology", topology_path, "topology JSON (docs/goat.md)")->required();
	app.add_option("--model", model_path, "model partition JSON (docs/goat.md)")->required();
	app.add_option("--seed", seed, "KRGS random seed")->capture_default_str();
	app.add_flag("--ilp", ilp, "also solve the exact ILP (small instances)");
	app.add_option("--ilp-time-limit", ilp_time_limit, "seconds for the ILP")
		->capture_default_str()
		->check(CLI::PositiveNumber);
	app.add_option("--out", out_path, "write the plan here instead of stdout");
	const int rc = ina::parse_cli("ina-goat-plan", app, argc, argv);
	if (rc >= 0)
		return rc;

	ina::goat::Topology topo;
	ina::goat::Model model;
	try {
		topo = ina::goat::topology_from_json(read_json(topology_path, "topology"));
		model = ina::goat::model_from_json(read_json(model_path, "model"));
	} catch (const ina::goat::InputError &e) {
		throw Failure{2, e.what()};
	}

	ina::goat::Options opt;
	opt.seed = seed;
	opt.solve_ilp = ilp;
	opt.ilp_time_limit_s = ilp_time_limit;
	const ina::goat::Plan plan = ina::goat::make_plan(topo, model, opt);
	const std::string text = ina::goat::plan_to_json(topo, model, plan, seed).dump(2) + "\n";

	if (out_path.empty()) {
		std::cout << text << std::flush;
		if (!std::cout)
			throw Failure{1, "cannot write the plan to stdout"};
		return 0;
	}
	std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
	out << text;
	out.close();
	if (!out)
		throw Failure{1, "cannot write '" + out_path + "'"};
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	return ina::run_main("ina-goat-plan", [&] {
		try {
			return run(argc, argv);
		} catch (const Failure &f) {
			ina::print_error("ina-goat-plan", f.message);
			return f.code;
		}
	});
}
