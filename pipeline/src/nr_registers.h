/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The state behind an NrTable: a ring's aggregator array and the CLT, laid
 * out as flat arrays allocated once from the configuration.
 */
#ifndef INA_NR_REGISTERS_H
#define INA_NR_REGISTERS_H

#include <cstring>
#include <memory>

#include "ina/netreduce.h"
#include "ina/roce_icrc.h"
#include "registers.h"

namespace ina {

/* Headers kept per slot and rank to rebuild that rank's result packet:
 * Ethernet .. BTH, RETH and nr_hdr at most (86 bytes). */
constexpr uint32_t kNrHdrCap = 96;

/* Copies a data packet's headers (54 to 86 bytes) in 16-byte pieces, the
 * last one overlapping: GCC turns a copy of variable length, and even a
 * fixed 54 bytes, into rep movsb, which starts up slowly. */
inline void nr_copy_headers(uint8_t *__restrict dst, const uint8_t *__restrict src, uint32_t len)
{
	uint32_t at = 0;
	for (; at + 16 <= len; at += 16)
		std::memcpy(dst + at, src + at, 16);
	if (at < len)
		std::memcpy(dst + len - 16, src + len - 16, 16);
}

/* Slot state bits. */
enum : uint8_t {
	kNrUsed = 1,     /* tag names a message */
	kNrComplete = 2, /* every rank is in: the value is the result */
	kNrFreed = 4,    /* a packet one window ahead released it */
};

struct NrTable::Ring {
	NrRingConfig cfg;
	uint32_t slots = 0;     /* 2 N MsgLen */
	uint32_t elems = 0;     /* mtu / 4 */
	uint32_t full = 0;      /* bitmap with every rank */
	/* MsgIDs count modulo the largest multiple of 2N that 32 bits hold
	 * (the host's roce_window.h does the same), so that MsgID % 2N stays
	 * the message's slot across the wrap; 2^32 when 2N is a power of
	 * two. A first packet with a MsgID at or above it is invalid. */
	uint64_t id_mod = 0;
	RegisterArray<uint32_t> tag;     /* MsgID that holds the slot */
	RegisterArray<uint32_t> bitmap;  /* ranks added */
	RegisterArray<uint8_t> state;    /* kNr* bits */
	RegisterArray<uint8_t> hdr_len;  /* bytes before the values */
	RegisterArray<uint16_t> val_len; /* value bytes */
	RegisterArray<uint32_t> value;   /* elems per slot, int32 or float32 bits */
	RegisterArray<uint8_t> hdr;      /* slots x ranks x kNrHdrCap */
	RegisterArray<uint32_t> hdr_crc; /* slots x ranks: roce_icrc_head() of hdr */
	RegisterArray<uint32_t> value_crc; /* CRC-32 of a complete slot's values */
	/* Value lengths of a full packet (mtu) and a full first packet (mtu -
	 * nr_hdr): their ICRCs are combined, other lengths computed whole. */
	std::unique_ptr<CrcShift[]> shift;

	/* The MsgID `back` messages before m (back < id_mod). */
	uint32_t msg_back(uint32_t m, uint32_t back) const
	{
		return static_cast<uint32_t>(m >= back ? m - back : m + id_mod - back);
	}
	/* m follows t by less than half the MsgID space. */
	bool msg_newer(uint32_t m, uint32_t t) const
	{
		const uint64_t d = m >= t ? m - t : m + id_mod - t;
		return d != 0 && d < id_mod / 2;
	}

	uint32_t *value_of(uint32_t s) const { return value.get() + static_cast<size_t>(s) * elems; }
	const CrcShift *shift_for(uint32_t val_len) const
	{
		return val_len == shift[0].len ? &shift[0] : val_len == shift[1].len ? &shift[1] : nullptr;
	}
	uint8_t *hdr_of(uint32_t s, uint32_t rank) const
	{
		return hdr.get() + (static_cast<size_t>(s) * cfg.ranks + rank) * kNrHdrCap;
	}
	uint32_t &hdr_crc_of(uint32_t s, uint32_t rank) const
	{
		return hdr_crc[static_cast<size_t>(s) * cfg.ranks + rank];
	}
};

struct NrTable::CltEntry {
	NrConnKey key;
	bool valid;
	uint8_t rank;
	uint16_t ring;
	uint32_t msg_id;
	uint32_t psn0;
	uint64_t last_seen;
};

/* nr_values.cpp: n elements of src (little endian) added into acc. */
void nr_add_f32(float *__restrict acc, const uint8_t *__restrict src, uint32_t n);
bool nr_add_i32(int32_t *__restrict acc, const uint8_t *__restrict src, uint32_t n);

inline uint32_t nr_conn_hash(const NrConnKey &k)
{
	uint64_t h = (static_cast<uint64_t>(k.src_ip) << 32 | k.dst_ip) * 0x9E3779B97F4A7C15ull;
	h ^= (h >> 29) ^ (static_cast<uint64_t>(k.dqpn) * 0xC2B2AE3D27D4EB4Full);
	h ^= h >> 32;
	return static_cast<uint32_t>(h);
}

inline bool nr_key_eq(const NrConnKey &a, const NrConnKey &b)
{
	return a.src_ip == b.src_ip && a.dst_ip == b.dst_ip && a.dqpn == b.dqpn;
}

/* The CLT: open addressing with linear probing, never more than
 * NrConfig::connections entries in a power-of-two array at least twice
 * that size, so a probe ends at an empty entry quickly. */
struct NrStages {
	static NrTable::CltEntry *clt_find(const NrTable &t, const NrConnKey &k)
	{
		for (uint32_t i = nr_conn_hash(k) & t.clt_mask_;; i = (i + 1) & t.clt_mask_) {
			NrTable::CltEntry &e = t.clt_[i];
			if (!e.valid)
				return nullptr;
			if (nr_key_eq(e.key, k))
				return &e;
		}
	}
	/* The entry of k, a new one when there is room; null when full. */
	static NrTable::CltEntry *clt_insert(NrTable &t, const NrConnKey &k)
	{
		for (uint32_t i = nr_conn_hash(k) & t.clt_mask_;; i = (i + 1) & t.clt_mask_) {
			NrTable::CltEntry &e = t.clt_[i];
			if (e.valid && nr_key_eq(e.key, k))
				return &e;
			if (!e.valid) {
				if (t.clt_used_ >= t.cfg_.connections)
					return nullptr;
				t.clt_used_++;
				e.valid = true;
				e.key = k;
				return &e;
			}
		}
	}
	static NrTable::Ring &ring(NrTable &t, uint16_t r) { return *t.rings_[r]; }
	static const NrTable::Ring &ring(const NrTable &t, uint16_t r) { return *t.rings_[r]; }
};

} /* namespace ina */

#endif /* INA_NR_REGISTERS_H */
