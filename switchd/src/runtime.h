/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Per-stage cost of one lcore, VPP's `show runtime` for ina-switchd: per
 * stage of the chain (stages.h), the bursts it was called with, the packets
 * in them and the TSC cycles it spent. The loop reads the TSC once per
 * stage per burst (each reading ends one stage and starts the next), and a
 * stage with no packet in a burst is not called, read or counted. The lcore
 * is the only writer (relaxed atomics, stats.h's CounterRef); telemetry
 * (/ina/runtime) and the final summary read them.
 */
#ifndef INA_SWITCHD_RUNTIME_H
#define INA_SWITCHD_RUNTIME_H

#include <cstdint>
#include <string>
#include <vector>

#include "stats.h"

namespace switchd {

/* The stages in chain order (docs/switchd.md, "The chain"). */
#define SWITCHD_STAGES(X)                                                         \
	X(rx, "rte_eth_rx_burst of one RX queue (bursts that carried packets)")   \
	X(classify, "the one parse: PacketDesc, class, malformed and runt drops") \
	X(handoff, "packets of aggregators another lcore owns, to its ring")      \
	X(admission, "job lookup, admission, epoch, GOAT, ECN pre-mark")           \
	X(pipeline, "ina::process(): the switch program, job counters")           \
	X(netreduce, "ina::nr_process() on RoCEv2 packets, result copies")        \
	X(control, "control messages to the control thread's ring")               \
	X(forward, "next hop by IPv4 / MAC, ARP answers")                         \
	X(replicate, "multicast copies of results, floods")                       \
	X(egress, "into the egress queues: random / tail drop, ECN mark")         \
	X(tx, "egress queues drained by rte_eth_tx_burst (rounds that sent)")

#define SWITCHD_ENUM(name, help) name,
enum class Stage : uint8_t { SWITCHD_STAGES(SWITCHD_ENUM) kCount };
#undef SWITCHD_ENUM
constexpr size_t kStageCount = static_cast<size_t>(Stage::kCount);
extern const char *const kStageNames[];

enum class StageCtr : uint8_t { calls, packets, cycles, kCount };

class StageRuntime {
public:
	/* Lcore: one call of stage s with n packets that took `cycles`. */
	void add(Stage s, uint32_t n, uint64_t cycles)
	{
		Counters<StageCtr> &c = c_[static_cast<size_t>(s)];
		c[StageCtr::calls]++;
		c[StageCtr::packets] += n;
		c[StageCtr::cycles] += cycles;
	}
	/* Any thread. */
	uint64_t get(Stage s, StageCtr k) const { return c_[static_cast<size_t>(s)][k]; }

private:
	Counters<StageCtr> c_[kStageCount];
};

/* One row of the runtime table: a stage's sums over some lcores. */
struct RuntimeRow {
	const char *stage;
	uint64_t calls = 0, packets = 0, cycles = 0;
	double ns_per_pkt = 0, pkts_per_call = 0;
};
/* The rows of the given runtimes summed, ns from the TSC rate; plus a last
 * row "total" (its packets: the rx stage's, its cycles every stage's). */
std::vector<RuntimeRow> runtime_rows(const std::vector<const StageRuntime *> &rt, uint64_t tsc_hz);
/* The rows as a `show runtime` table, one line each (no newline). */
std::vector<std::string> runtime_table(const std::vector<RuntimeRow> &rows);

} /* namespace switchd */

#endif
