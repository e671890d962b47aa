/*
 * paper_value (paper_values.h): Exp#4 and Exp#5 of §IV-C.
 */
#include "paper_values.h"

#include <vector>

namespace goat_sim {
namespace {

struct Value {
	const char *topology;
	int workers;
	const char *scheme; /* none = the paper's Geryon */
	Metric metric;
	double bytes;
};

const std::vector<Value> kValues = {
	/* Fig. 10: leaf-spine, 35 workers, aggregation overhead of the PS. */
	{"leaf-spine", 35, "goat", Metric::PsBytes, 60e6},
	{"leaf-spine", 35, "atp", Metric::PsBytes, 6.7e9},
	{"leaf-spine", 35, "none", Metric::PsBytes, 8.4e9},
	/* Fig. 11: fat-tree, 40 workers, in-network aggregation amount. */
	{"fat-tree", 40, "goat", Metric::InaBytes, 9.6e9},
	{"fat-tree", 40, "atp", Metric::InaBytes, 1.9e9},
	/* Fig. 12: leaf-spine, 35 workers, communication overhead. */
	{"leaf-spine", 35, "goat", Metric::CommOverhead, 13.7e9},
	{"leaf-spine", 35, "atp", Metric::CommOverhead, 20.9e9},
	{"leaf-spine", 35, "none", Metric::CommOverhead, 37.1e9},
};

} // namespace

std::optional<double> paper_value(const std::string &topology, int workers,
				  const std::string &scheme, Metric metric)
{
	for (const Value &v : kValues)
		if (topology == v.topology && workers == v.workers && scheme == v.scheme &&
		    metric == v.metric)
			return v.bytes;
	return std::nullopt;
}

} // namespace goat_sim
