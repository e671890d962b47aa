/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The register-stage switch program (ATP Figure 7 and Figure 17, A2TP's Col
 * bit, GOAT's aggregation-node filter), defined once. It is a pure function
 * over a frame and an AggregatorTable: no DPDK, no allocation, no locks, no
 * system calls. switchd, the tests, the benchmarks and the conformance runner
 * all call ina::process(); the P4 build in pipeline/p4/ uses the same stage
 * and action names (see docs/pipeline.md).
 *
 * Stages, in order. Like a Tofino RegisterAction, each register array is
 * touched at most once per packet, by exactly one of its actions:
 *
 *   parse             classify INA / other, validate
 *   filter            control, bypass, GOAT node, past the job's levels
 *   aggregator_id     id_claim | id_match | id_release | id_release_stale
 *                     (key <epoch, job, seq>); a gradient claims an empty
 *                     aggregator only while its job is below its share
 *   job_held          held_inc | held_dec: aggregators each job holds
 *                     (docs/pipeline.md, "Fair share")
 *   aggregator_bitmap bitmap_init | bitmap_or | bitmap_read_clear | bitmap_clear
 *   aggregator_count  count_init | count_add | count_clear
 *   aggregator_value  value_write | value_add | value_add_read | value_read_clear
 *                     | value_add_read_clear
 *   aggregator_flags  flags_init | flags_merge | flags_set_col
 *                     | flags_read | flags_read_clear | flags_clear
 *   deparse           rewrite header (bitmaps, level, flags) and verdict
 */
#ifndef INA_PIPELINE_H
#define INA_PIPELINE_H

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ina/codec.h"
#include "ina/counter_kind.h"
#include "ina/wire.h"

namespace ina {

/* What the caller does with the (possibly rewritten) frame. */
enum class Verdict : uint8_t {
	kDrop,       /* consumed: aggregated, duplicate, malformed, misrouted */
	kDownstream, /* toward the PS: next level or the PS itself, route by IP dst */
	kMulticast,  /* parameter packet: replicate to the job's workers */
	kPass,       /* not INA: forward by the normal tables, untouched */
	kControl,    /* INA control message: for the switch's control plane */
};

/* Every reason a packet takes a path, one counter each. The first column is
 * the counter's name in telemetry and vectors, the second its kind
 * (counter_kind.h): the drops are the verdict kDrop's reasons other than
 * `aggregated`, a gradient the aggregator took. The order is the P4
 * build's counter numbering (constants.p4): add at the end. */
#define INA_PIPELINE_COUNTERS(X)                                                            \
	X(pass_through, kEvent, "not INA traffic, forwarded untouched")                     \
	X(control, kEvent, "INA control message handed to the control plane")               \
	X(malformed_short, kDrop, "frame shorter than its headers or payload")              \
	X(malformed_version, kDrop, "INA version not supported")                            \
	X(malformed_type, kDrop, "INA type unknown")                                        \
	X(malformed_length, kDrop, "elem_count does not match the UDP length")              \
	X(too_wide, kEvent, "gradient wider than the aggregators, sent to the PS")          \
	X(malformed_level, kDrop, "level or levels out of range")                           \
	X(malformed_fan_in, kDrop, "fan-in 0 or above the bitmap width")                    \
	X(malformed_bitmap, kDrop, "bitmap empty or with bits outside the fan-in")          \
	X(malformed_index, kDrop, "aggregator index beyond the table")                      \
	X(malformed_job, kDrop, "job id 0 (reserved for an empty aggregator)")              \
	X(misrouted, kDrop, "aggregator index owned by another table (lcore)")              \
	X(bypass, kEvent, "A2TP bypass flag: forwarded to the PS without aggregation")      \
	X(float_forwarded, kEvent, "float32 payload (overflow retry), forwarded to the PS") \
	X(goat_forwarded, kEvent, "GOAT: another switch aggregates it, forwarded")          \
	X(past_levels, kEvent, "already past its in-network levels, forwarded")             \
	X(claimed, kEvent, "empty aggregator allocated by a gradient packet")               \
	X(aggregated, kEvent, "gradient values added into an aggregator (claims too)")      \
	X(completed, kEvent, "aggregation complete, result sent downstream")                \
	X(collision, kEvent, "aggregator held by another <job, seq>, sent to the PS")       \
	X(share_refusals, kEvent, "job at its aggregator share: no claim, sent to the PS")  \
	X(duplicate, kDrop, "contribution already in the aggregator, dropped")              \
	X(resend_merged, kEvent, "first level: resent packet merged, partial flushed")      \
	X(resend_flushed, kEvent, "higher level: resent packet freed the aggregator")       \
	X(resend_forwarded, kEvent, "resent packet with no aggregator, forwarded")          \
	X(overflow, kEvent, "saturating add left at least one element at a limit")          \
	X(ack_freed, kEvent, "parameter packet freed its aggregator")                       \
	X(gc_freed, kEvent, "parameter packet freed a stale aggregator (timeout)")          \
	X(ack_unmatched, kEvent, "parameter packet with nothing to free")                   \
	X(multicast, kEvent, "parameter packet multicast to the job")

enum class Counter : uint16_t {
#define INA_X(name, kind, help) name,
	INA_PIPELINE_COUNTERS(INA_X)
#undef INA_X
	kCount
};

constexpr size_t kCounterCount = static_cast<size_t>(Counter::kCount);

#define INA_X(name, kind, help) CounterKind::kind,
inline constexpr CounterKind kCounterKinds[] = {INA_PIPELINE_COUNTERS(INA_X)};
#undef INA_X

/* Kind of a counter (kEvent for an out-of-range id). */
constexpr CounterKind counter_kind(Counter c)
{
	return static_cast<size_t>(c) < kCounterCount ? kCounterKinds[static_cast<size_t>(c)]
						      : CounterKind::kEvent;
}

/* A malformed_* reason: a packet the protocol calls malformed, dropped
 * (docs/protocol.md). Their total is switchd's `malformed`. */
constexpr bool counter_is_malformed(Counter c)
{
	return c >= Counter::malformed_short && c <= Counter::malformed_job && c != Counter::too_wide;
}

/* Name and help text of a counter; nullptr for an out-of-range id. */
const char *counter_name(Counter c);
const char *counter_help(Counter c);
/* Counter id by name; false if unknown. */
bool counter_from_name(const char *name, Counter *out);

/* Counters of one AggregatorTable (one lcore): plain integers, single writer. */
struct PipelineCounters {
	uint64_t v[kCounterCount] = {};
	uint64_t &operator[](Counter c) { return v[static_cast<size_t>(c)]; }
	uint64_t operator[](Counter c) const { return v[static_cast<size_t>(c)]; }
};

struct PipelineConfig {
	/* Size of the global aggregator index space (the N workers hash into). */
	uint32_t aggregators = 4096;
	/* This table owns the indices i with i % stride == offset: one table per
	 * lcore, interleaved so that a window of consecutive indices spreads. */
	uint32_t stride = 1;
	uint32_t offset = 0;
	/* int32 elements per aggregator: the largest elem_count accepted. */
	uint16_t elements = INA_DEFAULT_ELEMENTS;
	/* This switch's id, compared with the packet's agg_node (GOAT). */
	uint16_t switch_id = 1;
	/* A parameter packet frees a foreign aggregator idle for longer than this,
	 * in the caller's time unit (the `now` of process()). 0: never. */
	uint64_t gc_timeout = 0;
};

/* Which SIMD path the value stage uses. */
enum class SimdLevel : uint8_t { kScalar, kAvx2, kAvx512 };
/* The best level this CPU supports. */
SimdLevel simd_best();
const char *simd_name(SimdLevel level);

/* Snapshot of one aggregator, for tests, vectors and telemetry. */
struct AggregatorState {
	bool occupied = false;
	uint8_t epoch = 0; /* the job's incarnation (INA_EPOCH_SHIFT) */
	uint16_t job = 0;
	uint32_t seq = 0;
	uint64_t timestamp = 0;
	uint32_t bitmap = 0;
	uint32_t count = 0;
	bool ecn = false;
	bool col = false;
	bool overflow = false;
	const int32_t *value = nullptr; /* `elements` values */
};

/*
 * Where a table's register arrays come from. The default is the C heap; a
 * caller that must place them (switchd: on the NUMA node of the lcore that
 * owns the table) passes its own pair. alloc returns memory aligned to
 * `align` (a power of two, at least 64) or null; the table zeroes it.
 */
struct RegisterAllocator {
	void *(*alloc)(size_t bytes, size_t align, void *ctx) = nullptr;
	void (*free)(void *p, void *ctx) = nullptr;
	void *ctx = nullptr;
};

/* The register arrays of one lcore's share of the aggregators. */
class AggregatorTable {
public:
	/* Allocates the registers (not on the hot path), from `mem` when it
	 * has an alloc function. Throws std::invalid_argument for a config out
	 * of range, std::bad_alloc when the memory is not there. */
	explicit AggregatorTable(const PipelineConfig &cfg, SimdLevel simd = simd_best(),
				 const RegisterAllocator &mem = RegisterAllocator());
	~AggregatorTable();
	AggregatorTable(const AggregatorTable &) = delete;
	AggregatorTable &operator=(const AggregatorTable &) = delete;

	const PipelineConfig &config() const { return cfg_; }
	SimdLevel simd() const { return simd_; }
	/* Aggregators this table holds, and how many are allocated now. */
	uint32_t slots() const { return slots_; }
	uint32_t occupied() const { return occupied_; }
	/* Bytes of register memory this table holds. */
	size_t register_bytes() const;
	bool owns(uint32_t index) const
	{
		return index < cfg_.aggregators && index % cfg_.stride == cfg_.offset;
	}

	/* Aggregators of this table that `job` holds now (any epoch): the
	 * job_held register, kept by every claim and every free. */
	uint32_t held(uint16_t job) const;

	/* Read or overwrite one aggregator by global index (must be owned). */
	AggregatorState read(uint32_t index) const;
	void write(uint32_t index, const AggregatorState &s, const int32_t *value, uint16_t n);
	/* Empty every aggregator. */
	void clear();

	/*
	 * Maintenance, between packets (never inside process()): the owner of
	 * the table frees aggregators no packet will free. `freed` (may be
	 * null) is told the job of each aggregator freed. A Tofino control
	 * plane does the same through the register read/write API.
	 *
	 * sweep: looks at `n` slots from *cursor on (wrapping; the cursor moves
	 * on) and frees each one whose last aggregation is older than
	 * `timeout` (0: frees nothing), as the parameter packet's garbage
	 * collection does, without waiting for a packet to land on the slot.
	 * purge: frees every aggregator whose job `stale(job, ctx)` names.
	 * Both return how many they freed.
	 */
	using FreedFn = void (*)(uint16_t job, void *ctx);
	uint32_t sweep(uint32_t *cursor, uint32_t n, uint64_t now, uint64_t timeout, FreedFn freed,
		       void *ctx);
	uint32_t purge(bool (*stale)(uint16_t job, void *ctx), FreedFn freed, void *ctx);

private:
	friend struct PipelineStages;
	void free_slot(uint32_t i);
	void set_key(uint32_t i, uint64_t key);
	PipelineConfig cfg_;
	SimdLevel simd_;
	uint32_t slots_ = 0;
	uint32_t occupied_ = 0;
	struct Registers;
	std::unique_ptr<Registers> reg_;
};

/* What process() did with a frame. */
struct Result {
	Verdict verdict;
	Counter reason; /* the counter that names the path taken */
};

/* A job's share of a table with no limit (process()'s default). */
constexpr uint32_t kNoShareLimit = UINT32_MAX;

/*
 * GOAT (docs/goat.md, "Split sub-models"): the children that aggregate at
 * an aggregator where a plan gives only some of a job's workers. Their
 * number completes the aggregation and only their bits are allowed, in
 * place of the fragment's fan_in and the bits below it. The caller looks it
 * up by <job, index> (switchd's GOAT table; in P4 the goat_children table,
 * a range match that overwrites fan_in and the allowed bits after
 * fan_in_mask); without it the fragment's own fan-in holds.
 */
struct Children {
	uint8_t fan_in = 0;   /* 1..INA_BITMAP_BITS */
	uint32_t allowed = 0; /* the children's bits: fan_in of them */
};

/*
 * Runs one frame through the switch program. `frame` is rewritten in place
 * (payload and INA header only; lengths never change); nothing outside
 * [frame, frame + len) is read or written. `now` is a monotonic time in the
 * unit of PipelineConfig::gc_timeout. Congestion seen by the caller (egress
 * queue above the ECN threshold) is signalled by setting INA_F_ECN in the
 * frame before the call: the aggregator keeps it until the result leaves.
 *
 * `share` is how many of this table's aggregators the packet's job may
 * hold (the lcore's part of the job's max_aggregators): a gradient that
 * would claim an empty aggregator while table.held(job) >= share is sent
 * on like a collision and counted share_refusals (docs/pipeline.md).
 * `children`: a gradient's children at its level instead of its header's
 * (GOAT, above); nullptr for the header's.
 */
Result process(AggregatorTable &table, PipelineCounters &counters, uint8_t *frame,
	       uint32_t len, uint64_t now, uint32_t share = kNoShareLimit, const Children *children = nullptr);

/*
 * The same, for a frame whose INA header the caller has decoded already
 * (ina/codec.h, decode_view(): switchd's classify()), so that no stage
 * parses a packet twice. `view` must be that frame's: process() judges its
 * fields (version, type, lengths, ...) and reads no header field from the
 * frame; it writes the frame as above and keeps view.flags equal to the
 * frame's flags word. The overload above is find_ina_header(),
 * decode_view(), then this.
 */
Result process(AggregatorTable &table, PipelineCounters &counters, uint8_t *frame, uint32_t len,
	       InaView &view, uint64_t now, uint32_t share = kNoShareLimit, const Children *children = nullptr);

} /* namespace ina */

#endif /* INA_PIPELINE_H */
