/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/remap.h"

#include "ina/hash.h"
#include "ina/wire.h"

namespace ina {

RemapTable::RemapTable(uint16_t job, uint32_t aggregators)
    : job_(job), n_(aggregators ? aggregators : 1), map_(new std::atomic<uint32_t>[n_])
{
	for (uint32_t i = 0; i < n_; i++)
		map_[i].store(i, std::memory_order_relaxed);
}

uint32_t RemapTable::original_index(uint32_t seq) const
{
	return aggregator_index(job_, seq, n_);
}

bool RemapTable::apply_hint(uint32_t seq, uint32_t new_index)
{
	if (new_index == INA_NO_REMAP || new_index >= n_)
		return false;
	uint32_t orig = original_index(seq);
	if (map_[orig].load(std::memory_order_relaxed) == new_index)
		return false;
	map_[orig].store(new_index, std::memory_order_relaxed);
	return true;
}

} /* namespace ina */
