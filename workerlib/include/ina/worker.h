/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The worker library: all-reduce of float tensors through INA switches and a
 * parameter server (ATP §3.6-3.8, A2TP §4.3).
 *
 *   ina::WorkerConfig cfg;           // job, position, PS, transport, ...
 *   std::string err;
 *   auto w = ina::Worker::open(cfg, &err);
 *   w->allreduce(grad, n);           // grad now holds the sum over workers
 *   auto h = w->allreduce_async(other, m);  ...  h.wait();
 *
 * Every worker of a job must submit the same tensors (same sizes) in the same
 * order: fragment sequence numbers are assigned in submission order and
 * continue across tensors and rounds. Tensors are handed to sender threads by
 * least load (ATP §4); each thread owns its transport, its window and its
 * congestion control, and nothing shared is locked per packet.
 */
#ifndef INA_WORKER_H
#define INA_WORKER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ina/roce_ring.h"
#include "ina/transport.h"
#include "ina/wire.h"
#include "ina/worker/congestion.h"
#include "ina/worker/index_policy.h"
#include "ina/worker/rtt.h"

namespace ina {

struct PsAddress {
	uint32_t ip = 0; /* host order */
	uint8_t mac[6] = {0, 0, 0, 0, 0, 0};
};

/* Bounds of WorkerConfig that size memory: the largest switch (switchd's
 * `aggregators`), and the send windows of all threads together. */
constexpr uint32_t kMaxAggregators = 1u << 24;
constexpr uint64_t kMaxWindowCapacity = 1u << 24;

/* GOAT (docs/goat.md, "Installing a plan"): the part of a round's flat
 * gradient (every tensor the worker submits, in order, as one array of
 * elements; a round ends after the last range) that ends before
 * end_element goes to the switch agg_node, or to the PS with
 * INA_F_BYPASS when agg_node is 0. With index_end > index_first its
 * fragments take their index in [index_first, index_end) (a split
 * sub-model's aggregators, docs/goat.md "Split sub-models"), else in the
 * switch's goat_aggregators (the PS: the job's own index). */
struct GoatRange {
	uint64_t end_element = 0;
	uint16_t agg_node = INA_AGG_NODE_ANY;
	uint32_t index_first = 0, index_end = 0;
};

/* The aggregators [first, end) a GOAT switch gives the job (its [[goat]]
 * table's `aggregators`). */
struct GoatAggregators {
	uint16_t agg_node = 0;
	uint32_t first = 0, end = 0;
};

/* How a sender recovers a lost fragment (key `recovery`). atp: ATP's
 * loss signal, three ACKs of later fragments (ina/worker/send_window.h),
 * resends it at once, and the retransmission timer catches the rest;
 * timeout: the timer alone, as SwitchML (the baseline of ATP's Figure 10,
 * docs/figures.md). */
enum class Recovery : uint8_t {
	atp,
	timeout,
};

struct WorkerConfig {
	uint16_t job_id = 1;
	/* The job's run (docs/protocol.md, "Epochs"): the epoch the switch
	 * gave the PS's registration; 0 for a job of the switch's config or
	 * one without a switch. Every frame carries it. Unless it is named
	 * (epoch_named, which the key `epoch` sets, or a value other than 0),
	 * the worker takes the one its PS instances answer at open (JOB_INFO,
	 * docs/protocol.md, "Fragment size"), and keeps this one only when no
	 * PS answers. */
	uint8_t epoch = 0;
	bool epoch_named = false;
	uint32_t rank = 0; /* for logs and tools; the wire uses the bits below */
	/* In-network levels of the job (0..4) and the level of this worker's
	 * first aggregation point. */
	uint8_t levels = 1;
	uint8_t start_level = 0;
	/* This worker's bitmap bit and the fan-in at each level it takes part
	 * in (start_level <= i < levels). */
	uint8_t bit[INA_MAX_LEVELS] = {0, 0, 0, 0};
	uint8_t fan_in[INA_MAX_LEVELS] = {1, 0, 0, 0};
	/* The job's PS instances; fragment seq goes to ps[seq % ps.size()]
	 * (docs/ps.md, "Which PS a fragment goes to"). */
	std::vector<PsAddress> ps;
	/* Destination MAC of gradient frames (the switch or next hop); all
	 * zero: the PS's own MAC. */
	uint8_t next_hop_mac[6] = {0, 0, 0, 0, 0, 0};
	/* transport.kind "roce": NetReduce (docs/netreduce.md). The worker is
	 * rank `rank` of ring roce.ring_id and sends float32 messages over RC
	 * QPs to its ring successor; the switch aggregates them. No PS, no
	 * levels, no quantization: the INA fields above are not used. The
	 * RDMA device is transport.device; roce.rank and roce.device are set
	 * from `rank` and transport.device. */
	TransportConfig transport;
	RoceRingConfig roce;
	/* Values per fragment (1..INA_MAX_ELEMENTS; the P4 build takes 62),
	 * or 0 ("auto"): the job's size, which the worker asks its PS
	 * instances for at open (docs/worker.md, "Fragment size"). Either way
	 * open() checks it against the worker's interface and the PSes'
	 * answers, and config() holds the size in use afterwards. */
	uint32_t elements_per_packet = 0;
	/* How long open() waits for every PS instance to answer the job
	 * query (asked again every 100 ms). */
	uint32_t ps_query_timeout_ms = 10000;
	/* Aggregators per switch (the N of hash mod N); same at every worker,
	 * the PS and the switches. 1..kMaxAggregators. */
	uint32_t aggregators = 4096;
	/* The aggregator index of a fragment (key `index`: hash, linear,
	 * static:FIRST-END; docs/worker.md, "Aggregator index"): ATP's hash
	 * with collision hints, or the baselines of ATP's Figure 14. */
	IndexPolicy index;
	CcConfig cc;
	/* Flows sharing the aggregators, for A2TP's default H (eq. (14));
	 * 0: the job's worker count (product of the fan-ins). */
	uint32_t a2tp_flows = 0;
	double scale = 1e8;
	uint16_t agg_node = INA_AGG_NODE_ANY; /* GOAT: one node for everything */
	/* GOAT plan, one entry per sub-model in order (ends increasing); empty:
	 * agg_node above. A fragment goes to the node of its first element's
	 * range; for a switch with agg_index = ina::goat_index(seq) in the
	 * job's aggregators there (goat_aggregators, default all of them);
	 * collision hints from the PS do not move it. */
	std::vector<GoatRange> goat;
	std::vector<GoatAggregators> goat_aggregators;
	RttConfig rtt;
	/* Sender threads; each opens its own transport (the udp transport
	 * binds transport.udp_port + thread). */
	uint32_t threads = 1;
	/* Most fragments between a thread's oldest unACKed and newest one;
	 * 16..kMaxWindowCapacity over all threads together. */
	uint32_t window_capacity = 1u << 15;
	/* The PS's fragment slots per instance (its job's `window`): a worker
	 * never sends a fragment ps_window x ps.size() or more beyond the
	 * oldest one it has not seen completed, so the PS never has to evict
	 * an unfinished fragment. */
	uint32_t ps_window = 4096;
	/* Fragments resent per timeout, oldest first. A resend flushes the
	 * switch aggregator of its fragment, so a worker whose RTO is shorter
	 * than its peers' must not flush its whole window each time (in the
	 * lab that kept jobs crawling for tens of seconds); later holes are
	 * found by the out-of-order rules once the oldest is ACKed. */
	uint32_t timeout_burst = 32;
	Recovery recovery = Recovery::atp;
	/* Reorder window of the out-of-order loss rule, in percent of the
	 * smoothed RTT (ina/worker/send_window.h); 0: three later ACKs alone
	 * declare a loss. */
	uint32_t reorder_window_pct = 25;
	/* An ACK whose RTT sample exceeds the path's base RTT (the smallest
	 * sample of the last second or two, ina/worker/rtt.h RttMin) by more
	 * than this counts as ECN-marked for congestion control; 0: ECN
	 * alone. ATP's ECN comes from a switch
	 * egress queue, but on a software path the queue that grows is often
	 * a receive ring in front of a busy CPU (the switch's or a host's),
	 * which no egress marking sees: without this the window grows until
	 * rings overflow and aggregators collide (docs/perf.md). It is well
	 * above a scheduler slice: with 4 ms, the RTT jitter of a lab whose
	 * CPUs were all busy marked a third of the ACKs and held windows at
	 * 14-33 fragments. */
	uint64_t delay_target_ns = 20'000'000;
	/* A tensor fails when no parameter packet of it arrives for this long. */
	uint64_t stall_timeout_ns = 60'000'000'000ull;
};

/* Counters, summed over sender threads. */
struct WorkerStats {
	uint64_t tensors = 0;
	uint64_t fragments = 0;       /* distinct fragments sent */
	uint64_t packets_sent = 0;    /* including retransmissions */
	uint64_t bytes_reduced = 0;   /* float bytes of completed tensors */
	uint64_t retransmits = 0;
	uint64_t fast_retransmits = 0; /* by out-of-order ACKs */
	uint64_t timeouts = 0;         /* fragments resent by timeout */
	uint64_t bypass_sent = 0;      /* A2TP: beyond the aggregator window */
	uint64_t acks = 0;             /* parameter packets that completed a fragment */
	uint64_t duplicate_acks = 0;
	uint64_t out_of_order_acks = 0;
	uint64_t stale_acks = 0;       /* for fragments of finished tensors */
	uint64_t ecn_acks = 0;
	uint64_t delay_acks = 0;       /* RTT above delay_target: taken as marked */
	uint64_t col_acks = 0;
	uint64_t remaps = 0;           /* collision hints applied */
	uint64_t switch_acks = 0;      /* ACKs the PS marked aggregated in a switch */
	uint64_t float_acks = 0;       /* ACKs carrying float32 (after overflow) */
	uint64_t overflow_requests = 0;
	uint64_t resend_requests = 0;  /* the PS asked for a split fragment's copy */
	uint64_t float_fragments_sent = 0;
	uint64_t saturated_values = 0; /* quantization clipped at int32 */
	uint64_t rx_not_ina = 0;
	uint64_t rx_malformed = 0;
	uint64_t rx_other_job = 0;
	uint64_t rx_not_from_ps = 0;   /* the job's frames from another source, ignored */
	uint64_t rx_not_for_worker = 0;
	uint64_t tx_backpressure = 0;  /* transport send() took fewer frames */
	uint64_t rx_transport_drops = 0; /* frames lost below the worker (Transport::rx_drops) */
	uint32_t window = 0;           /* thread 0's current window */
	uint32_t agg_window = 0;
	double straggling = 1.0;       /* thread 0's straggling estimate (A2TP's gamma) */
	uint64_t srtt_ns = 0;
	uint64_t rto_ns = 0;
};

struct TensorState;

/* An all-reduce in flight. */
class AllreduceHandle {
public:
	AllreduceHandle() = default;
	explicit AllreduceHandle(std::shared_ptr<TensorState> s) : s_(std::move(s)) {}
	bool valid() const { return s_ != nullptr; }
	bool done() const;
	/* Waits until done; false (with *error) when the tensor failed. */
	bool wait(std::string *error = nullptr);
	/* Waits at most timeout_ms; true once done (then wait() returns at
	 * once). For callers that must stay responsive (signals). */
	bool wait_for(uint32_t timeout_ms) const;

private:
	std::shared_ptr<TensorState> s_;
};

class Worker {
public:
	/* Opens the transports and starts the sender threads; nullptr and a
	 * one-line *error on bad config or a transport that cannot open. */
	static std::unique_ptr<Worker> open(const WorkerConfig &cfg, std::string *error);
	virtual ~Worker() = default;

