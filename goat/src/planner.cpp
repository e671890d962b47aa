/*
 * make_plan: Algorithm 1 end to end (LP, KRGS) and, when asked, the exact ILP,
 * with the objective values and timings the CLI and the tests report.
 */
#include "gina_model.h"
#include "krgs.h"

#include <chrono>

namespace ina::goat {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

std::vector<uint64_t> switch_load(const Model &model, const Assignment &a)
{
	std::vector<uint64_t> load(a.aggregates.empty() ? 0 : a.aggregates[0].size(), 0);
	for (size_t g = 0; g < a.aggregates.size(); g++)
		for (size_t s = 0; s < a.aggregates[g].size(); s++)
			if (a.aggregates[g][s])
				load[s] += model.submodels[g].bytes;
	return load;
}

PlanValues evaluate(const Topology &topo, const Model &model, const Assignment &a)
{
	PlanValues v;
	for (size_t g = 0; g < model.submodels.size(); g++) {
		const double b = double(model.submodels[g].bytes);
		for (size_t s = 0; s < topo.switches.size(); s++) {
			if (!a.aggregates[g][s])
				continue;
			const double up = topo.switches[s].distance_to_ps * b;
			v.communication_overhead += up; /* Eq. (1): x * D_s(alpha) * b */
			v.aggregated_traffic -= up;     /* Eq. (4): - x * D_s(alpha) * b */
		}
		for (size_t w = 0; w < topo.workers.size(); w++) {
			const int n = a.node[w][g];
			if (n == kToPs) {
				v.communication_overhead += topo.workers[w].distance_to_ps * b;
				continue;
			}
			v.communication_overhead += topo.workers[w].distance_to_switch[size_t(n)] * b;
			v.aggregated_traffic += topo.switches[size_t(n)].distance_to_ps * b;
		}
	}
	return v;
}

Plan make_plan(const Topology &topo, const Model &model, const Options &opt)
{
	Plan plan;
	auto t0 = std::chrono::steady_clock::now();
	const detail::Fractional lp = detail::solve_lp_relaxation(topo, model);
	plan.lp_value = lp.value;
	plan.lp_seconds = seconds_since(t0);

	t0 = std::chrono::steady_clock::now();
	detail::Rounded r = detail::krgs_round(topo, model, lp, opt.seed);
	plan.krgs_seconds = seconds_since(t0);
	plan.krgs = std::move(r.assignment);
	plan.memory_repairs = r.memory_repairs;
	plan.memory_moves = r.moved;
	plan.unused_dropped = r.unused_dropped;
	plan.filled = r.filled;
	plan.krgs_values = evaluate(topo, model, plan.krgs);

	/* The baseline every plan is compared with: no switch aggregates. */
	for (const SubModel &g : model.submodels)
		for (const Worker &w : topo.workers)
			plan.no_ina_overhead += w.distance_to_ps * double(g.bytes);

	if (opt.solve_ilp) {
		t0 = std::chrono::steady_clock::now();
		detail::IlpSolution ilp = detail::solve_ilp(topo, model, opt.ilp_time_limit_s);
		plan.ilp_seconds = seconds_since(t0);
		plan.ilp_optimal = ilp.optimal;
		plan.ilp_values = evaluate(topo, model, ilp.assignment);
		plan.ilp = std::move(ilp.assignment);
	}
	return plan;
}

} // namespace ina::goat
