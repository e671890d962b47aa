/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NetReduce (the RoCE stage): transport-transparent aggregation of RoCEv2 RC
 * traffic, target neutral like ina::process(): no DPDK, no allocation, no
 * locks, no system calls per packet. docs/netreduce.md explains it.
 *
 *   parse      Ethernet/IPv4/UDP 4791/BTH, data opcodes only, ICRC checked
 *   clt        <SrcIP, DstIP, DstQP> -> <ring, rank, MsgID, PSN0>: filled by
 *              a message's first packet (nr_hdr with the InetTag), read by
 *              the others; a later packet the CLT does not know is dropped
 *   address    slot = MsgID % 2N * MsgLen + (PSN - PSN0); the packet frees
 *              the slot of MsgID - N (= (MsgID + N) % 2N) one window back
 *   aggregate  per-rank bitmap: a go-back-N retransmission is never added
 *              twice; sum in the ring's type (int32 saturating, float32)
 *   deparse    result written into the packet's own connection (its own
 *              headers and PSN), ICRC recomputed; the other ranks' result
 *              packets are made with nr_result()
 */
#ifndef INA_NETREDUCE_H
#define INA_NETREDUCE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ina/pipeline.h"
#include "ina/roce.h"
#include "ina/roce_icrc.h"

namespace ina {

/* One ring: an aggregator array of 2 x window messages. */
struct NrRingConfig {
	uint16_t ring_id = 0;
	uint8_t ranks = 0;     /* 2 .. NR_MAX_RANKS */
	uint16_t window = 0;   /* N, messages in flight per rank */
	uint16_t msg_len = 0;  /* MsgLen, packets per message */
	uint16_t mtu = 1024;   /* payload bytes per packet: 256 .. 4096, a multiple of 4 */
	uint8_t dtype = NR_DTYPE_FLOAT32; /* enum nr_dtype */
};

struct NrConfig {
	std::vector<NrRingConfig> rings;
	/* CLT capacity in connections (one per rank and ring at least). */
	uint32_t connections = 1024;
	/* Check every arriving packet's ICRC (results always get a new one).
	 * Off only where the links' Ethernet FCS is trusted to be the check. */
	bool check_icrc = true;
};

/* Every path a RoCE packet takes, one counter each, with its kind
 * (counter_kind.h): the drops are the verdict kDrop's reasons other than
 * `roce_aggregated`, a contribution the slot took. */
#define INA_NR_COUNTERS(X)                                                                                  \
	X(roce_pass_opcode, kEvent, "RoCE opcode that carries no NetReduce data (ACK, READ...), forwarded") \
	X(roce_pass_untagged, kEvent, "first packet without the InetTag: not NetReduce, forwarded")         \
	X(roce_malformed, kDrop, "headers short, IP options, BTH pad or a payload not in elements")         \
	X(roce_icrc_bad, kDrop, "ICRC does not match the packet: corrupted, dropped")                       \
	X(roce_tag_invalid, kDrop, "nr_hdr: unknown ring, or a rank, MsgLen, type or MsgID it lacks")       \
	X(roce_clt_filled, kEvent, "first packet filled or refreshed its connection's CLT entry")           \
	X(roce_clt_full, kDrop, "first packet of a new connection with the CLT full, dropped")              \
	X(roce_clt_expired, kEvent, "CLT entry of an idle connection freed by the sweep")                   \
	X(roce_clt_miss, kDrop, "packet after the first on a connection the CLT does not know, dropped")    \
	X(roce_first_lost, kDrop, "PSN past the CLT's message (its first packet lost), dropped")            \
	X(roce_before_window, kDrop, "PSN more than a window before the CLT's message, dropped")            \
	X(roce_opcode_mismatch, kDrop, "opcode does not fit the packet's place in its message, dropped")    \
	X(roce_shape_mismatch, kDrop, "headers or payload length differ from the slot's other ranks")       \
	X(roce_behind_window, kDrop, "message older than its slot's: result already gone, dropped")         \
	X(roce_ahead_window, kDrop, "slot still aggregating an older message, dropped")                     \
	X(roce_aggregated, kEvent, "values added into a slot")                                              \
	X(roce_duplicate, kDrop, "retransmission of a contribution already in the slot, dropped")           \
	X(roce_completed, kEvent, "slot complete: results sent into every rank's connection")               \
	X(roce_result_resent, kEvent, "retransmission after completion: result sent again")                 \
	X(roce_freed, kEvent, "slot one window back freed by a packet")                                     \
	X(roce_overflow, kEvent, "int32 sum saturated in at least one element")

enum class NrCounter : uint16_t {
#define INA_X(name, kind, help) name,
	INA_NR_COUNTERS(INA_X)
#undef INA_X
	kCount
};

constexpr size_t kNrCounterCount = static_cast<size_t>(NrCounter::kCount);

#define INA_X(name, kind, help) CounterKind::kind,
inline constexpr CounterKind kNrCounterKinds[] = {INA_NR_COUNTERS(INA_X)};
#undef INA_X

/* Kind of a counter (kEvent for an out-of-range id). */
constexpr CounterKind nr_counter_kind(NrCounter c)
{
	return static_cast<size_t>(c) < kNrCounterCount ? kNrCounterKinds[static_cast<size_t>(c)]
							  : CounterKind::kEvent;
}

const char *nr_counter_name(NrCounter c);
const char *nr_counter_help(NrCounter c);

struct NrCounters {
	uint64_t v[kNrCounterCount] = {};
	uint64_t &operator[](NrCounter c) { return v[static_cast<size_t>(c)]; }
	uint64_t operator[](NrCounter c) const { return v[static_cast<size_t>(c)]; }
};

enum class NrVerdict : uint8_t {
	kPass,     /* not NetReduce data: forward untouched */
	kDrop,     /* consumed (aggregated, duplicate) or dropped (counter says) */
	kForward,  /* rewritten into a result of its own connection: route by IP */
	kComplete, /* as kForward, and nr_result() makes every other rank's */
};

struct NrResult {
	NrVerdict verdict;
	NrCounter reason;
	uint16_t ring;  /* index into NrConfig::rings (kComplete) */
	uint8_t rank;   /* the packet's rank (kComplete) */
	uint32_t slot;  /* slot within the ring (kComplete) */
};

/* Identity of a connection, the CLT key. */
struct NrConnKey {
	uint32_t src_ip;
	uint32_t dst_ip;
	uint32_t dqpn;
};

/* A CLT entry, for tests and telemetry. */
struct NrConnState {
	uint16_t ring;
	uint8_t rank;
	uint32_t msg_id;
	uint32_t psn0;
	uint64_t last_seen;
};

/* The CLT and the aggregator arrays of every ring, owned by one lcore. */
class NrTable {
public:
	/* Allocates everything (not on the hot path), the CLT and the ring
	 * arrays from `mem` when it has an alloc function (switchd: the NUMA
	 * node of the lcore that runs the stage). Throws std::invalid_argument
	 * with the reason for a config out of range, std::bad_alloc when the
	 * memory is not there. */
	explicit NrTable(const NrConfig &cfg, const RegisterAllocator &mem = RegisterAllocator());
	~NrTable();
	NrTable(const NrTable &) = delete;
	NrTable &operator=(const NrTable &) = delete;

