/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Aggregator index of a fragment at the worker (ATP §3.6): the CRC-32 hash of
 * <job, seq> modulo the aggregator count (ina/hash.h), looked up in a table
 * that the PS's collision hints rewrite: a parameter packet whose
 * remap_index is set says "use remap_index wherever you would have used the
 * original index of this fragment". Sender threads share one table; entries
 * are relaxed atomics (a thread that still sends the old index for a moment
 * only risks one more collision), so no lock is taken per packet.
 */
#ifndef INA_WORKER_REMAP_H
#define INA_WORKER_REMAP_H

#include <atomic>
#include <cstdint>
#include <memory>

namespace ina {

class RemapTable {
public:
	explicit RemapTable(uint16_t job, uint32_t aggregators);

	uint32_t aggregators() const { return n_; }
	/* hash(job, seq) mod N: the index before any remap. */
	uint32_t original_index(uint32_t seq) const;
	/* The index to send fragment seq to now. */
	uint32_t index(uint32_t seq) const { return lookup(original_index(seq)); }
	uint32_t lookup(uint32_t original) const { return map_[original].load(std::memory_order_relaxed); }
	/* Applies the hint of a parameter packet for fragment seq; false (and no
	 * change) when new_index is INA_NO_REMAP, out of range or already set. */
	bool apply_hint(uint32_t seq, uint32_t new_index);

private:
	uint16_t job_;
	uint32_t n_;
	std::unique_ptr<std::atomic<uint32_t>[]> map_;
};

} /* namespace ina */

#endif /* INA_WORKER_REMAP_H */
