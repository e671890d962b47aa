/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Packet trace, VPP's `trace add` for ina-switchd: telemetry arms an lcore
 * to record the next N packets it handles (`/ina/trace,N[,LCORE]`), and
 * reads them back (`/ina/trace_read,LCORE[,FIRST]`; tools/ina-trace prints
 * them). Each record holds the packet's input (port, addresses, the decoded
 * INA header) and the path it took, as the counters it moved: classify,
 * admission, the pipeline's aggregator id / bitmap / count outcome and its
 * verdict, the job's counters, the egress queues it went into (ECN marks,
 * drops), the hand-off to another lcore. The stages need no code of their
 * own for it: every decision in switchd already ends in a counter
 * (docs/switchd.md, "Where every packet went"), so the difference of the
 * lcore's counters around one packet is its path.
 *
 * Off, it costs one relaxed load per RX burst (the loop checks armed()).
 * On, the lcore handles the burst one packet at a time between two counter
 * snapshots (a few hundred words each): slower, never different. Nothing is
 * allocated after start-up; the lcore is the only writer of its records.
 */
#ifndef INA_SWITCHD_TRACE_H
#define INA_SWITCHD_TRACE_H

#include <atomic>
#include <cstdint>
#include <vector>

#include "ina/codec.h"
#include "ina/pipeline.h"
#include "packet_desc.h"
#include "stats.h"

namespace switchd {

/* The counters a trace compares around a packet: the lcore's (lcore.h),
 * which the trace reads but does not know. */
struct TraceCounters {
	const LcoreCounters *lcore;
	const ina::PipelineCounters *pipeline;
	const PortCounters *ports; /* per config port */
	const JobCounters *jobs;   /* per job id */
};

/* Which counter set a step of a record is in. */
enum class TraceSet : uint8_t { kLcore, kPipeline, kJob, kPort };

struct TraceStep {
	TraceSet set;
	uint8_t id;    /* the counter within its set */
	uint16_t port; /* kPort: the port's config index */
	uint32_t delta;
};

struct TraceRecord {
	static constexpr unsigned kMaxSteps = 24;
	static constexpr uint8_t kNone = 0xFF;
	uint64_t tsc;
	uint32_t src_ip, dst_ip;
	uint16_t in_port;
	uint8_t cls;        /* PacketClass */
	uint8_t from_lcore; /* kNone: this lcore's own RX queue */
	uint8_t to_lcore;   /* kNone: handled here, else handed over */
	uint8_t n_steps;
	ina::InaView ina; /* cls kIna */
	TraceStep steps[kMaxSteps];
};

class PacketTrace {
public:
	static constexpr uint32_t kMaxRecords = 512;

	/* Start-up, before the lcore runs: sizes everything. */
	void init(size_t n_ports);

	/* Telemetry thread: record the next n packets (replacing what was
	 * recorded). const: the request is the one word telemetry writes. */
	void arm(uint32_t n) const { request_.store(n, std::memory_order_release); }
	/* Telemetry thread: armed, but the lcore has not started yet (it
	 * starts at its next packet; the records read until then are the
	 * previous trace's). */
	bool pending() const { return request_.load(std::memory_order_acquire) != 0; }
	/* Lcore, once per burst: is a request pending or a trace running? */
	bool armed() const { return left_ || request_.load(std::memory_order_relaxed); }

	/* Lcore, around one packet: begin() before anything happens to it
	 * (false: the trace is done, handle it untraced); classified() once its
	 * descriptor is filled in (copies its input, and the job's counters,
	 * which only later stages move); end() when it has gone where it goes
	 * (to_lcore: handed to that lcore). A packet classify drops has no
	 * classified(). */
	bool begin(const TraceCounters &c, uint8_t from_lcore, uint64_t tsc);
	void classified(const TraceCounters &c, const PacketDesc &d);
	void end(const TraceCounters &c, uint8_t to_lcore);

	/* Telemetry thread: copies records [first, first + max) into *out and
	 * returns how many there are so far. Copies again when the lcore
	 * restarts the trace under it (a seqlock: `restarts_`). */
	uint32_t read(uint32_t first, uint32_t max, std::vector<TraceRecord> *out) const;

private:
	struct Snapshot {
		LcoreCounters lcore;
		ina::PipelineCounters pipeline;
		JobCounters job;
		std::vector<PortCounters> ports;
	};
	void add_step(TraceRecord *r, TraceSet set, size_t id, uint16_t port, uint64_t delta) const;

	mutable std::atomic<uint32_t> request_{0};
	uint32_t left_ = 0;
	std::atomic<uint32_t> recorded_{0};
	std::atomic<uint32_t> restarts_{0}; /* odd while the lcore resets */
	std::vector<TraceRecord> records_;
	Snapshot before_;
	TraceRecord cur_; /* the packet being traced */
	int job_ = -1;    /* its job, once classified */
};

/* Names for telemetry: "lcore", "pipeline", ...; a step's counter; a
 * PacketClass ("ina", ..., or "dropped_in_classify"). */
const char *trace_set_name(TraceSet s);
const char *trace_step_name(const TraceStep &s);
const char *trace_class_name(uint8_t cls);

} /* namespace switchd */

#endif
