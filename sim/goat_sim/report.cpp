/*
 * Table and JSON lines (report.h). Sizes in the table are GB = 1e9 bytes,
 * the paper's unit; the paper's value follows in brackets where its text
 * gives one.
 */
#include "report.h"
#include "paper_values.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace goat_sim {
namespace {

std::string gb(double bytes)
{
	char buf[32];
	std::snprintf(buf, sizeof buf, "%.3f", bytes / 1e9);
	return buf;
}

std::string with_paper(double bytes, const std::string &topology, int workers,
		       const std::string &scheme, Metric m)
{
	std::string s = gb(bytes);
	if (auto v = paper_value(topology, workers, scheme, m))
		s += " [" + gb(*v) + "]";
	return s;
}

} // namespace

void print_table_header(std::ostream &out)
{
	char buf[256];
	std::snprintf(buf, sizeof buf, "%7s %-5s %-17s %-17s %-19s %10s %9s %8s\n", "workers",
		      "sch", "PS GB [paper]", "INA GB [paper]", "comm GBxhop [paper]",
		      "collisions", "max MB/sw", "plan s");
	out << buf;
}

void print_table_row(std::ostream &out, const std::string &topology, int workers,
		     const Outcome &o)
{
	char buf[256];
	std::snprintf(buf, sizeof buf, "%7d %-5s %-17s %-17s %-19s %10llu %9.1f %8.3f\n", workers,
		      o.scheme.c_str(),
		      with_paper(double(o.ps_bytes), topology, workers, o.scheme, Metric::PsBytes).c_str(),
		      with_paper(double(o.ina_bytes), topology, workers, o.scheme, Metric::InaBytes).c_str(),
		      with_paper(o.comm_byte_hops, topology, workers, o.scheme, Metric::CommOverhead).c_str(),
		      (unsigned long long)o.collisions, double(o.max_switch_bytes) / 1e6,
		      o.plan_seconds);
	out << buf;
}

void print_json_line(std::ostream &out, const std::string &topology, int workers,
		     uint64_t seed, const Outcome &o)
{
	nlohmann::json j = {
		{"topology", topology},
		{"workers", workers},
		{"scheme", o.scheme},
		{"seed", seed},
		{"total_bytes", o.total_bytes},
		{"ps_bytes", o.ps_bytes},
		{"ina_bytes", o.ina_bytes},
		{"ps_rx_bytes", o.ps_rx_bytes},
		{"comm_byte_hops", o.comm_byte_hops},
		{"collisions", o.collisions},
		{"max_switch_bytes", o.max_switch_bytes},
		{"aggregating_switches", o.aggregating_switches},
		{"plan_seconds", o.plan_seconds},
		{"lp_seconds", o.lp_seconds},
		{"krgs_seconds", o.krgs_seconds},
	};
	if (auto v = paper_value(topology, workers, o.scheme, Metric::PsBytes))
		j["paper_ps_bytes"] = *v;
	if (auto v = paper_value(topology, workers, o.scheme, Metric::InaBytes))
		j["paper_ina_bytes"] = *v;
	if (auto v = paper_value(topology, workers, o.scheme, Metric::CommOverhead))
		j["paper_comm_overhead"] = *v;
	out << j.dump() << "\n";
}

} // namespace goat_sim
