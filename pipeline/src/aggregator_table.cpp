/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Allocation and inspection of the register arrays. Nothing here runs per
 * packet.
 */
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "registers.h"

namespace ina {

namespace {

/* job_held has one word per job id (the INA header's 16-bit job_id). */
constexpr size_t kJobIds = 65536;

} /* namespace */

AggregatorTable::AggregatorTable(const PipelineConfig &cfg, SimdLevel simd,
				 const RegisterAllocator &mem)
	: cfg_(cfg), simd_(simd), reg_(new Registers)
{
	if (cfg.aggregators == 0)
		throw std::invalid_argument("aggregators must be at least 1");
	if (cfg.stride == 0 || cfg.offset >= cfg.stride)
		throw std::invalid_argument("lcore share: need offset < stride");
	if (cfg.elements == 0 || cfg.elements > INA_MAX_ELEMENTS)
		throw std::invalid_argument("elements must be 1.." + std::to_string(INA_MAX_ELEMENTS));
	if (static_cast<int>(simd) > static_cast<int>(simd_best()))
		throw std::invalid_argument(std::string("this CPU lacks ") + simd_name(simd));

	slots_ = cfg.offset < cfg.aggregators
			 ? (cfg.aggregators - cfg.offset + cfg.stride - 1) / cfg.stride
			 : 0;
	size_t *total = &reg_->bytes;
	reg_->id = alloc_registers<AggregatorId>(slots_, mem, total);
	reg_->bitmap = alloc_registers<uint32_t>(slots_, mem, total);
	reg_->count = alloc_registers<uint32_t>(slots_, mem, total);
	reg_->flags = alloc_registers<uint8_t>(slots_, mem, total);
	reg_->value_stride = (cfg.elements + 15u) & ~15u;
	reg_->value = alloc_registers<int32_t>(size_t(slots_) * reg_->value_stride, mem, total);
	reg_->held = alloc_registers<uint32_t>(kJobIds, mem, total);
	reg_->kernels = &value_kernels(simd);
}

AggregatorTable::~AggregatorTable() = default;

size_t AggregatorTable::register_bytes() const
{
	return reg_->bytes;
}

uint32_t AggregatorTable::held(uint16_t job) const
{
	return reg_->held[job];
}

/* The one way a slot's key changes outside process(): occupancy and the
 * job_held word of the old and the new holder follow it. */
void AggregatorTable::set_key(uint32_t i, uint64_t key)
{
	const uint64_t old = reg_->id[i].key;
	if (old != 0) {
		reg_->held[key_job(old)]--;
		occupied_--;
	}
	if (key != 0) {
		reg_->held[key_job(key)]++;
		occupied_++;
	}
	reg_->id[i].key = key;
}

AggregatorState AggregatorTable::read(uint32_t index) const
{
	AggregatorState s;
	if (!owns(index))
		return s;
	uint32_t i = index / cfg_.stride;
	const AggregatorId &id = reg_->id[i];
	s.occupied = id.key != 0;
	s.epoch = key_epoch(id.key);
	s.job = key_job(id.key);
	s.seq = static_cast<uint32_t>(id.key);
	s.timestamp = id.timestamp;
	s.bitmap = reg_->bitmap[i];
	s.count = reg_->count[i];
	s.ecn = reg_->flags[i] & kAggEcn;
	s.col = reg_->flags[i] & kAggCol;
	s.overflow = reg_->flags[i] & kAggOverflow;
	s.value = &reg_->value[size_t(i) * reg_->value_stride];
	return s;
}

void AggregatorTable::write(uint32_t index, const AggregatorState &s, const int32_t *value, uint16_t n)
{
	if (!owns(index))
		throw std::invalid_argument("aggregator " + std::to_string(index) + " is not in this table");
	uint32_t i = index / cfg_.stride;
	set_key(i, s.occupied ? aggregator_key(s.epoch, s.job, s.seq) : 0);
	reg_->id[i].timestamp = s.timestamp;
	reg_->bitmap[i] = s.bitmap;
	reg_->count[i] = s.count;
	reg_->flags[i] = (s.ecn ? kAggEcn : 0) | (s.col ? kAggCol : 0) | (s.overflow ? kAggOverflow : 0);
	int32_t *row = &reg_->value[size_t(i) * reg_->value_stride];
	std::memset(row, 0, sizeof(int32_t) * reg_->value_stride);
	if (value != nullptr)
		std::memcpy(row, value, sizeof(int32_t) * std::min<uint32_t>(n, cfg_.elements));
}

/* Frees slot i: the id, bitmap, count and flags registers; the value row
 * is overwritten by the next claim. */
void AggregatorTable::free_slot(uint32_t i)
{
	set_key(i, 0);
	reg_->bitmap[i] = 0;
	reg_->count[i] = 0;
	reg_->flags[i] = 0;
}

uint32_t AggregatorTable::sweep(uint32_t *cursor, uint32_t n, uint64_t now, uint64_t timeout,
				FreedFn freed, void *ctx)
{
	if (timeout == 0 || slots_ == 0)
		return 0;
	uint32_t i = *cursor < slots_ ? *cursor : 0;
	uint32_t done = 0;
	for (uint32_t k = 0; k < n && k < slots_; k++) {
		AggregatorId &id = reg_->id[i];
		/* Same test as the parameter packet's GC (process.cpp): only a
		 * timestamp in the past counts, so another clock never frees a
		 * live aggregator by wrapping. */
		if (id.key != 0 && now > id.timestamp && now - id.timestamp > timeout) {
			const uint16_t job = key_job(id.key);
			free_slot(i);
			done++;
			if (freed != nullptr)
				freed(job, ctx);
		}
		if (++i == slots_)
			i = 0;
	}
	*cursor = i;
	return done;
}

uint32_t AggregatorTable::purge(bool (*stale)(uint16_t job, void *ctx), FreedFn freed, void *ctx)
{
	uint32_t done = 0;
	for (uint32_t i = 0; i < slots_ && occupied_ != 0; i++) {
		const uint64_t key = reg_->id[i].key;
		if (key == 0)
			continue;
		const uint16_t job = key_job(key);
		if (!stale(job, ctx))
			continue;
		free_slot(i);
		done++;
		if (freed != nullptr)
			freed(job, ctx);
	}
	return done;
}

void AggregatorTable::clear()
{
	std::memset(reg_->id.get(), 0, sizeof(AggregatorId) * slots_);
	std::memset(reg_->bitmap.get(), 0, sizeof(uint32_t) * slots_);
	std::memset(reg_->count.get(), 0, sizeof(uint32_t) * slots_);
	std::memset(reg_->flags.get(), 0, slots_);
	std::memset(reg_->value.get(), 0, sizeof(int32_t) * size_t(slots_) * reg_->value_stride);
	std::memset(reg_->held.get(), 0, sizeof(uint32_t) * kJobIds);
	occupied_ = 0;
}

} /* namespace ina */
