/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pipeline_bench --roce: the NetReduce (RoCEv2) stage's throughput on one
 * core, ICRC check and recomputation included (roce_bench.cpp).
 */
#ifndef PERF_ROCE_BENCH_H
#define PERF_ROCE_BENCH_H

#include <cstdint>
#include <vector>

struct RoceBenchOptions {
	uint32_t rings = 4;
	uint32_t ranks = 8;
	uint32_t window = 8;  /* messages in flight per rank */
	uint32_t msg_len = 16; /* packets per message */
	std::vector<uint32_t> payloads = {256, 1024}; /* bytes per packet (the RoCE MTU) */
	double seconds = 1.0;
	bool check_icrc = true; /* NrConfig::check_icrc */
};

struct RoceBenchRow {
	uint32_t payload = 0;
	bool check_icrc = true;
	uint32_t frame_bytes = 0; /* a middle packet's frame */
	double mpps = 0, mpps_median = 0, ns_per_packet = 0;
	uint64_t rounds = 0, packets_in = 0, results_out = 0;
	uint64_t completed = 0, expected_completed = 0, icrc_bad = 0;
};

std::vector<RoceBenchRow> roce_bench(const RoceBenchOptions &o);

#endif /* PERF_ROCE_BENCH_H */
