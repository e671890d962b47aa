/* SPDX-License-Identifier: BSD-3-Clause */
#include <cstring>
#include <string>

#include "ina/transport_faults.h"
#include "transports.h"

namespace ina {
namespace {

/* splitmix64: small, fast, and the same sequence everywhere. */
struct Rng {
	uint64_t s;
	uint64_t next()
	{
		uint64_t z = (s += 0x9E3779B97F4A7C15ull);
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		return z ^ (z >> 31);
	}
	/* True with probability p (53-bit uniform draw). */
	bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
};

constexpr uint32_t kSpare = 256;      /* buffers for held and duplicated frames */
constexpr uint32_t kSpareBytes = 9216; /* largest frame a spare buffer holds */

/* A FIFO of frame copies in preallocated buffers. */
class FrameQueue {
public:
	FrameQueue() : mem_(new uint8_t[kSpare * kSpareBytes]) {}
	bool full() const { return count_ == kSpare; }
	bool empty() const { return count_ == 0; }
	uint32_t size() const { return count_; }
	bool push(const uint8_t *data, uint32_t len)
	{
		if (full() || len > kSpareBytes)
			return false;
		uint32_t slot = (head_ + count_) % kSpare;
		memcpy(mem_.get() + size_t(slot) * kSpareBytes, data, len);
		len_[slot] = len;
		count_++;
		return true;
	}
	const uint8_t *front(uint32_t *len) const
	{
		*len = len_[head_];
		return mem_.get() + size_t(head_) * kSpareBytes;
	}
	/* The i-th queued frame from the front. */
	const uint8_t *at(uint32_t i, uint32_t *len) const
	{
		uint32_t slot = (head_ + i) % kSpare;
		*len = len_[slot];
		return mem_.get() + size_t(slot) * kSpareBytes;
	}
	void pop()
	{
		head_ = (head_ + 1) % kSpare;
		count_--;
	}

private:
	std::unique_ptr<uint8_t[]> mem_;
	uint32_t len_[kSpare] = {};
	uint32_t head_ = 0, count_ = 0;
};

class FaultTransport final : public Transport {
public:
	FaultTransport(std::unique_ptr<Transport> inner, const TransportConfig &cfg)
		: inner_(std::move(inner)), drop_(cfg.drop), dup_(cfg.duplicate),
		  reorder_(cfg.reorder), rx_rng_{cfg.seed * 2 + 1}, tx_rng_{cfg.seed * 2 + 2}
	{
		name_ = std::string(inner_->name()) + "+faults";
	}

	uint32_t send(const FrameBuf *frames, uint32_t n) override
	{
		for (uint32_t i = 0; i < n; i++) {
			const FrameBuf &f = frames[i];
			stats_.tx.frames++;
			bool drop = tx_rng_.chance(drop_);
			bool dup = tx_rng_.chance(dup_);
			bool hold = tx_rng_.chance(reorder_);
			if (drop) {
				stats_.tx.dropped++;
				continue;
			}
			if (hold && tx_held_.push(f.data, f.len)) {
				stats_.tx.reordered++;
				tx_held_age_ = 0;
			} else {
				if (hold)
					stats_.tx.overrun++;
				emit(f.data, f.len);
				release_tx_held(); /* a held frame goes out behind this one */
			}
			if (dup) {
				stats_.tx.duplicated++;
				emit(f.data, f.len);
			}
		}
		flush_tx();
		return n;
	}

