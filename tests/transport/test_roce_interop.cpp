/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The host side of NetReduce against the switch side, without a device: the
 * roce transport's own pieces (RoceWindow deciding, roce_msg_build writing
 * the messages, roce_msg_check reading the results) for every rank of a
 * ring, their messages cut into RoCEv2 RC SEND packets the way a NIC does
 * (PSNs back to back, the nr_hdr in the first packet, ICRC from the tests'
 * own bitwise CRC-32), through the real NetReduce stage (nr_process,
 * nr_result), and delivered to each rank's receive side, which keeps RC's
 * rules: a packet is taken only at the expected PSN, a gap is NAKed and the
 * sender goes back N from it, and a silent loss is resent on timeout.
 *
 * What stands in for hardware here is the NIC's segmentation and RC
 * retransmission, nothing of the host's or the switch's logic. Checked: the
 * sums are exact at every rank, every result packet carries a valid ICRC,
 * and the switch counts what the loss made it do.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#include "../roce/roce_frame.h"
#include "ina/netreduce.h"
#include "ina/roce.h"
#include "ina/roce_msg.h"
#include "ina/roce_window.h"

using namespace ina;

namespace {

constexpr uint8_t kRanks = 3;
constexpr uint16_t kRing = 5;
constexpr uint32_t kWindow = 4;
constexpr uint32_t kMtu = 256;
constexpr uint32_t kMsgBytes = 1024; /* MsgLen 4 */

uint32_t psn_add(uint32_t a, uint32_t b) { return (a + b) & ROCE_PSN_MASK; }
/* a - b as a signed 24-bit distance. */
int32_t psn_diff(uint32_t a, uint32_t b) { return static_cast<int32_t>(((a - b) & ROCE_PSN_MASK) << 8) >> 8; }

/* One rank: its host side (window, messages) and a model of its NIC's two
 * RC queue pairs. */
struct Rank {
	uint8_t rank = 0;
	RoceWindow win{window_cfg()};
	RoceRingParams p;
	std::vector<float> data;
	uint64_t first = 0;
	std::vector<std::vector<uint8_t>> slots; /* send buffer per slot */

	/* Send QP (to the successor). */
	uint32_t ip = 0, succ_ip = 0, succ_qpn = 0;
	uint32_t psn_next = 0, psn_acked = 0;
	std::deque<std::vector<uint8_t>> log; /* sent, not acked, in PSN order */
	std::deque<std::vector<uint8_t>> out; /* to the wire */
	bool nak = false;
	uint32_t nak_psn = 0;

	/* Receive QP (from the predecessor). */
	uint32_t recv_qpn = 0, expect = 0;
	std::vector<uint8_t> rx;

	static RoceWindowConfig window_cfg()
	{
		RoceWindowConfig c;
		c.window = kWindow;
		c.msg_bytes = kMsgBytes;
		c.mtu = kMtu;
		c.header_bytes = NR_HDR_LEN;
		c.timeout_ns = UINT64_MAX / 4; /* the NIC recovers every loss here */
		return c;
	}
};

/* Packet k of a message as an RC SEND: Ethernet/IPv4/UDP 4791/BTH/payload/ICRC. */
std::vector<uint8_t> send_packet(const Rank &r, const uint8_t *msg, uint32_t k, uint32_t psn)
{
	const uint32_t L = kMsgBytes / kMtu;
	uint8_t op = L == 1 ? ROCE_RC_SEND_ONLY
			    : k == 0 ? ROCE_RC_SEND_FIRST : k + 1 == L ? ROCE_RC_SEND_LAST : ROCE_RC_SEND_MIDDLE;
	const size_t len = 14 + 20 + 8 + 12 + kMtu + 4;
	std::vector<uint8_t> f(len, 0);
	uint8_t *p = f.data();
	const uint8_t dmac[6] = {2, 0, 0, 0, 0, 0xfe}, smac[6] = {2, 0, 0, 0, 0, r.rank};
	memcpy(p, dmac, 6);
	memcpy(p + 6, smac, 6);
	ina_store16(p + 12, 0x0800);
	uint8_t *ip = p + 14;
	ip[0] = 0x45;
	ip[1] = 0x02;
	ina_store16(ip + 2, static_cast<uint16_t>(len - 14));
	ina_store16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	ina_store32(ip + 12, r.ip);
	ina_store32(ip + 16, r.succ_ip);
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += ina_load16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	ina_store16(ip + 10, static_cast<uint16_t>(~sum));
	uint8_t *udp = ip + 20;
	ina_store16(udp, static_cast<uint16_t>(49152 + r.rank));
	ina_store16(udp + 2, ROCE_UDP_PORT);
	ina_store16(udp + 4, static_cast<uint16_t>(len - 34));
	uint8_t *bth = udp + 8;
	bth[0] = op;
	ina_store16(bth + 2, ROCE_DEFAULT_PKEY);
	ina_store24(bth + 5, r.succ_qpn);
	bth[8] = roce_opcode_last(op) ? ROCE_BTH_ACKREQ : 0;
	ina_store24(bth + 9, psn);
	memcpy(bth + 12, msg + size_t(k) * kMtu, kMtu);
	const uint32_t crc = roce_test::icrc_reference(p, len);
	memcpy(p + len - 4, &crc, 4);
	return f;
}

float value(uint8_t rank, uint64_t tensor, size_t i)
{
	return 0.5f * (rank + 1) + static_cast<float>((i + 7 * tensor) % 1000);
}

struct Ring : ::testing::Test {
	NrTable table{switch_cfg()};
	NrCounters ctr;
	Rank ranks[kRanks];
	/* Drops a packet on its way into (true) or out of (false) the switch. */
	std::function<bool(const std::vector<uint8_t> &, bool)> lose = [](const std::vector<uint8_t> &, bool) {
		return false;
	};
	uint64_t bad_icrc = 0, results = 0, rounds = 0;

