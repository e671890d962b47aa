/*
 * The §IV-C numbers the GOAT paper's text states (Figs. 10-12 themselves are
 * plots only). ESA is not simulated here; its values are kept for the
 * record in docs/goat.md.
 */
#pragma once

#include <optional>
#include <string>

namespace goat_sim {

enum class Metric { PsBytes, InaBytes, CommOverhead };

/* The paper's value in bytes (comm: its "GB" of Fig. 12), if it gives one. */
std::optional<double> paper_value(const std::string &topology, int workers,
				  const std::string &scheme, Metric metric);

} // namespace goat_sim
