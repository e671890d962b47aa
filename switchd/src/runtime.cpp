/* SPDX-License-Identifier: BSD-3-Clause */
#include "runtime.h"

#include <cstdio>

namespace switchd {

#define SWITCHD_NAME(name, help) #name,
const char *const kStageNames[] = {SWITCHD_STAGES(SWITCHD_NAME)};
#undef SWITCHD_NAME

std::vector<RuntimeRow> runtime_rows(const std::vector<const StageRuntime *> &rt, uint64_t tsc_hz)
{
	const double ns_per_cycle = tsc_hz ? 1e9 / double(tsc_hz) : 0;
	std::vector<RuntimeRow> rows;
	RuntimeRow total;
	total.stage = "total";
	for (size_t s = 0; s < kStageCount; s++) {
		RuntimeRow r;
		r.stage = kStageNames[s];
		for (const StageRuntime *x : rt) {
			r.calls += x->get(Stage(s), StageCtr::calls);
			r.packets += x->get(Stage(s), StageCtr::packets);
			r.cycles += x->get(Stage(s), StageCtr::cycles);
		}
		r.ns_per_pkt = r.packets ? double(r.cycles) * ns_per_cycle / double(r.packets) : 0;
		r.pkts_per_call = r.calls ? double(r.packets) / double(r.calls) : 0;
		if (Stage(s) == Stage::rx) {
			total.calls = r.calls;
			total.packets = r.packets;
		}
		total.cycles += r.cycles;
		rows.push_back(r);
	}
	total.ns_per_pkt = total.packets ? double(total.cycles) * ns_per_cycle / double(total.packets) : 0;
	total.pkts_per_call = total.calls ? double(total.packets) / double(total.calls) : 0;
	rows.push_back(total);
	return rows;
}

std::vector<std::string> runtime_table(const std::vector<RuntimeRow> &rows)
{
	std::vector<std::string> out;
	char line[160];
	std::snprintf(line, sizeof(line), "%-10s %14s %16s %18s %10s %10s", "stage", "calls", "packets", "cycles",
		      "pkts/call", "ns/pkt");
	out.emplace_back(line);
	for (const RuntimeRow &r : rows) {
		std::snprintf(line, sizeof(line), "%-10s %14lu %16lu %18lu %10.1f %10.2f", r.stage,
			      static_cast<unsigned long>(r.calls), static_cast<unsigned long>(r.packets),
			      static_cast<unsigned long>(r.cycles), r.pkts_per_call, r.ns_per_pkt);
		out.emplace_back(line);
	}
	return out;
}

} /* namespace switchd */
