/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A worker host of the simulated network: the worker library itself
 * (ina::SteppedWorker, ina/worker/stepped.h: its scheduler, window,
 * congestion control, loss recovery and index re-mapping) on a
 * SimTransport, polled on every frame it receives and at the times its
 * timer asks for. It all-reduces one tensor per iteration, back to back,
 * and checks every result against the exact sum it expects.
 */
#ifndef INA_SIM_WORKER_APP_H
#define INA_SIM_WORKER_APP_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ns3/random-variable-stream.h>
#include <ns3/event-id.h>
#include <ns3/net-device.h>

#include "ina/worker/stepped.h"
#include "sim_transport.h"

namespace ina::sim {

/* The value of element i of worker `rank`'s tensor in `iteration`: a
 * multiple of 1/1024 in [-1, 1), so that its quantization at a scale of
 * 2^20 (kExactScale) is exact and so is any sum of up to 2^11 of them. */
float tensor_value(uint32_t rank, uint32_t iteration, uint64_t i);
constexpr double kExactScale = 1048576.0;

/* The exact sums of a job's iterations, computed once for all its workers. */
class ExpectedSums {
public:
	ExpectedSums(uint32_t ranks, uint64_t tensor) : ranks_(ranks), tensor_(tensor) {}
	const std::vector<float> &of(uint32_t iteration);

private:
	uint32_t ranks_;
	uint64_t tensor_;
	uint32_t iteration_ = UINT32_MAX;
	std::vector<float> sums_;
};

class WorkerApp {
public:
	/* `expected`: the job's, shared by its workers. */
	WorkerApp(std::unique_ptr<SteppedWorker> w, SimTransport *tx, uint32_t rank,
		  std::shared_ptr<ExpectedSums> expected, uint64_t tensor, uint32_t iterations);
	/* A frame the host's port received for the worker (HostPort). */
	void receive(const uint8_t *frame, uint32_t len);
	/* `on_done` runs once, when the last iteration ended or the worker failed. */
	void start(std::function<void()> on_done);
	/* The compute phase between two iterations: the next one starts this
	 * long after the previous one ended (a training step's forward and
	 * backward pass; ina-worker --compute-ms). */
	void set_compute_ns(uint64_t ns) { compute_ns_ = ns; }
	/* When start() ran (ns): the first iteration's start. */
	uint64_t started_ns() const { return started_ns_; }

	bool done() const { return iteration_ >= iterations_ || failed_; }
	bool failed() const { return failed_; }
	const std::string &error() const { return error_; }
	/* Simulated time each iteration ended (ns). */
	const std::vector<uint64_t> &ends() const { return ends_; }
	uint64_t wrong_values() const { return wrong_; }
	WorkerStats stats() const { return w_->stats(); }
	const SimTransport &transport() const { return *tx_; }
	/* Fires the library's timer up to `ns` late, uniformly at random: a
	 * host's scheduling noise. Without it every worker's timer keeps its
	 * phase exactly, from run to run and round to round. */
	void set_timer_jitter(uint64_t ns);

private:
	void poll();
	void submit();
	void next_iteration();
	void check_result();

	std::unique_ptr<SteppedWorker> w_;
	SimTransport *tx_; /* owned by w_ */
	uint32_t rank_;
	std::shared_ptr<ExpectedSums> expected_;
	uint64_t tensor_;
	uint32_t iterations_, iteration_ = 0;
	std::vector<float> data_;
	AllreduceHandle h_;
	std::function<void()> on_done_;
	ns3::EventId timer_;
	uint64_t timer_at_ = 0, timer_want_ = 0;
	uint64_t jitter_ns_ = 0;
	uint64_t compute_ns_ = 0, started_ns_ = 0;
	bool computing_ = false; /* between two iterations */
	ns3::Ptr<ns3::UniformRandomVariable> jitter_;
	std::vector<uint64_t> ends_;
	uint64_t wrong_ = 0;
	bool failed_ = false;
	std::string error_;
};

} /* namespace ina::sim */

#endif /* INA_SIM_WORKER_APP_H */
