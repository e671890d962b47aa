/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NrTable: allocation from the configuration, the CLT's maintenance and the
 * counter names. Nothing here runs per packet.
 */
#include <cstring>
#include <stdexcept>
#include <string>

#include "nr_registers.h"

namespace ina {

namespace {

struct NrCounterInfo {
	const char *name;
	const char *help;
};

constexpr NrCounterInfo kNrCounterInfo[] = {
#define INA_X(name, kind, help) {#name, help},
	INA_NR_COUNTERS(INA_X)
#undef INA_X
};

static_assert(sizeof(kNrCounterInfo) / sizeof(kNrCounterInfo[0]) == kNrCounterCount, "counters");

/* Largest CLT (connections) and aggregator array (slots) a table accepts. */
constexpr uint32_t kMaxConnections = 1u << 20;
constexpr uint32_t kMaxSlots = 1u << 20;

void check_ring(const NrRingConfig &r)
{
	const std::string id = "ring " + std::to_string(r.ring_id) + ": ";
	if (r.ranks < 2 || r.ranks > NR_MAX_RANKS)
		throw std::invalid_argument(id + "ranks must be 2.." + std::to_string(NR_MAX_RANKS));
	if (r.window == 0)
		throw std::invalid_argument(id + "window must be at least 1");
	if (r.msg_len == 0)
		throw std::invalid_argument(id + "msg_len must be at least 1 packet");
	if (r.mtu < 256 || r.mtu > 4096 || r.mtu % 4 != 0)
		throw std::invalid_argument(id + "mtu must be 256..4096 bytes, a multiple of 4");
	if (r.dtype != NR_DTYPE_INT32 && r.dtype != NR_DTYPE_FLOAT32)
		throw std::invalid_argument(id + "type must be int32 or float32");
	if (2ull * r.window * r.msg_len > kMaxSlots)
		throw std::invalid_argument(id + "2 x window x msg_len above " + std::to_string(kMaxSlots) +
					    " slots");
}

} /* namespace */

const char *nr_counter_name(NrCounter c)
{
	auto i = static_cast<size_t>(c);
	return i < kNrCounterCount ? kNrCounterInfo[i].name : nullptr;
}

const char *nr_counter_help(NrCounter c)
{
	auto i = static_cast<size_t>(c);
	return i < kNrCounterCount ? kNrCounterInfo[i].help : nullptr;
}

void NrTable::CltDeleter::operator()(CltEntry *p) const
{
	RegisterDeleter{mem}(p);
}

NrTable::NrTable(const NrConfig &cfg, const RegisterAllocator &mem) : cfg_(cfg), clt_(nullptr, CltDeleter{mem})
{
	if (cfg.connections == 0 || cfg.connections > kMaxConnections)
		throw std::invalid_argument("connections must be 1.." + std::to_string(kMaxConnections));
	for (size_t i = 0; i < cfg.rings.size(); i++) {
		check_ring(cfg.rings[i]);
		for (size_t j = 0; j < i; j++)
			if (cfg.rings[j].ring_id == cfg.rings[i].ring_id)
				throw std::invalid_argument("ring " + std::to_string(cfg.rings[i].ring_id) +
							    " configured twice");
	}
	uint32_t cap = 2;
	while (cap < 2 * cfg.connections)
		cap <<= 1;
	size_t total = 0;
	clt_.reset(alloc_registers<CltEntry>(cap, mem, &total).release());
	clt_mask_ = cap - 1;

	for (const NrRingConfig &rc : cfg.rings) {
		auto r = std::make_unique<Ring>();
		r->cfg = rc;
		r->slots = 2u * rc.window * rc.msg_len;
		r->elems = rc.mtu / 4u;
		r->full = rc.ranks == 32 ? 0xFFFFFFFFu : (1u << rc.ranks) - 1u;
		r->id_mod = (1ull << 32) / (2ull * rc.window) * (2ull * rc.window);
		const size_t slots = r->slots;
		r->tag = alloc_registers<uint32_t>(slots, mem, &total);
		r->bitmap = alloc_registers<uint32_t>(slots, mem, &total);
		r->state = alloc_registers<uint8_t>(slots, mem, &total);
		r->hdr_len = alloc_registers<uint8_t>(slots, mem, &total);
		r->val_len = alloc_registers<uint16_t>(slots, mem, &total);
		r->value = alloc_registers<uint32_t>(slots * r->elems, mem, &total);
		r->hdr = alloc_registers<uint8_t>(slots * rc.ranks * kNrHdrCap, mem, &total);
		r->hdr_crc = alloc_registers<uint32_t>(slots * rc.ranks, mem, &total);
		r->value_crc = alloc_registers<uint32_t>(slots, mem, &total);
		r->shift.reset(new CrcShift[2]);
		crc_shift_init(&r->shift[0], rc.mtu);
		crc_shift_init(&r->shift[1], rc.mtu - NR_HDR_LEN);
		rings_.push_back(std::move(r));
	}
}

NrTable::~NrTable() = default;

uint32_t NrTable::slots(uint16_t r) const
{
	return r < rings_.size() ? rings_[r]->slots : 0;
}

size_t NrTable::bytes() const
{
	size_t b = (clt_mask_ + 1ull) * sizeof(CltEntry);
	for (const auto &r : rings_)
		b += static_cast<size_t>(r->slots) *
		     (4 + 4 + 1 + 1 + 2 + 4 + 4ull * r->elems + static_cast<size_t>(r->cfg.ranks) * (kNrHdrCap + 4));
	return b;
}

int NrTable::ring_index(uint16_t ring_id) const
{
	for (size_t i = 0; i < rings_.size(); i++)
		if (rings_[i]->cfg.ring_id == ring_id)
			return static_cast<int>(i);
	return -1;
}

bool NrTable::lookup(const NrConnKey &k, NrConnState *out) const
{
	const CltEntry *e = NrStages::clt_find(*this, k);
	if (e == nullptr)
		return false;
	*out = NrConnState{e->ring, e->rank, e->msg_id, e->psn0, e->last_seen};
	return true;
}

uint32_t NrTable::expire(uint64_t now, uint64_t timeout, NrCounters &ctr)
{
	if (timeout == 0)
		return 0;
	uint32_t freed = 0;
	for (uint32_t i = 0; i <= clt_mask_;) {
		CltEntry &e = clt_[i];
		if (!e.valid || now - e.last_seen <= timeout) {
			i++;
			continue;
		}
		/* Backward-shift deletion keeps every probe chain unbroken;
		 * an entry moved into i is looked at again. */
		uint32_t hole = i;
		for (uint32_t j = (hole + 1) & clt_mask_; clt_[j].valid; j = (j + 1) & clt_mask_) {
			const uint32_t home = nr_conn_hash(clt_[j].key) & clt_mask_;
			const bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
			if (!between) {
				clt_[hole] = clt_[j];
				hole = j;
			}
		}
		clt_[hole].valid = false;
		clt_used_--;
		freed++;
		ctr[NrCounter::roce_clt_expired]++;
		if (hole == i)
			i++;
	}
	return freed;
}

void NrTable::clear()
{
	std::memset(static_cast<void *>(clt_.get()), 0, (clt_mask_ + 1ull) * sizeof(CltEntry));
	clt_used_ = 0;
	for (auto &r : rings_) {
		std::memset(r->state.get(), 0, r->slots);
		std::memset(r->bitmap.get(), 0, r->slots * sizeof(uint32_t));
	}
}

bool NrTable::slot_state(uint16_t r, uint32_t slot, uint32_t *msg_id, uint32_t *bitmap,
			 bool *complete) const
{
	if (r >= rings_.size() || slot >= rings_[r]->slots || !(rings_[r]->state[slot] & kNrUsed))
		return false;
	*msg_id = rings_[r]->tag[slot];
	*bitmap = rings_[r]->bitmap[slot];
	*complete = rings_[r]->state[slot] & kNrComplete;
	return true;
}

} /* namespace ina */
