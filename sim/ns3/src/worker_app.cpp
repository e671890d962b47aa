/* SPDX-License-Identifier: BSD-3-Clause */
#include "worker_app.h"

#include <utility>

#include <ns3/packet.h>
#include <ns3/simulator.h>

namespace ina::sim {

namespace {

uint64_t now_ns()
{
	return static_cast<uint64_t>(ns3::Simulator::Now().GetNanoSeconds());
}

} /* namespace */

float tensor_value(uint32_t rank, uint32_t iteration, uint64_t i)
{
	const uint64_t k = (i * 2654435761ull + rank * 40503ull + iteration * 977ull) % 2048;
	return (static_cast<float>(k) - 1024.0f) / 1024.0f;
}

const std::vector<float> &ExpectedSums::of(uint32_t iteration)
{
	/* The workers of a job finish iteration i before any starts i + 2. */
	if (iteration != iteration_) {
		sums_.assign(tensor_, 0.0f);
		for (uint64_t i = 0; i < tensor_; i++) {
			double sum = 0;
			for (uint32_t r = 0; r < ranks_; r++)
				sum += tensor_value(r, iteration, i);
			sums_[i] = static_cast<float>(sum);
		}
		iteration_ = iteration;
	}
	return sums_;
}

WorkerApp::WorkerApp(std::unique_ptr<SteppedWorker> w, SimTransport *tx, uint32_t rank,
		     std::shared_ptr<ExpectedSums> expected, uint64_t tensor, uint32_t iterations)
    : w_(std::move(w)), tx_(tx), rank_(rank), expected_(std::move(expected)), tensor_(tensor),
      iterations_(iterations), data_(tensor)
{
}

void WorkerApp::set_timer_jitter(uint64_t ns)
{
	jitter_ns_ = ns;
	if (ns && !jitter_)
		jitter_ = ns3::CreateObject<ns3::UniformRandomVariable>();
}

void WorkerApp::start(std::function<void()> on_done)
{
	on_done_ = std::move(on_done);
	started_ns_ = now_ns();
	submit();
	poll();
}

void WorkerApp::receive(const uint8_t *frame, uint32_t len)
{
	tx_->deliver(frame, len);
	poll();
}

/* The compute phase is over: the next iteration's all-reduce starts. */
void WorkerApp::next_iteration()
{
	computing_ = false;
	submit();
	poll();
}

void WorkerApp::submit()
{
	for (uint64_t i = 0; i < tensor_; i++)
		data_[i] = tensor_value(rank_, iteration_, i);
	std::string err;
	h_ = w_->allreduce_async(data_.data(), data_.size(), &err);
	if (!h_.valid()) {
		failed_ = true;
		error_ = err;
	}
}

void WorkerApp::check_result()
{
	const std::vector<float> &want = expected_->of(iteration_);
	for (uint64_t i = 0; i < tensor_; i++)
		if (want[i] != data_[i])
			wrong_++;
}

/* A round of the library's loop; a finished iteration starts the next one
 * at once, or after the compute phase where there is one. */
void WorkerApp::poll()
{
	uint64_t next = done() ? UINT64_MAX : w_->poll(now_ns());
	while (!done() && !computing_ && h_.done()) {
		std::string err;
		if (!h_.wait(&err)) {
			failed_ = true;
			error_ = err;
			break;
		}
		check_result();
		ends_.push_back(now_ns());
		if (++iteration_ < iterations_) {
			if (compute_ns_) {
				computing_ = true;
				ns3::Simulator::Schedule(ns3::NanoSeconds(static_cast<int64_t>(compute_ns_)),
							 [this] { next_iteration(); });
				break;
			}
			submit();
			next = w_->poll(now_ns());
		}
	}
	if (done()) {
		timer_.Cancel();
		if (on_done_)
			std::exchange(on_done_, nullptr)();
		return;
	}
	if (next == UINT64_MAX)
		return;
	/* One timer event at a time, at the library's next check. */
	if (timer_.IsRunning() && timer_want_ <= next)
		return;
	timer_.Cancel();
	const uint64_t now = now_ns();
	timer_want_ = next;
	timer_at_ = next > now ? next : now + 1;
	if (jitter_ns_)
		timer_at_ += static_cast<uint64_t>(jitter_->GetValue(0, static_cast<double>(jitter_ns_)));
	timer_ = ns3::Simulator::Schedule(ns3::NanoSeconds(static_cast<int64_t>(timer_at_ - now)),
					  [this] { poll(); });
}

} /* namespace ina::sim */