	static NrConfig switch_cfg()
	{
		NrConfig c;
		NrRingConfig r;
		r.ring_id = kRing;
		r.ranks = kRanks;
		r.window = kWindow;
		r.msg_len = kMsgBytes / kMtu;
		r.mtu = kMtu;
		r.dtype = NR_DTYPE_FLOAT32;
		c.rings.push_back(r);
		return c;
	}

	void SetUp() override
	{
		for (uint8_t i = 0; i < kRanks; i++) {
			Rank &r = ranks[i];
			r.rank = i;
			r.p.msg_bytes = kMsgBytes;
			r.p.msg_len = kMsgBytes / kMtu;
			r.p.ring_id = kRing;
			r.p.rank = i;
			r.ip = 0x0A000001u + i;
			r.succ_ip = 0x0A000001u + (i + 1) % kRanks;
			r.recv_qpn = 0x200u + i;
			r.succ_qpn = 0x200u + (i + 1) % kRanks;
			/* First PSNs near the 24-bit wrap, different per rank. */
			r.psn_next = r.psn_acked = (0xFFFFF0u + 977u * i) & ROCE_PSN_MASK;
			r.slots.assign(2 * kWindow, std::vector<uint8_t>(kMsgBytes));
		}
		for (uint8_t i = 0; i < kRanks; i++)
			ranks[(i + 1) % kRanks].expect = ranks[i].psn_next;
	}

	Rank &receiver_of(const std::vector<uint8_t> &f)
	{
		const uint32_t qpn = ina_load24(f.data() + 42 + 5);
		return ranks[(qpn - 0x200u) % kRanks];
	}

	/* The receive QP of `r`: RC takes the expected PSN only. */
	void deliver(const std::vector<uint8_t> &f)
	{
		if (lose(f, false))
			return;
		Rank &r = receiver_of(f);
		Rank &sender = ranks[(r.rank + kRanks - 1) % kRanks];
		results++;
		if (roce_test::icrc_in(f.data(), f.size()) != roce_test::icrc_reference(f.data(), f.size())) {
			bad_icrc++;
			return; /* a NIC drops it */
		}
		const uint32_t psn = ina_load24(f.data() + 42 + 9);
		const int32_t d = psn_diff(psn, r.expect);
		if (d < 0)
			return; /* duplicate: acknowledged again, dropped */
		if (d > 0) {
			if (!sender.nak) {
				sender.nak = true;
				sender.nak_psn = r.expect;
			}
			return;
		}
		const uint8_t op = f[42];
		if (roce_opcode_first(op))
			r.rx.clear();
		r.rx.insert(r.rx.end(), f.begin() + 54, f.end() - 4);
		r.expect = psn_add(r.expect, 1);
		/* ACK: the sender's log is freed up to here. */
		while (!sender.log.empty() && psn_diff(ina_load24(sender.log.front().data() + 42 + 9), r.expect) < 0)
			sender.log.pop_front();
		sender.psn_acked = r.expect;
		if (!roce_opcode_last(op))
			return;
		uint32_t id;
		uint64_t seq;
		ASSERT_EQ(roce_msg_check(r.p, r.rx.data(), static_cast<uint32_t>(r.rx.size()), &id), RoceMsgError::kOk);
		if (r.win.on_result(id, &seq) == RoceResult::kCompleted) {
			size_t first;
			uint32_t count;
			roce_msg_span(r.p, r.data.size(), seq - r.first, &first, &count);
			memcpy(r.data.data() + first, r.rx.data() + NR_HDR_LEN, size_t(count) * 4);
		}
	}

