/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Counters kept by the data path, one writer each (the lcore that owns
 * them); telemetry and the periodic summary read them while it counts.
 * Every access through operator[] is a relaxed atomic (CounterRef):
 * the writer's increment is a load and a store, no locked instruction (it is
 * the only writer, so nothing is lost), and a reader's load is never torn
 * or kept in a register, as the PS's ina::OwnedCounter. Every drop reason
 * has a counter.
 *
 * Each list gives a counter's name, its kind (ina/counter_kind.h) and one
 * line of help. A frame to the INA UDP port that classify cannot take (cut
 * short, another version, job 0) is counted by the switch program's own
 * reasons (malformed_short, ...; ina/pipeline.h), as a frame the pipeline
 * drops would be: one counter per reason, wherever it is found. The summaries name every non-zero counter of kind kDrop,
 * found from these lists; docs/switchd.md ("Where every packet went") sums
 * them with the others into the identity that explains every packet.
 */
#ifndef INA_SWITCHD_STATS_H
#define INA_SWITCHD_STATS_H

#include <cstddef>
#include <cstdint>

#include "ina/counter_kind.h"

namespace switchd {

/* Per lcore and port. */
#define SWITCHD_PORT_COUNTERS(X)                                        \
	X(rx_packets, kEvent, "packets received")                       \
	X(rx_bytes, kEvent, "bytes received")                           \
	X(tx_packets, kEvent, "packets sent")                           \
	X(tx_bytes, kEvent, "bytes sent")                               \
	X(egress_drops, kDrop, "tail drops: egress queue at capacity")  \
	X(random_drops, kDrop, "random drops (drop_rate)")              \
	X(ecn_marks, kEvent, "packets ECN-marked at this egress queue") \
	X(queue_depth, kGauge, "egress queue depth now (packets)")

/* Per lcore. */
#define SWITCHD_LCORE_COUNTERS(X)                                                                        \
	X(packets, kEvent, "packets handled by this lcore (after hand-off)")                             \
	X(busy_ns, kEvent, "thread CPU ns in loop rounds that carried packets")                          \
	X(handoff_out, kEvent, "INA packets handed to the owning lcore")                                 \
	X(handoff_in, kEvent, "INA packets received from another lcore")                                 \
	X(handoff_drops, kDrop, "hand-off ring full, dropped")                                           \
	X(no_route, kDrop, "no neighbour for the destination, dropped")                                  \
	X(runt_drops, kDrop, "frames shorter than their headers, dropped")                               \
	X(unknown_port_drops, kDrop, "received on a port not in the config, dropped")                    \
	X(flood_no_port, kDrop, "to flood with no other port to flood to, dropped")                      \
	X(admission_drops, kDrop, "gradient from a source not registered for its bit")                   \
	X(spoof_port_drops, kDrop, "job packet from a worker's or the PS's IP on another port")          \
	X(spoof_mac_drops, kDrop, "job packet from a worker's or the PS's IP with another MAC")          \
	X(forged_result_drops, kDrop, "parameter packet not from the job's PS (IP, MAC, port)")          \
	X(stale_epoch_drops, kDrop, "job packet of another run (epoch) than the registered one")         \
	X(purge_frees, kEvent, "aggregators freed because their job was removed or replaced")            \
	X(sweep_frees, kEvent, "aggregators freed by the idle sweep (gc_timeout_ms)")                    \
	X(unregistered_job, kEvent, "INA packet of an unregistered job, forwarded as is")                \
	X(absorbed, kEvent, "packets taken into an aggregator: their values leave with its result")      \
	X(control_received, kEvent, "control messages handed to the control plane")                      \
	X(control_drops, kDrop, "control ring full, dropped")                                            \
	X(multicast_copies, kEvent, "parameter packet copies sent")                                      \
	X(multicast_flat_copies, kEvent, "copies with their own payload (port cannot chain)")            \
	X(multicast_split_horizon, kEvent, "copies not sent back out of the arrival port")               \
	X(multicast_alloc_drops, kDrop, "no mbuf for a multicast copy, dropped")                         \
	X(flooded, kEvent, "broadcast / unknown destination flooded")                                    \
	X(arp_replies, kEvent, "ARP requests for the switch IP answered")                                \
	X(to_switch_drops, kDrop, "non-control packets for the switch itself, dropped")                  \
	X(multiseg_drops, kDrop, "multi-segment frames received, dropped")                               \
	X(ecn_premarks, kEvent, "INA packets marked before the pipeline (queue above threshold)")        \
	X(goat_unassigned, kEvent, "GOAT: names this switch, index outside the job's ranges, forwarded") \
	X(goat_no_node, kEvent, "GOAT: job has an assignment here, fragment names no switch, forwarded") \
	X(netreduce_results, kEvent, "NetReduce result copies made for the other ranks")                 \
	X(netreduce_alloc_drops, kDrop, "no mbuf for a NetReduce result copy, dropped")                  \
	X(netreduce_result_drops, kDrop, "NetReduce result copy with no headers for its rank, dropped")

/* Per job (summed over lcores for telemetry). */
#define SWITCHD_JOB_COUNTERS(X)                                                                  \
	X(aggregated, kEvent, "gradient packets added into an aggregator")                       \
	X(completed, kEvent, "aggregations completed")                                           \
	X(sent_to_ps, kEvent, "packets sent downstream toward the PS")                           \
	X(collisions, kEvent, "collisions, sent to the PS")                                      \
	X(share_refusals, kEvent, "claims refused at the job's max_aggregators, sent to the PS") \
	X(too_wide, kEvent, "gradients wider than the switch's elements, sent to the PS")       \
	X(too_wide_elements, kGauge, "elem_count of the widest too_wide gradient")               \
	X(malformed, kDrop, "dropped as malformed by the switch program (malformed_* say why)")  \
	X(resends, kEvent, "resent packets seen (merged, flushed, forwarded)")                   \
	X(gc_frees, kEvent, "stale aggregators freed by timeout")                                \
	X(admission_drops, kDrop, "gradients dropped by admission")                              \
	X(spoof_drops, kDrop, "packets from a member's IP on another port or MAC")               \
	X(forged_result_drops, kDrop, "parameter packets not from the job's PS")                 \
	X(stale_epoch_drops, kDrop, "packets of another run (epoch) of the job")                 \
	X(purge_frees, kEvent, "aggregators freed when the job was removed or replaced")         \
	X(ecn_marks, kEvent, "packets ECN-marked")                                               \
	X(egress_drops, kDrop, "packets dropped at egress")                                      \
	X(multicast, kEvent, "parameter packets multicast")                                      \
	X(unregistered, kEvent, "packets forwarded while the job was not registered")            \
	X(goat_passed, kEvent, "GOAT: forwarded unaggregated, outside this switch's assignment")

#define SWITCHD_ENUM(name, kind, help) name,
enum class PortCtr : uint8_t { SWITCHD_PORT_COUNTERS(SWITCHD_ENUM) kCount };
enum class LcoreCtr : uint8_t { SWITCHD_LCORE_COUNTERS(SWITCHD_ENUM) kCount };
enum class JobCtr : uint8_t { SWITCHD_JOB_COUNTERS(SWITCHD_ENUM) kCount };
#undef SWITCHD_ENUM

#define SWITCHD_KIND(name, kind, help) ina::CounterKind::kind,
inline constexpr ina::CounterKind kPortCounterKinds[] = {SWITCHD_PORT_COUNTERS(SWITCHD_KIND)};
inline constexpr ina::CounterKind kLcoreCounterKinds[] = {SWITCHD_LCORE_COUNTERS(SWITCHD_KIND)};
inline constexpr ina::CounterKind kJobCounterKinds[] = {SWITCHD_JOB_COUNTERS(SWITCHD_KIND)};
#undef SWITCHD_KIND

/* Relaxed atomic loads and stores of a counter word (GCC's __atomic
 * builtins, std::atomic_ref's before C++20): a plain aligned mov on x86,
 * which the compiler may neither tear, nor keep in a register, nor merge. */
inline uint64_t load_counter(const uint64_t &w) { return __atomic_load_n(&w, __ATOMIC_RELAXED); }
inline void store_counter(uint64_t &w, uint64_t x) { __atomic_store_n(&w, x, __ATOMIC_RELAXED); }
static_assert(__atomic_always_lock_free(sizeof(uint64_t), 0), "counters are read while they count");

/* One counter word, written by its owner only: a relaxed load and a relaxed
 * store, no read-modify-write instruction. */
class CounterRef {
public:
	explicit CounterRef(uint64_t &w) : w_(w) {}
	operator uint64_t() const { return load_counter(w_); }
	CounterRef &operator=(uint64_t x)
	{
		store_counter(w_, x);
		return *this;
	}
	CounterRef &operator+=(uint64_t n) { return *this = load_counter(w_) + n; }
	CounterRef &operator++() { return *this += 1; }
	uint64_t operator++(int)
	{
		const uint64_t old = load_counter(w_);
		store_counter(w_, old + 1);
		return old;
	}

private:
	uint64_t &w_;
};

template <typename E>
struct Counters {
	alignas(8) uint64_t v[static_cast<size_t>(E::kCount)] = {};
	CounterRef operator[](E e) { return CounterRef(v[static_cast<size_t>(e)]); }
	uint64_t operator[](E e) const { return load_counter(v[static_cast<size_t>(e)]); }
	/* The i-th counter, loaded as a reader loads it. */
	uint64_t load(size_t i) const { return load_counter(v[i]); }
	static constexpr size_t size() { return static_cast<size_t>(E::kCount); }
};

using PortCounters = Counters<PortCtr>;
using LcoreCounters = Counters<LcoreCtr>;
using JobCounters = Counters<JobCtr>;

extern const char *const kPortCounterNames[];
extern const char *const kLcoreCounterNames[];
extern const char *const kJobCounterNames[];

} /* namespace switchd */

#endif
