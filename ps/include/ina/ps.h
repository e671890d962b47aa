/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The parameter server's aggregation logic (ATP §3.6-3.8, A2TP §4.3), as a
 * library with no I/O of its own: handle() takes one received frame and
 * appends the frames to send (parameter packets, float requests) to a
 * TxQueue. Everything is allocated when a job is added; handle() does not
 * allocate, lock, log or throw. The packet contract is in docs/ps.md.
 *
 * Per job, fragments live in a ring of `window` slots indexed by
 * (seq / ps_count) mod window: a slot is reused by a newer sequence number
 * once its fragment is done, so a job of millions of fragments needs only
 * as many slots as fragments in flight.
 *
 * One ParameterServer serves one shard of its instance's fragments: with
 * `shards` > 1 (ina-ps --threads), shard k owns the fragments whose round
 * (seq / ps_count) satisfies round % shards == k and keeps them in its own
 * ring, indexed by (round / shards) mod window/shards; each shard is driven
 * by one thread, so no state is shared between threads.
 */
#ifndef INA_PS_H
#define INA_PS_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ina/codec.h"
#include "ina/control_auth.h"
#include "ina/goat_wire.h"
#include "ina/wire.h"

namespace ina {

/* Most workers per job: the control message counts them in a u8. */
constexpr uint32_t kPsMaxWorkers = 255;
/* Bit value meaning "the worker does not take part at this level". */
constexpr uint8_t kPsNoBit = 0xFF;

struct PsWorker {
	uint32_t ip = 0;
	uint8_t mac[6] = {};
	uint8_t bit[INA_MAX_LEVELS] = {kPsNoBit, kPsNoBit, kPsNoBit, kPsNoBit};
};

/* GOAT (docs/goat.md, "Installing a plan"): a switch the PS sends its part
 * of the job's plan to, by control message, after the registration. */
struct PsGoatSwitch {
	uint16_t id = 0; /* its switch id, the plan's agg_node */
	uint32_t ip = 0;
	uint8_t mac[6] = {};
	CtrlKey key;                        /* signs the messages; empty: unsigned */
	std::string key_file;               /* where the key was read; empty: none */
	std::vector<GoatSlots> slots;       /* the ranges it is sent */
	std::vector<std::string> submodels; /* the plan's names, for messages */
};

struct PsJobConfig {
	uint16_t job = 0;
	/* Largest elem_count accepted. 0 in a job file without `elements`
	 * (or "auto"): ina-ps sizes it from the path (docs/ps.md, "Fragment
	 * size") before add_job(), which wants 1..INA_MAX_ELEMENTS. */
	uint16_t elements = INA_DEFAULT_ELEMENTS;
	bool elements_auto = false; /* the job file left it to the path */
	uint32_t aggregators = 4096;              /* switch index space N, for re-hashing */
	uint32_t window = 4096;                   /* fragment slots, a power of two */
	uint8_t levels = 0;
	uint8_t fan_in[INA_MAX_LEVELS] = {};
	std::vector<PsWorker> workers;
	uint32_t ps_count = 1; /* this PS owns seq % ps_count == ps_index */
	uint32_t ps_index = 0;
	bool multicast_ack = false; /* ACK to 239.18.hi.lo (via a switch) or unicast */
	/* Sent in the registration: how often the PS repeats it (ms, 0 =
	 * never); the switch expires the job after a few missed repeats. */
	uint16_t refresh_ms = 0;
	/* The job's run (docs/protocol.md, "Epochs"): stamped on every
	 * packet the PS sends for the job; packets of another epoch are
	 * dropped (stale_epoch). The switch's ACK gives it (set_epoch); 0
	 * without one (no switch, or a job of the switch's config). */
	uint8_t epoch = 0;
	bool has_switch = false;    /* register with it; next hop for unicast requests */
	uint32_t switch_ip = 0;
	uint8_t switch_mac[6] = {};
	CtrlKey switch_key;                   /* signs control messages; empty: unsigned */
	std::string switch_key_file;          /* where it was read (resolved path); empty: none */
	uint32_t register_timeout_ms = 10000; /* give up when the switch does not answer */
	uint32_t ack_holdoff_us = 100;    /* least time between two ACK re-sends of a fragment */
	uint32_t float_holdoff_us = 1000; /* least time between two float requests of a fragment */
	/* Least time an incomplete fragment holding a worker's bypassed
	 * contribution waits for the rest before the PS asks the workers whose
	 * copies are missing for them (docs/ps.md, "Split fragments"), and
	 * between two such requests; the PS waits longer when the
	 * fragments it completes itself need longer to gather. 0: never ask. */
	uint32_t bypass_holdoff_us = 2000;
	uint32_t float_slots = 256;       /* fragments in the float path at once */
	std::string goat_plan;            /* [goat] plan, resolved path; empty: none */
	std::vector<PsGoatSwitch> goat;   /* the plan's switches that aggregate */
};

/* Per-job counters; a name per drop reason. */
#define INA_PS_JOB_COUNTERS(X)                                                        \
	X(packets, "INA data packets received for the job")                          \
	X(completed, "fragments completed (parameter packet sent)")                  \
	X(completed_in_network, "fragments that arrived complete in one packet")     \
	X(completed_at_ps, "fragments the PS finished from several packets")        \
	X(partial_packets, "packets carrying more than one and less than all workers") \
	X(worker_packets, "packets carrying a single worker")                       \
	X(duplicates, "packets overlapping what the fragment holds, dropped")        \
	X(superseded, "partial sums containing all the fragment held, taken whole")  \
	X(collisions, "packets with the collision flag")                            \
	X(remaps, "parameter packets carrying a new aggregator index")               \
	X(retransmits, "packets with the resend flag")                              \
	X(after_done, "packets for a fragment already complete")                    \
	X(ack_resent, "parameter packets sent again for a lost ACK")                \
	X(ack_frames, "parameter packet frames sent (copies included)")              \
	X(ecn, "packets with ECN (flag or IP CE)")                                   \
	X(overflows, "fragments moved to the float path")                           \
	X(ps_overflows, "of those, saturated by the PS's own addition")             \
	X(float_requests, "float request frames sent")                              \
	X(float_packets, "float answers aggregated")                                \
	X(int_after_overflow, "int32 packets of a fragment in the float path")        \
	X(split_recoveries, "fragments split by a bypass, asked for again")         \
	X(resend_requests, "int32 resend request frames sent (split fragments)")   \
	X(float_pool_full, "overflow with no free float slot, packet dropped")      \
	X(not_owned, "fragments of another PS partition, dropped")                  \
	X(other_shard, "fragments of another thread's shard, dropped")              \
	X(stale, "packets older than the window, dropped")                          \
	X(evicted_incomplete, "unfinished fragments pushed out of the window")      \
	X(bad_bitmap, "packets containing no worker of the job, dropped")           \
	X(bad_levels, "packets whose levels differ from the job's, dropped")        \
	X(bad_elements, "elem_count above the job's or differing within a fragment") \
	X(unexpected_ack, "parameter packets received by the PS, dropped")          \
	X(stale_epoch, "packets of another run (epoch) of the job, dropped")        \
	X(tx_full, "frames not sent: TxQueue full")

/* A counter that one thread writes (its shard's) and others read while it
 * counts (ina-ps's progress line): a relaxed atomic bumped with a plain
 * load and store, no locked instruction, as the worker's sender counters.
 * Only the owner writes it, so no increment is lost. */
class OwnedCounter {
public:
	OwnedCounter() = default;
	OwnedCounter(const OwnedCounter &o) : v_(o.get()) {}
	OwnedCounter &operator=(const OwnedCounter &o) { return *this = o.get(); }
	OwnedCounter &operator=(uint64_t x)
	{
		v_.store(x, std::memory_order_relaxed);
		return *this;
	}
	OwnedCounter &operator+=(uint64_t n) { return *this = get() + n; }
	OwnedCounter &operator++() { return *this += 1; }
	uint64_t operator++(int)
	{
		const uint64_t old = get();
		*this = old + 1;
		return old;
	}
	uint64_t get() const { return v_.load(std::memory_order_relaxed); }
	operator uint64_t() const { return get(); }

private:
	std::atomic<uint64_t> v_{0};
};

struct PsJobStats {
#define INA_X(name, help) OwnedCounter name;
	INA_PS_JOB_COUNTERS(INA_X)
#undef INA_X
};

/* Counters not tied to a job. */
struct PsStats {
	uint64_t not_ina = 0;     /* not IPv4/UDP to port 18766, or too short */
	uint64_t bad_version = 0; /* INA version other than INA_VERSION */
	uint64_t bad_type = 0;    /* control or unknown type */
	uint64_t bad_length = 0;  /* UDP length does not match elem_count */
	uint64_t unknown_job = 0; /* job not served by this PS */
};

/* Frames the PS wants sent, in preallocated buffers. */
class TxQueue {
public:
	explicit TxQueue(uint32_t capacity = 1024, uint32_t frame_bytes = INA_FRAME_LEN(INA_MAX_ELEMENTS));
	/* A buffer for the next frame, or nullptr when full; commit() makes it
	 * part of the queue. */
	uint8_t *reserve();
	void commit(uint32_t len);
	uint32_t size() const { return n_; }
	uint32_t capacity() const { return cap_; }
	uint32_t room() const { return cap_ - n_; }
	const uint8_t *frame(uint32_t i, uint32_t *len) const;
	uint8_t *data(uint32_t i) { return mem_.get() + size_t(i) * bytes_; }
	uint32_t len(uint32_t i) const { return len_[i]; }
	void clear() { n_ = 0; }

private:
	uint32_t cap_, bytes_, n_ = 0;
	std::unique_ptr<uint8_t[]> mem_;
	std::unique_ptr<uint32_t[]> len_;
};

/* What one job's slots and float buffers may take (window x elements
 * int32 values, float_slots x elements doubles, the slots themselves), so
 * that a large window is refused rather than failing to allocate. */
constexpr uint64_t kPsMaxJobBytes = 1ull << 30;
/* False with a one-line *error if cfg needs more than kPsMaxJobBytes. */
bool ps_job_memory_ok(const PsJobConfig &cfg, std::string *error);

/* Adds every counter of `from` to `to` (the shards' statistics). */
void ps_add_stats(PsJobStats &to, const PsJobStats &from);
void ps_add_stats(PsStats &to, const PsStats &from);

/* The shard of a fragment: its round within this instance's partition
 * (seq / ps_count), modulo the shard count. Dividing by ps_count first keeps
 * the shards balanced when ps_count and the shard count share a factor
 * (seq % shards alone would give PS 0 of 2 with 2 threads one busy thread). */
constexpr uint32_t ps_shard(uint32_t seq, uint32_t ps_count, uint32_t shards)
{
	return (seq / ps_count) % shards;
}

/* Slots a shard keeps of a job's `window`: window / shards rounded up to a
 * power of two, so that the shard's ring still spans `window` consecutive
 * rounds of the job (docs/ps.md, "Fragment state"). */
uint32_t ps_shard_window(uint32_t window, uint32_t shards);

/* Most shards (threads) of one PS. */
constexpr uint32_t kPsMaxShards = 64;

class ParameterServer {
public:
	/* `self`: the PS's MAC, IPv4 address and UDP port (frames' sources).
	 * `shard` of `shards`: the part of the fragments this one serves. */
	explicit ParameterServer(const Endpoint &self, uint32_t shard = 0, uint32_t shards = 1);
	~ParameterServer();
	ParameterServer(const ParameterServer &) = delete;
	ParameterServer &operator=(const ParameterServer &) = delete;

