/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The roce transport's Worker: one thread owns the ring (ina/roce_ring.h)
 * and all-reduces the submitted tensors one after another, in submission
 * order, which is the order every rank must use (the MsgIDs continue across
 * tensors). The values go out as float32 and come back summed by the
 * switch: no quantization, `scale` is not used.
 */
#include "roce_worker.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "ina/roce.h"
#include "tensor.h"

namespace ina {

RoceRingConfig roce_ring_config(const WorkerConfig &cfg)
{
	RoceRingConfig rc = cfg.roce;
	rc.device = cfg.transport.device;
	rc.rank = static_cast<uint8_t>(cfg.rank);
	rc.stall_timeout_ns = cfg.stall_timeout_ns;
	return rc;
}

bool validate_roce(const WorkerConfig &cfg, std::string *error)
{
	if (cfg.rank >= NR_MAX_RANKS) {
		if (error)
			*error = "roce rank " + std::to_string(cfg.rank) + " must be below " + std::to_string(NR_MAX_RANKS);
		return false;
	}
	return roce_ring_check(roce_ring_config(cfg), error);
}

namespace {

class RoceWorker final : public Worker {
public:
	RoceWorker(const WorkerConfig &cfg, std::unique_ptr<RoceRing> ring) : cfg_(cfg), ring_(std::move(ring))
	{
		thread_ = std::thread([this] { run(); });
	}
	~RoceWorker() override
	{
		{
			std::lock_guard<std::mutex> g(m_);
			stop_ = true;
		}
		cv_.notify_all();
		thread_.join();
	}

	bool allreduce(float *data, size_t n, std::string *error) override
	{
		AllreduceHandle h = allreduce_async(data, n, error);
		return h.valid() && h.wait(error);
	}
	AllreduceHandle allreduce_async(float *data, size_t n, std::string *error) override
	{
		return allreduce_async(data, n, 0.0, error);
	}
	AllreduceHandle allreduce_async(float *data, size_t n, double, std::string *error) override
	{
		if (!data && n) {
			if (error)
				*error = "null tensor";
			return AllreduceHandle();
		}
		auto t = std::make_shared<TensorState>();
		t->data = data;
		t->n = n;
		std::lock_guard<std::mutex> g(m_);
		if (!failure_.empty()) {
			if (error)
				*error = "worker failed: " + failure_;
			return AllreduceHandle();
		}
		queue_.push_back(t);
		cv_.notify_all();
		return AllreduceHandle(t);
	}
	WorkerStats stats() const override
	{
		std::lock_guard<std::mutex> g(m_);
		return stats_;
	}
	const WorkerConfig &config() const override { return cfg_; }
	std::string transport_name() const override { return "roce"; }

private:
	void run()
	{
		for (;;) {
			std::shared_ptr<TensorState> t;
			{
				std::unique_lock<std::mutex> g(m_);
				cv_.wait(g, [this] { return stop_ || !queue_.empty(); });
				if (stop_)
					break;
				t = queue_.front();
				queue_.pop_front();
			}
			std::string err;
			bool ok = failed() ? false : ring_->allreduce(t->data, t->n, &err);
			{
				std::lock_guard<std::mutex> g(m_);
				if (!ok && failure_.empty())
					failure_ = err;
				if (!ok)
					err = failure_;
				const RoceRingStats r = ring_->stats();
				stats_.tensors += ok;
				stats_.fragments = r.window.completed;
				stats_.acks = r.window.completed;
				stats_.packets_sent = r.window.posted;
				stats_.retransmits = r.window.retransmits;
				stats_.timeouts = r.window.timeouts;
				stats_.duplicate_acks = r.window.duplicates;
				stats_.stale_acks = r.window.stale;
				stats_.rx_malformed = r.rx_malformed;
				stats_.bytes_reduced = r.bytes_reduced;
				stats_.switch_acks = r.window.completed; /* every result is the switch's */
			}
			t->finish(ok ? 1 : -1, err);
		}
		/* Whatever is left fails rather than waiting forever. */
		std::lock_guard<std::mutex> g(m_);
		for (auto &t : queue_)
			t->finish(-1, "worker closed");
		queue_.clear();
	}
	bool failed()
	{
		std::lock_guard<std::mutex> g(m_);
		return !failure_.empty();
	}

	WorkerConfig cfg_;
	std::unique_ptr<RoceRing> ring_;
	mutable std::mutex m_;
	std::condition_variable cv_;
	std::deque<std::shared_ptr<TensorState>> queue_;
	bool stop_ = false;
	std::string failure_;
	WorkerStats stats_;
	std::thread thread_;
};

} /* namespace */

std::unique_ptr<Worker> open_roce_worker(const WorkerConfig &cfg, std::string *error)
{
	std::string err;
	if (!validate_roce(cfg, &err)) {
		if (error)
			*error = err;
		return nullptr;
	}
	auto ring = open_roce_ring(roce_ring_config(cfg), &err);
	if (!ring) {
		if (error)
			*error = err;
		return nullptr;
	}
	return std::make_unique<RoceWorker>(cfg, std::move(ring));
}

} /* namespace ina */