	uint32_t recv(FrameBuf *frames, uint32_t n, uint32_t timeout_us) override
	{
		/* A send-side held frame with no later frame leaves now. */
		if (!tx_held_.empty() && ++tx_held_age_ > 1) {
			release_tx_held();
			flush_tx();
		}
		uint32_t out = 0;
		/* Duplicates and released frames from the last call first. */
		out += pop_queue(rx_pending_, frames, n);
		uint32_t got = 0;
		if (out < n)
			got = inner_->recv(frames + out, n - out, out ? 0 : timeout_us);
		uint32_t end = out + got;
		for (uint32_t i = out; i < end; i++) {
			FrameBuf &f = frames[i];
			stats_.rx.frames++;
			bool drop = rx_rng_.chance(drop_);
			bool dup = rx_rng_.chance(dup_);
			bool hold = rx_rng_.chance(reorder_);
			if (drop) {
				stats_.rx.dropped++;
				continue;
			}
			bool held = false;
			if (hold) {
				if (rx_held_.push(f.data, f.len)) {
					stats_.rx.reordered++;
					held = true;
				} else {
					stats_.rx.overrun++;
				}
			}
			if (!held) {
				if (out != i) {
					memmove(frames[out].data, f.data, f.len);
					frames[out].len = f.len;
				}
				out++;
				/* Frames held earlier come out behind this one. */
				move_all(rx_held_, rx_pending_);
			}
			if (dup) {
				if (rx_pending_.push(f.data, f.len))
					stats_.rx.duplicated++;
				else
					stats_.rx.overrun++;
			}
		}
		/* Deliver duplicates in this call when room is left. */
		out += pop_queue(rx_pending_, frames + out, n - out);
		/* A held frame with nothing behind it is released next call. */
		move_all(rx_held_, rx_pending_);
		return out;
	}

	const char *name() const override { return name_.c_str(); }
	uint32_t ip() const override { return inner_->ip(); }
	uint32_t max_frame() const override { return inner_->max_frame(); }
	void mac(uint8_t out[6]) const override { inner_->mac(out); }
	const FaultStats &stats() const { return stats_; }

private:
	static void move_all(FrameQueue &from, FrameQueue &to)
	{
		while (!from.empty() && !to.full()) {
			uint32_t len;
			const uint8_t *d = from.front(&len);
			to.push(d, len);
			from.pop();
		}
	}

	static uint32_t pop_queue(FrameQueue &q, FrameBuf *frames, uint32_t n)
	{
		uint32_t out = 0;
		while (out < n && !q.empty()) {
			uint32_t len;
			const uint8_t *d = q.front(&len);
			if (len > frames[out].capacity)
				len = frames[out].capacity;
			memcpy(frames[out].data, d, len);
			frames[out].len = len;
			q.pop();
			out++;
		}
		return out;
	}

	/* Outgoing frames are staged in tx_out_ and sent in one batch. */
	void emit(const uint8_t *data, uint32_t len)
	{
		if (!tx_out_.push(data, len)) {
			flush_tx();
			if (!tx_out_.push(data, len))
				stats_.tx.overrun++;
		}
	}

	void release_tx_held()
	{
		while (!tx_held_.empty()) {
			uint32_t len;
			const uint8_t *d = tx_held_.front(&len);
			emit(d, len);
			tx_held_.pop();
		}
	}

	void flush_tx()
	{
		uint32_t stalls = 0;
		while (!tx_out_.empty()) {
			uint32_t batch = tx_out_.size() < kTransportBatch ? tx_out_.size() : kTransportBatch;
			for (uint32_t i = 0; i < batch; i++) {
				uint32_t len;
				const uint8_t *d = tx_out_.at(i, &len);
				tx_view_[i] = FrameBuf{const_cast<uint8_t *>(d), len, len};
			}
			uint32_t sent = inner_->send(tx_view_, batch);
			for (uint32_t i = 0; i < sent; i++)
				tx_out_.pop();
			/* The inner transport may be momentarily full: retry a
			 * bounded number of times, then count the loss. */
			if (sent == 0 && ++stalls > 100000) {
				stats_.tx.overrun++;
				tx_out_.pop();
				stalls = 0;
			}
		}
	}

	std::unique_ptr<Transport> inner_;
	double drop_, dup_, reorder_;
	Rng rx_rng_, tx_rng_;
	std::string name_;
	FaultStats stats_;
	FrameQueue rx_held_, rx_pending_, tx_held_, tx_out_;
	uint32_t tx_held_age_ = 0;
	FrameBuf tx_view_[kTransportBatch];
};

} /* namespace */

std::unique_ptr<Transport> wrap_faults(std::unique_ptr<Transport> inner, const TransportConfig &cfg)
{
	if (!inner)
		return nullptr;
	return std::make_unique<FaultTransport>(std::move(inner), cfg);
}

bool fault_stats(const Transport &t, FaultStats *out)
{
	const auto *f = dynamic_cast<const FaultTransport *>(&t);
	if (!f)
		return false;
	*out = f->stats();
	return true;
}

} /* namespace ina */
