/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Internal: the Worker behind the public API. The scheduler (allreduce
 * calls, under one mutex per tensor) assigns sequence numbers in submission
 * order and hands each tensor to the least-loaded sender thread (ATP §4).
 */
#ifndef INA_WORKERLIB_WORKER_IMPL_H
#define INA_WORKERLIB_WORKER_IMPL_H

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ina/worker.h"
#include "ina/worker/remap.h"
#include "sender.h"

namespace ina {

/* The end of a stall timeout's message: what the worker last heard (no
 * parameter packet at all, only collision-marked ones, ...) and which
 * counters to read next. */
std::string stall_diagnosis(const WorkerStats &s, uint16_t job);

/* True if the config names the job's epoch (ina/worker.h): then the
 * PS's answer does not replace it. */
inline bool epoch_named(const WorkerConfig &c)
{
	return c.epoch_named || c.epoch != 0;
}

/* What the job's PS instances answer at open (job_query.cpp). */
struct JobAnswer {
	uint32_t elements = 0; /* the least fragment size they answered */
	uint8_t epoch = 0;     /* the job's run, the same from each */
};

/* Asks the job's PS instances for its fragment size and epoch
 * (job_query.cpp); elements 0 with a one-line *error: a PS that does not
 * serve the job, PS instances that answer different epochs, or (*silent
 * set) one that gave no answer within cfg.ps_query_timeout_ms. */
JobAnswer query_job(Transport &t, const WorkerConfig &cfg, std::string *error, bool *silent);

class WorkerImpl final : public Worker {
public:
	WorkerImpl(const WorkerConfig &cfg);
	~WorkerImpl() override;
	bool start(std::string *error);
	/* ina/worker/stepped.h: one sender on `tx`, no thread; poll() runs it. */
	bool start_stepped(std::unique_ptr<Transport> tx, std::string *error);
	uint64_t poll(uint64_t now_ns) { return senders_[0]->poll(now_ns); }
	bool ask_ps(Transport &t, std::string *error);

	bool allreduce(float *data, size_t n, std::string *error) override;
	AllreduceHandle allreduce_async(float *data, size_t n, std::string *error) override;
	AllreduceHandle allreduce_async(float *data, size_t n, double scale, std::string *error) override;
	WorkerStats stats() const override;
	const WorkerConfig &config() const override { return cfg_; }
	std::string transport_name() const override;

	/* For sender threads. */
	RemapTable &remap() { return remap_; }
	Sender &sender(uint32_t i) { return *senders_[i]; }
	/* The thread that owns fragment seq, -1 if unknown. */
	int owner_of(uint32_t seq) const;
	void set_failed(const std::string &why);
	bool failed() const { return failed_.load(std::memory_order_relaxed); }
	/* Lowest job-wide fragment number not yet ACKed over all threads
	 * (UINT64_MAX when none is pending). */
	uint64_t floor() const;

private:
	struct DirEntry {
		std::atomic<uint32_t> seq_base{0};
		std::atomic<uint32_t> nfrags{0};
		std::atomic<uint32_t> thread{0};
	};
	static constexpr uint32_t kDirSize = 4096;

	WorkerConfig cfg_;
	RemapTable remap_;
	std::vector<std::unique_ptr<Sender>> senders_;

	std::mutex sched_m_;
	uint64_t next_seq_ = 0;
	uint64_t tensors_given_ = 0; /* tensors with fragments, so far */
	uint64_t next_elem_ = 0; /* GOAT: place in the round of the next tensor */
	std::vector<DirEntry> dir_;
	std::atomic<uint64_t> dir_count_{0};
	std::atomic<bool> failed_{false};
	std::string failure_; /* under sched_m_ */
};

} /* namespace ina */

#endif /* INA_WORKERLIB_WORKER_IMPL_H */