	const NrConfig &config() const { return cfg_; }
	/* Slots of ring index r: 2 x window x msg_len. */
	uint32_t slots(uint16_t r) const;
	size_t bytes() const;
	/* Ring index of a ring id, or -1. */
	int ring_index(uint16_t ring_id) const;

	/* CLT access for tests and telemetry. */
	bool lookup(const NrConnKey &k, NrConnState *out) const;
	uint32_t connections() const { return clt_used_; }
	/* Frees CLT entries not seen for longer than `timeout` (in the unit of
	 * nr_process()'s `now`); returns how many. Between packets only. */
	uint32_t expire(uint64_t now, uint64_t timeout, NrCounters &ctr);
	/* Empties the CLT and every aggregator (the job was reconfigured). */
	void clear();

	/* Slot state for tests: message id, contributor bitmap, complete. */
	bool slot_state(uint16_t r, uint32_t slot, uint32_t *msg_id, uint32_t *bitmap,
			bool *complete) const;

	/* The state, opaque outside pipeline/src. */
	struct Ring;
	struct CltEntry;

private:
	friend struct NrStages;
	/* Gives the CLT back to the allocator it came from. */
	struct CltDeleter {
		RegisterAllocator mem;
		void operator()(CltEntry *p) const;
	};
	NrConfig cfg_;
	std::vector<std::unique_ptr<Ring>> rings_;
	std::unique_ptr<CltEntry[], CltDeleter> clt_;
	uint32_t clt_mask_ = 0;
	uint32_t clt_used_ = 0;
};

/*
 * Runs one RoCEv2 frame through the stage. The frame is rewritten in place
 * (payload and ICRC only; lengths never change). `now` stamps the CLT entry
 * (the unit of NrTable::expire()).
 */
NrResult nr_process(NrTable &t, NrCounters &ctr, uint8_t *frame, uint32_t len, uint64_t now);

/*
 * After kComplete: writes the result for `rank`'s connection into `frame`
 * (capacity `cap`): that rank's headers (its IPs, QP, PSN, RETH and
 * nr_hdr), the sum, the ICRC. Every byte of the frame is written, so the
 * buffer need not be a copy of anything. Returns the frame's length, or 0
 * for the packet's own rank, a rank with nothing stored or too small a cap.
 */
uint32_t nr_result(const NrTable &t, const NrResult &r, uint8_t rank, uint8_t *frame, uint32_t cap);

} /* namespace ina */

#endif /* INA_NETREDUCE_H */