	/* Validates and adds a job (allocates its slots); false with a one-line
	 * *error for a bad config or a job id already served. */
	bool add_job(const PsJobConfig &cfg, std::string *error);
	bool has_job(uint16_t job) const;
	/* The epoch the switch gave the job's run (its registration's ACK);
	 * between frames, before its workers start. */
	void set_epoch(uint16_t job, uint8_t epoch);
	/* The job's fragment size once the path is known (docs/ps.md,
	 * "Fragment size"): packets with more elements are dropped
	 * (bad_elements). At most the elements it was added with (its slots'
	 * room); false otherwise or for a job not served. Between frames. */
	bool set_elements(uint16_t job, uint16_t elements);
	/* The largest elem_count the job accepts now; 0 for a job not served. */
	uint16_t elements(uint16_t job) const;
	std::vector<uint16_t> jobs() const;

	/* Handles one received frame; appends what must be sent to `tx`. Needs
	 * tx.room() >= the job's worker count to never drop an output (the
	 * frames that do not fit are counted in tx_full). `now_ns` is a
	 * monotonic clock in nanoseconds (the parameter packets carry it,
	 * wire.h ina_ack_ps_clock; the hold-offs count in its microseconds).
	 * `rx`: the frame as its receiver
	 * parsed it, once (parse_rx_frame()); the PS reads no byte of its INA
	 * header again. */
	void handle(const RxFrame &rx, uint64_t now_ns, TxQueue &tx);
	void handle(const uint8_t *frame, uint32_t len, uint64_t now_ns, TxQueue &tx)
	{
		handle(parse_rx_frame(frame, len), now_ns, tx);
	}
	/* Time-driven work between frames: asks for the fragments that a
	 * worker's bypass split between the switch and the PS and that waited
	 * past the hold-off. Call it every millisecond or so (each receive
	 * turn); same TxQueue rule and clock as handle(). */
	void tick(uint64_t now_ns, TxQueue &tx);

	/* Which shard serves this frame: the fragment's shard for a data
	 * packet of a served job, else 0 (shard 0 also takes control messages
	 * and counts malformed frames). Reads only what add_job() wrote, so
	 * any thread may call it while the shards serve. */
	uint32_t shard_of(const RxFrame &rx) const;
	uint32_t shard_of(const uint8_t *frame, uint32_t len) const { return shard_of(parse_rx_frame(frame, len)); }
	uint32_t shard() const { return shard_; }
	uint32_t shards() const { return shards_; }

	const PsJobStats *job_stats(uint16_t job) const;
	const PsStats &stats() const { return stats_; }

	struct Job;

private:
	Endpoint self_;
	uint32_t shard_, shards_;
	PsStats stats_;
	std::vector<std::unique_ptr<Job>> jobs_; /* indexed by job id */
	std::vector<uint16_t> job_ids_;          /* the jobs served, for tick() */
};

/* Counter names and help, in declaration order, for printing. */
struct PsCounterInfo {
	const char *name;
	const char *help;
	OwnedCounter PsJobStats::*field;
};
const std::vector<PsCounterInfo> &ps_job_counters();

} /* namespace ina */

#endif /* INA_PS_H */
