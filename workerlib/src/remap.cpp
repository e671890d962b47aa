/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/remap.h"

#include "ina/hash.h"
#include "ina/wire.h"

namespace ina {

RemapTable::RemapTable(uint16_t job, uint32_t aggregators, uint64_t epoch_fragments, IndexPolicy policy)
    : job_(job), n_(aggregators ? aggregators : 1), policy_(policy), epoch_shift_(0), map_(new Entry[n_])
{
	if (policy_.kind == IndexPolicy::Static && (policy_.first >= policy_.end || policy_.end > n_))
		policy_ = IndexPolicy{IndexPolicy::Static, 0, n_};
	while (epoch_shift_ < 40 && (1ull << epoch_shift_) < epoch_fragments)
		epoch_shift_++;
	for (uint32_t i = 0; i < n_; i++)
		map_[i].base.store(i, std::memory_order_relaxed);
	if (policy_.kind == IndexPolicy::Hash) {
		/* S = the in-flight span, at most N, so that S distinct indices
		 * exist. Fragments s and s + S are in flight together only when
		 * the span is capped at N and the window passes N: then the job
		 * has more fragments out than the switch has aggregators, and the
		 * later one goes to the PS as any fragment without one does. */
		uint64_t s = epoch_fragments ? epoch_fragments : 1;
		slot_index_.resize(static_cast<size_t>(s < n_ ? s : n_));
		std::vector<bool> taken(n_);
		for (uint32_t slot = 0; slot < slot_index_.size(); slot++) {
			uint32_t idx = aggregator_slot_index(job_, slot, 0, n_);
			/* Salted probes find a free index in about N / free tries;
			 * past 2^16 of them (a large table nearly full) the next
			 * free index up. */
			for (uint32_t salt = 1; taken[idx] && salt <= UINT16_MAX; salt++)
				idx = aggregator_slot_index(job_, slot, static_cast<uint16_t>(salt), n_);
			while (taken[idx])
				idx = (idx + 1) % n_;
			taken[idx] = true;
			slot_index_[slot] = idx;
		}
	}
}

uint32_t RemapTable::original_index(uint32_t seq) const
{
	switch (policy_.kind) {
	case IndexPolicy::Linear:
		return seq % n_;
	case IndexPolicy::Static:
		return policy_.first + seq % (policy_.end - policy_.first);
	case IndexPolicy::Hash:
		break;
	}
	return slot_index_[seq % slot_index_.size()];
}

uint32_t RemapTable::lookup(const Entry &e, uint32_t epoch) const
{
	for (uint32_t i = e.count.load(std::memory_order_relaxed); i-- > 0;)
		if (e.epoch[i].load(std::memory_order_relaxed) <= epoch)
			return e.index[i].load(std::memory_order_relaxed);
	return e.base.load(std::memory_order_relaxed);
}

uint32_t RemapTable::index(uint64_t frag) const
{
	const Entry &e = map_[original_index(static_cast<uint32_t>(frag))];
	const uint32_t epoch = epoch_of(frag);
	for (;;) {
		uint32_t v = version_.load(std::memory_order_acquire);
		uint32_t idx = lookup(e, epoch);
		std::atomic_thread_fence(std::memory_order_acquire);
		if (!(v & 1) && version_.load(std::memory_order_relaxed) == v && idx < n_)
			return idx;
	}
}

bool RemapTable::apply_hint(uint64_t frag, uint32_t new_index)
{
	if (new_index == INA_NO_REMAP || new_index >= n_ || policy_.kind != IndexPolicy::Hash)
		return false;
	const uint64_t from = static_cast<uint64_t>(epoch_of(frag)) + 2;
	if (from > UINT32_MAX)
		return false;
	const uint32_t epoch = static_cast<uint32_t>(from);
	Entry &e = map_[original_index(static_cast<uint32_t>(frag))];

	std::lock_guard<std::mutex> lock(write_m_);
	uint32_t n = e.count.load(std::memory_order_relaxed);
	uint32_t ep[kChanges + 1], ix[kChanges + 1];
	uint32_t m = 0;
	bool placed = false;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t ei = e.epoch[i].load(std::memory_order_relaxed);
		if (ei == epoch)
			return false; /* known: every hint of an epoch names the same index */
		if (!placed && epoch < ei) {
			ep[m] = epoch, ix[m++] = new_index;
			placed = true;
		}
		ep[m] = ei, ix[m++] = e.index[i].load(std::memory_order_relaxed);
	}
	if (!placed)
		ep[m] = epoch, ix[m++] = new_index;
	/* Five changes: the oldest is older than anything in flight. */
	uint32_t first = m > kChanges ? 1 : 0;

	version_.fetch_add(1, std::memory_order_relaxed); /* odd: readers retry */
	std::atomic_thread_fence(std::memory_order_release);
	if (first)
		e.base.store(ix[0], std::memory_order_relaxed);
	for (uint32_t i = first; i < m; i++) {
		e.epoch[i - first].store(ep[i], std::memory_order_relaxed);
		e.index[i - first].store(ix[i], std::memory_order_relaxed);
	}
	e.count.store(m - first, std::memory_order_relaxed);
	version_.fetch_add(1, std::memory_order_release);
	return true;
}

} /* namespace ina */
