/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-worker --trace: the worker's counters sampled every interval, one JSON
 * object per line, so that a run's course (goodput per interval, the
 * windows, the straggling estimate) can be plotted against time, as the
 * papers' traces are. Sampled by the tool's waiting thread from
 * Worker::stats() (relaxed loads of the senders' counters): nothing is
 * added to the data path.
 */
#ifndef INA_WORKER_TOOLS_STATS_TRACE_H
#define INA_WORKER_TOOLS_STATS_TRACE_H

#include <cstdint>
#include <cstdio>
#include <string>

#include "ina/worker.h"

class StatsTrace {
public:
	StatsTrace() = default;
	~StatsTrace();
	StatsTrace(const StatsTrace &) = delete;
	StatsTrace &operator=(const StatsTrace &) = delete;

	/* Opens (truncates) path; false and *err if it cannot. */
	bool open(const std::string &path, uint32_t interval_ms, std::string *err);
	bool enabled() const { return f_ != nullptr; }
	uint32_t interval_ms() const { return interval_ms_; }
	/* The clock's zero: the first round's start. */
	void start(uint64_t now_us) { t0_us_ = next_us_ = now_us; }
	/* Writes a line if an interval has passed since the last one. */
	void sample(uint64_t now_us, const ina::WorkerStats &s);
	/* The last line, whenever it is due, and the file closed. */
	void finish(uint64_t now_us, const ina::WorkerStats &s);

private:
	void write(uint64_t now_us, const ina::WorkerStats &s);

	FILE *f_ = nullptr;
	uint32_t interval_ms_ = 10;
	uint64_t t0_us_ = 0, next_us_ = 0;
};

#endif
