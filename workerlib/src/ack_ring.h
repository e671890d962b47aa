/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The hand-off of a parameter packet between the worker's sender threads.
 */
#ifndef INA_WORKER_ACK_RING_H
#define INA_WORKER_ACK_RING_H

#include <atomic>
#include <cstdint>
#include <vector>

#include "ina/worker/frames.h"

namespace ina {

/* ACK frames another sender thread received for a fragment this thread
 * sent, handed over whole with what that thread parsed from them (the
 * payload pointer moved into the slot): a single-producer single-consumer
 * ring. The receiving thread does not parse the frame again. */
class AckRing {
public:
	static constexpr uint32_t kSlots = 256;
	static constexpr uint32_t kSlotBytes = INA_FRAME_LEN(INA_MAX_ELEMENTS) + 64;
	AckRing() : buf_(kSlots * kSlotBytes), msg_(kSlots) {}
	/* m: parse_from_ps() of frame[0..len). */
	bool push(const PsMessage &m, const uint8_t *frame, uint32_t len);
	/* Returns the message at the head or nullptr; pop() releases it. */
	const PsMessage *peek() const;
	void pop();

private:
	std::vector<uint8_t> buf_;
	std::vector<PsMessage> msg_;
	alignas(64) std::atomic<uint32_t> head_{0};
	alignas(64) std::atomic<uint32_t> tail_{0};
};

} /* namespace ina */

#endif /* INA_WORKER_ACK_RING_H */