	void to_switch(std::vector<uint8_t> f)
	{
		if (lose(f, true))
			return;
		NrResult res = nr_process(table, ctr, f.data(), static_cast<uint32_t>(f.size()), rounds);
		switch (res.verdict) {
		case NrVerdict::kPass:
		case NrVerdict::kForward:
			deliver(f);
			break;
		case NrVerdict::kDrop:
			break;
		case NrVerdict::kComplete:
			deliver(f);
			for (uint8_t o = 0; o < kRanks; o++) {
				if (o == res.rank)
					continue;
				std::vector<uint8_t> c = f;
				ASSERT_TRUE(nr_result(table, res, o, c.data(), static_cast<uint32_t>(c.size())));
				deliver(c);
			}
			break;
		}
	}

	/* The host posts what its window allows; the NIC cuts it into packets. */
	void post(Rank &r)
	{
		uint64_t seq;
		while (r.win.next(&seq)) {
			std::vector<uint8_t> &m = r.slots[r.win.slot(seq)];
			/* A resend goes from its slot, as in roce.cpp: the
			 * tensor may hold its result already. */
			if (!r.win.resending()) {
				size_t first;
				uint32_t count;
				roce_msg_span(r.p, r.data.size(), seq - r.first, &first, &count);
				roce_msg_build(r.p, r.win.msg_id(seq), r.data.data() + first, count, m.data());
			}
			for (uint32_t k = 0; k < kMsgBytes / kMtu; k++) {
				r.out.push_back(send_packet(r, m.data(), k, r.psn_next));
				r.log.push_back(r.out.back());
				r.psn_next = psn_add(r.psn_next, 1);
			}
			r.win.posted(seq, rounds);
		}
	}

	/* All-reduces one tensor of n values per rank; returns false if it
	 * did not finish within a bound of rounds. */
	bool allreduce(size_t n, uint64_t tensor)
	{
		for (Rank &r : ranks) {
			r.data.resize(n);
			for (size_t i = 0; i < n; i++)
				r.data[i] = value(r.rank, tensor, i);
			r.first = r.win.end();
			r.win.add(roce_msg_count(r.p, n));
		}
		for (uint64_t round = 0; round < 10000; round++, rounds++) {
			bool done = true;
			for (Rank &r : ranks)
				done = done && r.win.done();
			if (done)
				return true;
			for (Rank &r : ranks)
				post(r);
			/* The ranks' packets interleave on the way to the switch. */
			bool any = true;
			bool moved = false;
			while (any) {
				any = false;
				for (Rank &r : ranks) {
					if (r.out.empty())
						continue;
					std::vector<uint8_t> f = std::move(r.out.front());
					r.out.pop_front();
					to_switch(std::move(f));
					any = moved = true;
				}
			}
			/* RC: a NAK resends from its PSN; a round with nothing on
			 * the wire and packets unacknowledged is the NIC's
			 * retransmission timeout, from the oldest. */
			for (Rank &r : ranks) {
				if (r.nak || (!moved && !r.log.empty())) {
					uint32_t from = r.nak ? r.nak_psn : r.psn_acked;
					r.nak = false;
					for (const auto &f : r.log)
						if (psn_diff(ina_load24(f.data() + 42 + 9), from) >= 0)
							r.out.push_back(f);
				}
			}
		}
		return false;
	}

	void expect_sums(size_t n, uint64_t tensor)
	{
		for (const Rank &r : ranks) {
			for (size_t i = 0; i < n; i++) {
				float want = 0;
				for (uint8_t k = 0; k < kRanks; k++)
					want += value(k, tensor, i);
				ASSERT_EQ(r.data[i], want) << "rank " << int(r.rank) << " element " << i;
			}
		}
	}
};

size_t values_per_msg() { return (kMsgBytes - NR_HDR_LEN) / 4; }

} /* namespace */

