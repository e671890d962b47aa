/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Hand-off between the threads of ina-ps: a single-producer single-consumer
 * ring of frame copies (fixed-size slots allocated once), and a doorbell a
 * consumer with nothing to do sleeps on. The producer fills slots and
 * publishes them per batch with one release store; the consumer takes what
 * is published, handles it and then releases the slots, so a producer that
 * sees a ring empty knows that everything it handed over has been handled
 * (ina-ps relies on this to know when the shards' replies are queued).
 * A received frame travels with its parse (put(const RxFrame &), rx()),
 * so that the shard that handles it does not parse it again.
 * Neither side allocates, locks or makes a system call per frame; the
 * doorbell costs a futex call only when its thread is asleep.
 */
#ifndef INA_FRAME_RING_H
#define INA_FRAME_RING_H

#include <atomic>
#include <cstdint>
#include <memory>

#include "ina/codec.h"

namespace ina {

class PsFrameRing {
public:
	/* `capacity` slots (rounded up to a power of two) of `frame_bytes`. */
	PsFrameRing(uint32_t capacity, uint32_t frame_bytes);
	PsFrameRing(const PsFrameRing &) = delete;
	PsFrameRing &operator=(const PsFrameRing &) = delete;

	uint32_t capacity() const { return mask_ + 1; }
	uint32_t frame_bytes() const { return bytes_; }

	/* Producer: copies a frame into the next slot (not yet visible);
	 * false if the ring is full or the frame longer than a slot. */
	bool put(const uint8_t *frame, uint32_t len)
	{
		if (len > bytes_)
			return false;
		if (ptail_ - phead_cache_ > mask_) {
			phead_cache_ = head_.load(std::memory_order_acquire);
			if (ptail_ - phead_cache_ > mask_)
				return false;
		}
		uint32_t i = ptail_ & mask_;
		__builtin_memcpy(mem_.get() + size_t(i) * bytes_, frame, len);
		len_[i] = len;
		ptail_++;
		return true;
	}
	/* Producer: copies a received frame and its parse into the next slot. */
	bool put(const RxFrame &rx)
	{
		if (!put(rx.data, rx.len))
			return false;
		parsed_[(ptail_ - 1) & mask_] = rx;
		return true;
	}
	/* Producer: makes every frame put so far visible to the consumer;
	 * true if there were any. */
	bool publish()
	{
		if (ptail_ == tail_.load(std::memory_order_relaxed))
			return false;
		tail_.store(ptail_, std::memory_order_release);
		return true;
	}
	/* Producer: true while the consumer has not released everything
	 * published. */
	bool busy() const { return head_.load(std::memory_order_acquire) != tail_.load(std::memory_order_relaxed); }

	/* Consumer: how many published frames wait, from frame(0) on. */
	uint32_t ready()
	{
		ctail_ = tail_.load(std::memory_order_acquire);
		return ctail_ - chead_;
	}
	uint8_t *frame(uint32_t i, uint32_t *len)
	{
		uint32_t s = (chead_ + i) & mask_;
		*len = len_[s];
		return mem_.get() + size_t(s) * bytes_;
	}
	/* Consumer: frame i as put(const RxFrame &) parsed it, pointing into
	 * its slot. */
	RxFrame rx(uint32_t i)
	{
		uint32_t s = (chead_ + i) & mask_;
		RxFrame r = parsed_[s];
		const uint8_t *slot = mem_.get() + size_t(s) * bytes_;
		if (r.verdict == FrameVerdict::kOk)
			r.ina.payload = slot + (r.ina.payload - r.data);
		r.data = slot;
		return r;
	}
	/* Consumer: the first n frames are done with; their slots are free. */
	void release(uint32_t n)
	{
		chead_ += n;
		head_.store(chead_, std::memory_order_release);
	}

private:
	uint32_t mask_, bytes_;
	std::unique_ptr<uint8_t[]> mem_;
	std::unique_ptr<uint32_t[]> len_;
	std::unique_ptr<RxFrame[]> parsed_;
	/* Each side's indices on its own cache line. */
	alignas(64) std::atomic<uint32_t> tail_{0};
	uint32_t ptail_ = 0, phead_cache_ = 0;
	alignas(64) std::atomic<uint32_t> head_{0};
	uint32_t chead_ = 0, ctail_ = 0;
};

/* Wakes a thread that sleeps while its rings are empty. */
class Doorbell {
public:
	/* Consumer: announces that it is about to sleep; it must check its
	 * rings once more after this and before wait(). */
	void arm()
	{
		asleep_.store(1, std::memory_order_relaxed);
		std::atomic_thread_fence(std::memory_order_seq_cst);
	}
	/* Consumer: sleeps up to timeout_us unless rung since arm(). */
	void wait(uint32_t timeout_us);
	/* Consumer: awake again (after wait, or when the recheck found work). */
	void disarm() { asleep_.store(0, std::memory_order_relaxed); }
	/* Producer, after publish(): wakes the consumer if it sleeps. */
	void ring()
	{
		std::atomic_thread_fence(std::memory_order_seq_cst);
		if (asleep_.load(std::memory_order_relaxed) && asleep_.exchange(0, std::memory_order_relaxed))
			wake();
	}

private:
	void wake();
	alignas(64) std::atomic<uint32_t> asleep_{0};
};

} /* namespace ina */

#endif /* INA_FRAME_RING_H */
