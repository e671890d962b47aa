/*
 * Builds the GINA problem, Eq. (4) of the GOAT paper, as a GLPK problem and
 * solves it either as an LP (x, y in [0, 1]) or as the ILP (x, y binary).
 *
 *   max  sum_g sum_{s in S} (sum_w y[w][g][s] - x[g][s]) * D_s(alpha) * b(g)
 *   s.t. (1a) sum_{s in S+alpha} x[g][s] >= 1            for all g
 *        (1b) sum_{s in S+alpha} y[w][g][s] = 1          for all w, g
 *        (1c) y[w][g][s] <= x[g][s]                      for all w, g, s in S+alpha
 *        (1d) sum_g x[g][s] * b(g) <= B(s)               for all s in S
 *        (1e) x[g][s] in {0,1}  (LP: [0,1])
 *        (1f) y[w][g][s] in {0,1}  (LP: [0,1])
 * The constraint labels (1a)-(1f) are the six lines of Eq. (1), which Eq. (4)
 * repeats unchanged; only the objective differs.
 */
#include "gina_model.h"

#include <glpk.h>

#include <algorithm>
#include <memory>
#include <string>

namespace ina::goat::detail {
namespace {

struct ProbDeleter {
	void operator()(glp_prob *p) const { glp_delete_prob(p); }
};
using Prob = std::unique_ptr<glp_prob, ProbDeleter>;

/* Column numbering (GLPK is 1-based). */
class Columns {
public:
	Columns(size_t workers, size_t submodels, size_t switches)
		: G_(submodels), N_(switches + 1), W_(workers) {}
	int x(size_t g, size_t node) const { return int(1 + g * N_ + node); }
	int y(size_t w, size_t g, size_t node) const
	{
		return int(1 + G_ * N_ + (w * G_ + g) * N_ + node);
	}
	int count() const { return int(G_ * N_ + W_ * G_ * N_); }

private:
	size_t G_, N_, W_;
};

/* glp_load_matrix's triplets, 1-based with an unused slot 0. */
struct Triplets {
	std::vector<int> row{0}, col{0};
	std::vector<double> val{0.0};
	void add(int r, int c, double v)
	{
		row.push_back(r);
		col.push_back(c);
		val.push_back(v);
	}
};

/*
 * Sizes are divided by the largest b(g) before they reach GLPK: byte counts
 * of 1e8 next to 0/1 coefficients make the simplex's scaling work harder and
 * the tolerances relative to the wrong magnitude.
 */
double size_unit(const Model &model)
{
	uint64_t m = 1;
	for (const SubModel &g : model.submodels)
		m = std::max(m, g.bytes);
	return double(m);
}

Prob build(const Topology &topo, const Model &model, bool binary, double unit)
{
	const size_t S = topo.switches.size(), N = S + 1, PS = S;
	const size_t G = model.submodels.size(), W = topo.workers.size();
	const Columns col(W, G, S);

	glp_term_out(GLP_OFF); /* GLPK prints to stdout otherwise */
	Prob p(glp_create_prob());
	glp_set_obj_dir(p.get(), GLP_MAX);
	glp_add_cols(p.get(), col.count());
	const int kind = binary ? GLP_BV : GLP_CV;

	/* Objective of Eq. (4); the PS node has coefficient 0 (D_alpha(alpha) = 0). */
	for (size_t g = 0; g < G; g++) {
		const double b = double(model.submodels[g].bytes) / unit;
		for (size_t n = 0; n < N; n++) {
			const double gain = n == PS ? 0.0 : topo.switches[n].distance_to_ps * b;
			glp_set_col_kind(p.get(), col.x(g, n), kind);
			glp_set_col_bnds(p.get(), col.x(g, n), GLP_DB, 0.0, 1.0); /* (1e) */
			glp_set_obj_coef(p.get(), col.x(g, n), -gain);
			for (size_t w = 0; w < W; w++) {
				glp_set_col_kind(p.get(), col.y(w, g, n), kind);
				glp_set_col_bnds(p.get(), col.y(w, g, n), GLP_DB, 0.0, 1.0); /* (1f) */
				glp_set_obj_coef(p.get(), col.y(w, g, n), gain);
			}
		}
	}

	Triplets m;
	int row = 0;
	/* (1a) at least one aggregation node per sub-model. */
	for (size_t g = 0; g < G; g++) {
		row = glp_add_rows(p.get(), 1);
		glp_set_row_bnds(p.get(), row, GLP_LO, 1.0, 0.0);
		for (size_t n = 0; n < N; n++)
			m.add(row, col.x(g, n), 1.0);
	}
	/* (1b) each worker's sub-model goes to exactly one node. */
	for (size_t w = 0; w < W; w++)
		for (size_t g = 0; g < G; g++) {
			row = glp_add_rows(p.get(), 1);
			glp_set_row_bnds(p.get(), row, GLP_FX, 1.0, 1.0);
			for (size_t n = 0; n < N; n++)
				m.add(row, col.y(w, g, n), 1.0);
		}
	/* (1c) only to a node that aggregates the sub-model: y - x <= 0. */
	for (size_t w = 0; w < W; w++)
		for (size_t g = 0; g < G; g++)
			for (size_t n = 0; n < N; n++) {
				row = glp_add_rows(p.get(), 1);
				glp_set_row_bnds(p.get(), row, GLP_UP, 0.0, 0.0);
				m.add(row, col.y(w, g, n), 1.0);
				m.add(row, col.x(g, n), -1.0);
			}
	/* (1d) switch memory. */
	for (size_t s = 0; s < S; s++) {
		row = glp_add_rows(p.get(), 1);
		glp_set_row_bnds(p.get(), row, GLP_UP, 0.0,
				 double(topo.switches[s].memory_bytes) / unit);
		for (size_t g = 0; g < G; g++)
			m.add(row, col.x(g, s), double(model.submodels[g].bytes) / unit);
	}
	glp_load_matrix(p.get(), int(m.row.size() - 1), m.row.data(), m.col.data(),
			m.val.data());
	return p;
}

} // namespace

Fractional solve_lp_relaxation(const Topology &topo, const Model &model)
{
	const double unit = size_unit(model);
	Prob p = build(topo, model, false, unit);
	glp_smcp parm;
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_ON;
	int rc = glp_simplex(p.get(), &parm);
	if (rc != 0 || glp_get_status(p.get()) != GLP_OPT)
		throw SolverError("GLPK simplex failed (rc " + std::to_string(rc) + ", status " +
				  std::to_string(glp_get_status(p.get())) + ")");

	const size_t S = topo.switches.size(), N = S + 1;
	const size_t G = model.submodels.size(), W = topo.workers.size();
	const Columns col(W, G, S);
	/* Clamp solver noise so that 0 <= y <= x <= 1 holds exactly for KRGS. */
	auto prim = [&](int c) { return std::clamp(glp_get_col_prim(p.get(), c), 0.0, 1.0); };
	Fractional f;
	f.x.assign(G, std::vector<double>(N));
	f.y.assign(W, std::vector<std::vector<double>>(G, std::vector<double>(N)));
	for (size_t g = 0; g < G; g++)
		for (size_t n = 0; n < N; n++)
			f.x[g][n] = prim(col.x(g, n));
	for (size_t w = 0; w < W; w++)
		for (size_t g = 0; g < G; g++)
			for (size_t n = 0; n < N; n++)
				f.y[w][g][n] = std::min(prim(col.y(w, g, n)), f.x[g][n]);
	f.value = glp_get_obj_val(p.get()) * unit;
	return f;
}

IlpSolution solve_ilp(const Topology &topo, const Model &model, double time_limit_s)
{
	Prob p = build(topo, model, true, size_unit(model));
	glp_iocp parm;
	glp_init_iocp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_ON; /* lets glp_intopt solve the root LP itself */
	parm.tm_lim = int(std::clamp(time_limit_s, 0.001, 1e6) * 1000);
	int rc = glp_intopt(p.get(), &parm);
	int status = glp_mip_status(p.get());
	if ((rc != 0 && rc != GLP_ETMLIM) || (status != GLP_OPT && status != GLP_FEAS))
		throw SolverError("GLPK branch and cut failed (rc " + std::to_string(rc) +
				  ", status " + std::to_string(status) + ")");

	const size_t S = topo.switches.size();
	const size_t G = model.submodels.size(), W = topo.workers.size();
	const Columns col(W, G, S);
	auto one = [&](int c) { return glp_mip_col_val(p.get(), c) > 0.5; };
	IlpSolution out;
	out.optimal = status == GLP_OPT;
	out.assignment.aggregates.assign(G, std::vector<bool>(S));
	out.assignment.node.assign(W, std::vector<int>(G, kToPs));
	for (size_t g = 0; g < G; g++)
		for (size_t s = 0; s < S; s++)
			out.assignment.aggregates[g][s] = one(col.x(g, s));
	for (size_t w = 0; w < W; w++)
		for (size_t g = 0; g < G; g++)
			for (size_t s = 0; s < S; s++)
				if (one(col.y(w, g, s)))
					out.assignment.node[w][g] = int(s);
	return out;
}

} // namespace ina::goat::detail
