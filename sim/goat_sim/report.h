/*
 * How goat_sim prints an outcome: a table row beside the paper's value, or
 * one JSON object per line (--json).
 */
#pragma once

#include "schemes.h"

#include <ostream>
#include <string>

namespace goat_sim {

void print_table_header(std::ostream &out);
void print_table_row(std::ostream &out, const std::string &topology, int workers,
		     const Outcome &o);
void print_json_line(std::ostream &out, const std::string &topology, int workers,
		     uint64_t seed, const Outcome &o);

} // namespace goat_sim