	/* Sums data[0..n) over the job's workers, in place. */
	virtual bool allreduce(float *data, size_t n, std::string *error = nullptr) = 0;
	/* Starts an all-reduce; data must stay valid until the handle is done.
	 * An invalid handle (and *error) on bad arguments or after a failure. */
	virtual AllreduceHandle allreduce_async(float *data, size_t n, std::string *error = nullptr) = 0;
	/* The same with this tensor's own scaling factor instead of the
	 * config's `scale` (0: the config's). Every worker of the job must
	 * use the same scale for the same tensor (ATP §B.3, a dynamic scaling
	 * factor): the PS adds integers and never sees it. */
	virtual AllreduceHandle allreduce_async(float *data, size_t n, double scale, std::string *error) = 0;
	virtual WorkerStats stats() const = 0;
	virtual const WorkerConfig &config() const = 0;
	/* Name of the transport in use ("udp", "af_packet+faults", ...). */
	virtual std::string transport_name() const = 0;
};

/* Checks a config; false with a one-line *error. */
bool validate(const WorkerConfig &cfg, std::string *error);

/* Sets one config field from text (used by the C API and ina-worker):
 * job, epoch (or auto), rank, levels, start_level, bit, fan_in (comma lists, one per level),
 * ps (comma list of IP or IP/MAC), next_hop_mac, transport, device, ip,
 * udp_port, udp_gso, eal_args, drop, duplicate, reorder, seed, elements (or auto), ps_query_timeout_ms, aggregators,
 * cc, scale, agg_node, goat (end:node,... per sub-model), goat_aggregators (node:first-end,...), threads, initial_window, min_window, max_window,
 * ssthresh, ps_window, a2tp_w, a2tp_g, a2tp_h, a2tp_gamma_smoothing, initial_acw, a2tp_round_us,
 * a2tp_flows, min_rto_us, max_rto_us, initial_rto_us, max_backoff, timeout_burst, recovery (atp | timeout),
 * reorder_window_pct, delay_target_us,
 * window_capacity, stall_timeout_ms; for the roce transport roce_ring, roce_ranks, roce_next
 * (successor IP[:port]), roce_listen (IP[:port]), roce_window, roce_msg_bytes, roce_mtu,
 * roce_timeout_us, roce_gid_index, roce_ib_port, roce_setup_timeout_ms. False with a one-line
 * *error on an unknown key or a bad value. */
bool set_config_key(WorkerConfig *cfg, const std::string &key, const std::string &value, std::string *error);

} /* namespace ina */

#endif /* INA_WORKER_H */
