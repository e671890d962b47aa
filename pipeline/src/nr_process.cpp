/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The NetReduce stage (paper §3.1-3.2) over one RoCEv2 frame: parse, CLT,
 * addressing, aggregation, deparse. docs/netreduce.md explains each choice.
 */
#include <cstddef>
#include <cstring>

#include <isa-l/crc.h>

#include "ina/nr_codec.h"
#include "nr_registers.h"

namespace ina {

namespace {

constexpr uint32_t kEth = sizeof(struct ina_eth_hdr);
constexpr uint32_t kIp = sizeof(struct ina_ipv4_hdr);
constexpr uint32_t kUdp = sizeof(struct ina_udp_hdr);
constexpr uint32_t kBth = ROCE_BTH_OFFSET;
constexpr uint32_t kAfterBth = ROCE_BTH_OFFSET + ROCE_BTH_LEN;

/* What parse() learns about a RoCEv2 data packet. */
struct RocePacket {
	uint32_t len;      /* frame length without Ethernet padding */
	uint8_t opcode;
	uint32_t psn;
	NrConnKey key;
	uint32_t hdr_len;  /* bytes before the values (nr_hdr included) */
	uint32_t val_len;  /* value bytes */
	bool first;
};

/* An NrResult built as two integers: assembled field by field on the stack,
 * GCC reloads it as one 8-byte word, and that load waits for the narrow
 * stores to retire (a failed store-to-load forward on every packet). */
static_assert(offsetof(NrResult, verdict) == 0 && offsetof(NrResult, reason) == 2 &&
		      offsetof(NrResult, ring) == 4 && offsetof(NrResult, rank) == 6 &&
		      offsetof(NrResult, slot) == 8 && sizeof(NrResult) == 12,
	      "NrResult layout");
inline NrResult result(NrVerdict v, NrCounter reason, uint16_t ring = 0, uint8_t rank = 0, uint32_t slot = 0)
{
	const uint64_t head = static_cast<uint64_t>(v) | static_cast<uint64_t>(reason) << 16 |
			      static_cast<uint64_t>(ring) << 32 | static_cast<uint64_t>(rank) << 48;
	NrResult r;
	std::memcpy(&r, &head, sizeof(head));
	r.slot = slot;
	return r;
}

inline NrResult finish(NrCounters &ctr, NrVerdict v, NrCounter reason)
{
	ctr[reason]++;
	return result(v, reason);
}

/* Returns kCount for a data packet, else the counter of the path. */
NrCounter parse(const uint8_t *f, uint32_t len, RocePacket *p)
{
	if (len < kAfterBth + ROCE_ICRC_LEN || ina_load16(f + 12) != 0x0800 || f[kEth] != 0x45)
		return NrCounter::roce_malformed;
	const uint32_t ip_len = ina_load16(f + kEth + offsetof(struct ina_ipv4_hdr, total_length));
	if (f[kEth + offsetof(struct ina_ipv4_hdr, proto)] != 17 || kEth + ip_len > len ||
	    ip_len < kIp + kUdp + ROCE_BTH_LEN + ROCE_ICRC_LEN ||
	    ina_load16(f + kEth + kIp + offsetof(struct ina_udp_hdr, dst_port)) != ROCE_UDP_PORT ||
	    ina_load16(f + kEth + kIp + offsetof(struct ina_udp_hdr, length)) != ip_len - kIp)
		return NrCounter::roce_malformed;
	p->len = kEth + ip_len;
	p->opcode = f[kBth];
	if (!roce_opcode_data(p->opcode))
		return NrCounter::roce_pass_opcode;
	if (f[kBth + 1] & ROCE_BTH_PAD_MASK)
		return NrCounter::roce_malformed;
	p->first = roce_opcode_first(p->opcode);
	p->hdr_len = kAfterBth + roce_ext_len(p->opcode) + (p->first ? NR_HDR_LEN : 0u);
	if (p->len < p->hdr_len + ROCE_ICRC_LEN)
		return p->first ? NrCounter::roce_pass_untagged : NrCounter::roce_malformed;
	p->val_len = p->len - ROCE_ICRC_LEN - p->hdr_len;
	if (p->val_len % 4 != 0)
		return NrCounter::roce_malformed;
	p->psn = ina_load24(f + kBth + offsetof(struct roce_bth, psn));
	p->key.src_ip = ina_load32(f + kEth + offsetof(struct ina_ipv4_hdr, src));
	p->key.dst_ip = ina_load32(f + kEth + offsetof(struct ina_ipv4_hdr, dst));
	p->key.dqpn = ina_load24(f + kBth + offsetof(struct roce_bth, dqpn));
	return NrCounter::kCount;
}

/* A first packet's nr_hdr fills the CLT entry of its connection. */
NrCounter fill_clt(NrTable &t, const uint8_t *f, const RocePacket &p, uint64_t now,
		   NrTable::CltEntry **out)
{
	const NrHeader h = nr_hdr_read(f + p.hdr_len - NR_HDR_LEN);
	const int ring = t.ring_index(h.ring_id);
	if (ring < 0)
		return NrCounter::roce_tag_invalid;
	const NrRingConfig &rc = t.config().rings[ring];
	const uint8_t rank = h.rank;
	const uint32_t msg_id = h.msg_id;
	if (rank >= rc.ranks || h.msg_len != rc.msg_len || h.dtype != rc.dtype ||
	    NR_HDR_LEN + p.val_len > rc.mtu || msg_id >= NrStages::ring(t, static_cast<uint16_t>(ring)).id_mod)
		return NrCounter::roce_tag_invalid;
	NrTable::CltEntry *e = NrStages::clt_insert(t, p.key);
	if (e == nullptr)
		return NrCounter::roce_clt_full;
	e->ring = static_cast<uint16_t>(ring);
	e->rank = rank;
	e->msg_id = msg_id;
	e->psn0 = p.psn;
	e->last_seen = now;
	*out = e;
	return NrCounter::kCount;
}

/* Values of `n` bytes added into the slot, in the ring's type. Returns true
 * when an int32 sum saturated. */
inline bool add_values(uint32_t *acc, const uint8_t *src, uint32_t n, uint8_t dtype)
{
	if (dtype == NR_DTYPE_FLOAT32) {
		nr_add_f32(reinterpret_cast<float *>(acc), src, n / 4);
		return false;
	}
	return nr_add_i32(reinterpret_cast<int32_t *>(acc), src, n / 4);
}

/* The ICRC of a frame that carries slot s's values after hdr_len bytes of
 * headers whose CRC is head_crc (roce_icrc_head()): combined with the
 * slot's value CRC for a full packet, the values' CRC continued otherwise. */
inline void store_result_icrc(const NrTable::Ring &r, uint32_t s, uint8_t *f, uint32_t hdr_len,
			      uint32_t val_len, uint32_t head_crc)
{
	const CrcShift *sh = r.shift_for(val_len);
	const uint32_t crc = sh != nullptr ? crc_combine(*sh, head_crc, r.value_crc[s])
					   : crc32_gzip_refl(head_crc, f + hdr_len, val_len);
	std::memcpy(f + hdr_len + val_len, &crc, ROCE_ICRC_LEN);
}

/* The frame carries the slot's result for its own connection. */
inline void write_result(const NrTable::Ring &r, uint32_t s, uint8_t *f, const RocePacket &p,
			 uint32_t head_crc)
{
	std::memcpy(f + p.hdr_len, r.value_of(s), p.val_len);
	store_result_icrc(r, s, f, p.hdr_len, p.val_len, head_crc);
}

} /* namespace */

NrResult nr_process(NrTable &t, NrCounters &ctr, uint8_t *frame, uint32_t len, uint64_t now)
{
	RocePacket p;
	NrCounter why = parse(frame, len, &p);
	if (why != NrCounter::kCount)
		return finish(ctr, why == NrCounter::roce_malformed ? NrVerdict::kDrop : NrVerdict::kPass, why);

	/* ---- clt: who is this packet ---------------------------------------- */
	NrTable::CltEntry *e = nullptr;
	if (p.first) {
		if (nr_hdr_read(frame + p.hdr_len - NR_HDR_LEN).magic != NR_MAGIC)
			return finish(ctr, NrVerdict::kPass, NrCounter::roce_pass_untagged);
	} else {
		/* No entry: its first packet was lost, or the entry expired or
		 * was cleared mid-message. Forwarded, the packet's raw values
		 * would be accepted as the result by a receiver that expects
		 * its PSN; dropped, the sender resends, and a resend from the
		 * message's first packet fills the CLT again. */
		e = NrStages::clt_find(t, p.key);
		if (e == nullptr)
			return finish(ctr, NrVerdict::kDrop, NrCounter::roce_clt_miss);
	}
	/* Only now, with the packet known to be NetReduce's: a corrupted one
	 * must neither fill the CLT nor reach a sum. The headers' CRC is kept
	 * for the results, which carry these headers; the check continues it
	 * over the values. */
	const uint32_t head_crc = roce_icrc_head(frame, p.hdr_len);
	if (t.config().check_icrc) {
		uint32_t icrc;
		std::memcpy(&icrc, frame + p.len - ROCE_ICRC_LEN, 4);
		if (icrc != crc32_gzip_refl(head_crc, frame + p.hdr_len, p.val_len))
			return finish(ctr, NrVerdict::kDrop, NrCounter::roce_icrc_bad);
	}
	if (p.first) {
		why = fill_clt(t, frame, p, now, &e);
		if (why != NrCounter::kCount)
			return finish(ctr, NrVerdict::kDrop, why);
		ctr[NrCounter::roce_clt_filled]++;
	}
	e->last_seen = now;

	/* ---- address: MsgID and PSN - PSN0 ---------------------------------- */
	NrTable::Ring &r = NrStages::ring(t, e->ring);
	const uint32_t L = r.cfg.msg_len;
	const uint32_t N = r.cfg.window;
	int32_t d = static_cast<int32_t>(((p.psn - e->psn0) & ROCE_PSN_MASK) << 8) >> 8;
	uint32_t msg = e->msg_id;
	if (d >= static_cast<int32_t>(L))
		return finish(ctr, NrVerdict::kDrop, NrCounter::roce_first_lost);
	if (d < 0) {
		/* Go-back-N resends an earlier message of the window: messages
		 * are MsgLen packets back to back, so its MsgID follows. */
		const uint32_t back = (static_cast<uint32_t>(-d) + L - 1) / L;
		if (back > N)
			return finish(ctr, NrVerdict::kDrop, NrCounter::roce_before_window);
		msg = r.msg_back(msg, back);
		d += static_cast<int32_t>(back * L);
	}
	const uint32_t rel = static_cast<uint32_t>(d);
	if ((rel == 0) != p.first || (rel == L - 1) != static_cast<bool>(roce_opcode_last(p.opcode)))
		return finish(ctr, NrVerdict::kDrop, NrCounter::roce_opcode_mismatch);
	if (p.val_len > r.elems * 4u)
		return finish(ctr, NrVerdict::kDrop, NrCounter::roce_shape_mismatch);
	const uint32_t m2 = msg % (2 * N);
	const uint32_t s = m2 * L + rel;

	/* Release one window back: the slot of MsgID - N, which every rank
	 * has received the result of before sending MsgID. Only that message:
	 * a late retransmission must not free a newer one. Its value stays
	 * until a new message claims the slot, for a lost result's resend. */
	const uint32_t f = (m2 >= N ? m2 - N : m2 + N) * L + rel; /* (MsgID + N) % 2N */
	if ((r.state[f] & (kNrUsed | kNrFreed)) == kNrUsed && r.tag[f] == r.msg_back(msg, N)) {
		r.state[f] |= kNrFreed;
		ctr[NrCounter::roce_freed]++;
	}

	/* ---- aggregate ------------------------------------------------------ */
	if (!(r.state[s] & kNrUsed) || r.tag[s] != msg) {
		const bool newer = (r.state[s] & kNrUsed) && r.msg_newer(msg, r.tag[s]);
		if ((r.state[s] & kNrUsed) && !newer)
			return finish(ctr, NrVerdict::kDrop, NrCounter::roce_behind_window);
		if (newer && !(r.state[s] & (kNrComplete | kNrFreed)))
			return finish(ctr, NrVerdict::kDrop, NrCounter::roce_ahead_window);
		r.tag[s] = msg;
		r.bitmap[s] = 0;
		r.state[s] = kNrUsed;
		r.hdr_len[s] = static_cast<uint8_t>(p.hdr_len);
		r.val_len[s] = static_cast<uint16_t>(p.val_len);
		std::memset(r.value_of(s), 0, r.elems * 4u);
	} else if ((r.state[s] & (kNrFreed | kNrComplete)) == kNrFreed) {
		r.state[s] &= static_cast<uint8_t>(~kNrFreed);
	}
	const uint32_t bit = 1u << e->rank;
	if (r.bitmap[s] & bit) {
		if (!(r.state[s] & kNrComplete) || r.val_len[s] != p.val_len)
			return finish(ctr, NrVerdict::kDrop, NrCounter::roce_duplicate);
		write_result(r, s, frame, p, head_crc);
		return finish(ctr, NrVerdict::kForward, NrCounter::roce_result_resent);
	}
	if (r.hdr_len[s] != p.hdr_len || r.val_len[s] != p.val_len)
		return finish(ctr, NrVerdict::kDrop, NrCounter::roce_shape_mismatch);
	if (add_values(r.value_of(s), frame + p.hdr_len, p.val_len, r.cfg.dtype))
		ctr[NrCounter::roce_overflow]++;
	nr_copy_headers(r.hdr_of(s, e->rank), frame, p.hdr_len);
	r.hdr_crc_of(s, e->rank) = head_crc;
	r.bitmap[s] |= bit;
	ctr[NrCounter::roce_aggregated]++;
	if (r.bitmap[s] != r.full)
		return result(NrVerdict::kDrop, NrCounter::roce_aggregated);

	/* ---- deparse: the result into this connection ----------------------- */
	r.state[s] |= kNrComplete;
	if (r.shift_for(p.val_len) != nullptr)
		r.value_crc[s] = crc32_gzip_refl(0, reinterpret_cast<const uint8_t *>(r.value_of(s)), p.val_len);
	write_result(r, s, frame, p, head_crc);
	ctr[NrCounter::roce_completed]++;
	return result(NrVerdict::kComplete, NrCounter::roce_completed, e->ring, e->rank, s);
}

uint32_t nr_result(const NrTable &t, const NrResult &res, uint8_t rank, uint8_t *frame, uint32_t cap)
{
	if (res.verdict != NrVerdict::kComplete || res.ring >= t.config().rings.size())
		return 0;
	const NrTable::Ring &r = NrStages::ring(t, res.ring);
	const uint32_t s = res.slot;
	if (rank == res.rank || rank >= r.cfg.ranks || s >= r.slots || !(r.bitmap[s] & (1u << rank)))
		return 0;
	const uint32_t hdr_len = r.hdr_len[s];
	const uint32_t flen = hdr_len + r.val_len[s] + ROCE_ICRC_LEN;
	if (cap < flen)
		return 0;
	nr_copy_headers(frame, r.hdr_of(s, rank), hdr_len);
	std::memcpy(frame + hdr_len, r.value_of(s), r.val_len[s]);
	store_result_icrc(r, s, frame, hdr_len, r.val_len[s], r.hdr_crc_of(s, rank));
	return flen;
}

} /* namespace ina */