TEST_F(Ring, LosslessSumsExactAcrossTensors)
{
	/* 11 and 3 messages: slots (2N = 8) are reused, the last message of
	 * each tensor is padded, MsgIDs continue across tensors. */
	const size_t sizes[] = {values_per_msg() * 10 + 7, values_per_msg() * 2 + 1};
	for (uint64_t t = 0; t < 2; t++) {
		ASSERT_TRUE(allreduce(sizes[t], t));
		expect_sums(sizes[t], t);
	}
	EXPECT_EQ(bad_icrc, 0u);
	EXPECT_GT(results, 0u);
	const uint64_t msgs = 11 + 3;
	EXPECT_EQ(ctr[NrCounter::roce_completed], msgs * (kMsgBytes / kMtu));
	EXPECT_EQ(ctr[NrCounter::roce_clt_filled], msgs * kRanks);
	EXPECT_EQ(ctr[NrCounter::roce_first_lost] + ctr[NrCounter::roce_duplicate], 0u);
	for (const Rank &r : ranks) {
		EXPECT_EQ(r.win.stats().completed, msgs);
		EXPECT_EQ(r.win.stats().retransmits, 0u);
		EXPECT_EQ(r.win.stats().duplicates + r.win.stats().stale, 0u);
		EXPECT_EQ(r.win.msg_id(r.win.end() - 1), msgs - 1);
	}
}

TEST_F(Ring, LostFirstPacketRecoveredByGoBackN)
{
	/* Rank 1's first packet of message 2 never reaches the switch: the
	 * switch drops the rest of that message (its CLT still holds
	 * message 1), the receiver NAKs the gap, the NIC goes back to it. */
	bool dropped = false;
	lose = [&](const std::vector<uint8_t> &f, bool in) {
		if (!in || dropped || f[42] != ROCE_RC_SEND_FIRST || ina_load32(f.data() + 54 + 4) != 2 ||
		    ina_load32(f.data() + 26) != 0x0A000002u)
			return false;
		dropped = true;
		return true;
	};
	const size_t n = values_per_msg() * 9;
	ASSERT_TRUE(allreduce(n, 0));
	ASSERT_TRUE(dropped);
	expect_sums(n, 0);
	EXPECT_EQ(bad_icrc, 0u);
	EXPECT_GT(ctr[NrCounter::roce_first_lost], 0u);
	EXPECT_GT(ctr[NrCounter::roce_duplicate] + ctr[NrCounter::roce_result_resent], 0u)
		<< "the go-back-N resent packets the switch had already";
}

TEST_F(Ring, LostMiddleAndResultPacketsRecovered)
{
	/* A middle packet into the switch, and a result packet out of it. */
	int in_drops = 0, out_drops = 0;
	lose = [&](const std::vector<uint8_t> &f, bool in) {
		if (f[42] != ROCE_RC_SEND_MIDDLE)
			return false;
		if (in && in_drops == 0 && ina_load32(f.data() + 26) == 0x0A000003u) {
			in_drops++;
			return true;
		}
		if (!in && out_drops == 0 && ina_load32(f.data() + 30) == 0x0A000001u && results > 40) {
			out_drops++;
			return true;
		}
		return false;
	};
	const size_t n = values_per_msg() * 9 + 3;
	ASSERT_TRUE(allreduce(n, 0));
	EXPECT_EQ(in_drops, 1);
	EXPECT_EQ(out_drops, 1);
	expect_sums(n, 0);
	EXPECT_EQ(bad_icrc, 0u);
	EXPECT_GT(ctr[NrCounter::roce_result_resent], 0u) << "the lost result was sent again from the slot";
}

TEST_F(Ring, RandomLossBothWays)
{
	uint64_t x = 0x9E3779B97F4A7C15ull, drops = 0;
	lose = [&](const std::vector<uint8_t> &, bool) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		bool d = x % 100 < 3;
		drops += d;
		return d;
	};
	const size_t sizes[] = {values_per_msg() * 20 + 11, values_per_msg() * 5};
	for (uint64_t t = 0; t < 2; t++) {
		ASSERT_TRUE(allreduce(sizes[t], t)) << "tensor " << t;
		expect_sums(sizes[t], t);
	}
	EXPECT_GT(drops, 10u);
	EXPECT_EQ(bad_icrc, 0u);
	for (const Rank &r : ranks)
		EXPECT_EQ(r.win.stats().completed, 21u + 5u);
}
