/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The NetReduce stage: ICRC, CLT, addressing, per-rank deduplication, the
 * reliability cases of the paper's §3 and the result packets.
 */
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "ina/netreduce.h"
#include "ina/roce_icrc.h" /* roce_icrc_head(), its portable twin */
#include "roce_frame.h"

using namespace ina;
using namespace roce_test;

namespace {

constexpr uint8_t kRanks = 3;
constexpr uint16_t kWindow = 2;
constexpr uint16_t kMsgLen = 3;
constexpr uint32_t kElems = 8;

NrConfig config(uint8_t dtype = NR_DTYPE_FLOAT32, uint32_t connections = 16)
{
	NrConfig c;
	NrRingConfig r;
	r.ring_id = 7;
	r.ranks = kRanks;
	r.window = kWindow;
	r.msg_len = kMsgLen;
	r.mtu = 256;
	r.dtype = dtype;
	c.rings.push_back(r);
	r.ring_id = 9;
	c.rings.push_back(r);
	c.connections = connections;
	return c;
}

Conn conn(uint8_t rank, uint16_t ring = 7)
{
	return Conn{0x0A000001u + rank, 0x0A000001u + (rank + 1u) % kRanks, 0x100u + rank + 16u * ring,
		    rank, ring};
}

/* PSN of packet k of message m on rank r's connection (messages back to
 * back from a per-rank start near the 24-bit wrap). */
uint32_t psn(uint8_t rank, uint32_t m, uint32_t k)
{
	return (0xFFFFF0u + 1000u * rank + m * kMsgLen + k) & ROCE_PSN_MASK;
}

std::vector<uint32_t> fvals(uint8_t rank, uint32_t m, uint32_t k, uint32_t n = kElems)
{
	std::vector<uint32_t> v(n);
	for (uint32_t i = 0; i < n; i++)
		v[i] = f2u(0.5f * (rank + 1) + static_cast<float>(m * 100 + k * 10 + i));
	return v;
}

float fsum(uint32_t m, uint32_t k, uint32_t i)
{
	float s = 0;
	for (uint8_t r = 0; r < kRanks; r++)
		s += 0.5f * (r + 1) + static_cast<float>(m * 100 + k * 10 + i);
	return s;
}

struct Fixture : ::testing::Test {
	NrTable t{config()};
	NrCounters ctr;

	std::vector<uint8_t> pkt(uint8_t rank, uint32_t m, uint32_t k, uint16_t ring = 7)
	{
		return frame(conn(rank, ring), Msg{m, kMsgLen, NR_DTYPE_FLOAT32}, k, psn(rank, m, k),
			     fvals(rank, m, k, k == 0 ? kElems - 4 : kElems));
	}
	NrResult run(std::vector<uint8_t> &f)
	{
		return nr_process(t, ctr, f.data(), static_cast<uint32_t>(f.size()), 1);
	}
	/* Checks that f is rank's packet k of message m carrying the sum. */
	void expect_result(const std::vector<uint8_t> &f, uint8_t rank, uint32_t m, uint32_t k)
	{
		const std::vector<uint8_t> orig = pkt(rank, m, k);
		ASSERT_EQ(f.size(), orig.size());
		const size_t hdr = f.size() - 4 - 4 * values_of(orig).size();
		EXPECT_EQ(0, std::memcmp(f.data(), orig.data(), hdr)) << "headers of rank " << int(rank);
		EXPECT_EQ(ina_load24(f.data() + 51), psn(rank, m, k));
		const std::vector<uint32_t> v = values_of(f);
		for (uint32_t i = 0; i < v.size(); i++)
			EXPECT_EQ(u2f(v[i]), fsum(m, k, i)) << "element " << i;
		EXPECT_EQ(icrc_in(f.data(), f.size()), icrc_reference(f.data(), f.size()));
	}
};

} /* namespace */

TEST(RoceIcrc, MatchesBitwiseReferenceAndIgnoresMaskedFields)
{
	std::vector<uint8_t> f = frame(conn(1), Msg{5, 3, NR_DTYPE_FLOAT32}, 1, 77, fvals(1, 5, 1));
	EXPECT_EQ(roce_icrc(f.data(), static_cast<uint32_t>(f.size())), icrc_reference(f.data(), f.size()));
	const uint32_t before = roce_icrc(f.data(), static_cast<uint32_t>(f.size()));
	f[14 + 1] = 0x03; /* TOS: ECN CE on the way */
	f[14 + 8] = 3;    /* TTL */
	f[14 + 10] ^= 0x55;
	f[14 + 26] = 0x12; /* UDP checksum */
	f[42 + 4] = 0x80;  /* BTH resv8a */
	EXPECT_EQ(roce_icrc(f.data(), static_cast<uint32_t>(f.size())), before);
	f[60] ^= 1; /* payload */
	EXPECT_NE(roce_icrc(f.data(), static_cast<uint32_t>(f.size())), before);
	f[42 + 11] ^= 1; /* PSN is covered */
	f[60] ^= 1;
	EXPECT_NE(roce_icrc(f.data(), static_cast<uint32_t>(f.size())), before);
}

/* The headers' CRC (PCLMUL fold, and the copy for CPUs without it) for
 * every header length the stage uses, and roce_icrc() over every payload
 * length, against the bitwise reference, on random bytes: the masked fields
 * hold anything. */
TEST(RoceIcrc, HeadersAndPayloadMatchReferenceOnRandomFrames)
{
	std::mt19937 rng(11);
	for (int round = 0; round < 2000; round++) {
		std::vector<uint8_t> f(86 + 4 * (round % 80) + 4);
		for (uint8_t &b : f)
			b = static_cast<uint8_t>(rng());
		for (uint32_t head : {54u, 70u, 86u}) {
			const uint32_t want = icrc_reference(f.data(), head + 4); /* CRC of the bytes before */
			ASSERT_EQ(roce_icrc_head(f.data(), head), want) << "head " << head << " round " << round;
			ASSERT_EQ(roce_icrc_head_copy(f.data(), head), want) << "head " << head;
		}
		ASSERT_EQ(roce_icrc(f.data(), static_cast<uint32_t>(f.size())), icrc_reference(f.data(), f.size()))
			<< "length " << f.size();
	}
}

TEST(RoceIcrc, StoreWritesLittleEndian)
{
	std::vector<uint8_t> f = frame(conn(0), Msg{0, 1, NR_DTYPE_INT32}, 0, 5, {1, 2, 3});
	const uint32_t want = icrc_in(f.data(), f.size());
	std::memset(f.data() + f.size() - 4, 0, 4);
	roce_icrc_store(f.data(), static_cast<uint32_t>(f.size()));
	EXPECT_EQ(icrc_in(f.data(), f.size()), want);
}

TEST(NrConfigCheck, RejectsOutOfRange)
{
	NrConfig c = config();
	c.rings[0].ranks = 1;
	EXPECT_THROW(NrTable{c}, std::invalid_argument);
	c = config();
	c.rings[0].mtu = 1000 + 2;
	EXPECT_THROW(NrTable{c}, std::invalid_argument);
	c = config();
	c.rings[1].ring_id = 7;
	EXPECT_THROW(NrTable{c}, std::invalid_argument);
	c = config();
	c.rings[0].dtype = 9;
	EXPECT_THROW(NrTable{c}, std::invalid_argument);
	c = config();
	c.connections = 0;
	EXPECT_THROW(NrTable{c}, std::invalid_argument);
}

TEST_F(Fixture, FirstPacketFillsClt)
{
	auto f = pkt(1, 4, 0);
	EXPECT_EQ(run(f).verdict, NrVerdict::kDrop);
	NrConnState s;
	ASSERT_TRUE(t.lookup(NrConnKey{conn(1).src_ip, conn(1).dst_ip, conn(1).dqpn}, &s));
	EXPECT_EQ(s.ring, 0);
	EXPECT_EQ(s.rank, 1);
	EXPECT_EQ(s.msg_id, 4u);
	EXPECT_EQ(s.psn0, psn(1, 4, 0));
	EXPECT_EQ(ctr[NrCounter::roce_clt_filled], 1u);
	EXPECT_EQ(ctr[NrCounter::roce_aggregated], 1u);
}

TEST_F(Fixture, SlotIsMsgIdMod2NTimesMsgLenPlusRelativePsn)
{
	for (uint32_t m : {0u, 1u, 2u, 3u}) {
		auto f0 = pkt(0, m, 0);
		run(f0);
		auto f2 = pkt(0, m, 2);
		run(f2);
		uint32_t id, bm;
		bool done;
		for (uint32_t k : {0u, 2u}) {
			const uint32_t slot = (m % (2 * kWindow)) * kMsgLen + k;
			ASSERT_TRUE(t.slot_state(0, slot, &id, &bm, &done)) << m << " " << k;
			EXPECT_EQ(id, m);
			EXPECT_EQ(bm, 1u);
			EXPECT_FALSE(done);
		}
	}
}

TEST_F(Fixture, AllRanksGiveResultIntoEachConnection)
{
	for (uint32_t k = 0; k < kMsgLen; k++) {
		std::vector<uint8_t> last;
		NrResult res{};
		for (uint8_t r = 0; r < kRanks; r++) {
			last = pkt(r, 0, k);
			res = run(last);
			if (r + 1 < kRanks) {
				EXPECT_EQ(res.verdict, NrVerdict::kDrop);
			}
		}
		ASSERT_EQ(res.verdict, NrVerdict::kComplete);
		EXPECT_EQ(res.rank, kRanks - 1);
		expect_result(last, kRanks - 1, 0, k);
		for (uint8_t r = 0; r + 1 < kRanks; r++) {
			std::vector<uint8_t> copy(last.size() + 8, 0xEE);
			ASSERT_EQ(nr_result(t, res, r, copy.data(), static_cast<uint32_t>(copy.size())), last.size());
			copy.resize(last.size());
			expect_result(copy, r, 0, k);
		}
		std::vector<uint8_t> copy = last;
		EXPECT_EQ(nr_result(t, res, kRanks - 1, copy.data(), static_cast<uint32_t>(copy.size())), 0u);
		EXPECT_EQ(nr_result(t, res, 0, copy.data(), static_cast<uint32_t>(copy.size()) - 1), 0u);
	}
	EXPECT_EQ(ctr[NrCounter::roce_completed], kMsgLen);
}

TEST_F(Fixture, RetransmissionNeverAddedTwice)
{
	auto a = pkt(0, 0, 1);
	auto b = pkt(1, 0, 1);
	for (uint8_t r = 0; r < kRanks; r++) {
		auto f = pkt(r, 0, 0);
		run(f);
	}
	run(a);
	auto again = pkt(0, 0, 1);
	EXPECT_EQ(run(again).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_duplicate], 1u);
	run(b);
	auto c = pkt(2, 0, 1);
	ASSERT_EQ(run(c).verdict, NrVerdict::kComplete);
	expect_result(c, 2, 0, 1);
	/* The result to rank 0 was lost: its go-back-N resend gets it again. */
	auto resend = pkt(0, 0, 1);
	ASSERT_EQ(run(resend).verdict, NrVerdict::kForward);
	EXPECT_EQ(ctr[NrCounter::roce_result_resent], 1u);
	expect_result(resend, 0, 0, 1);
}

TEST_F(Fixture, LostFirstPacketDropsTheRestUntilResent)
{
	for (uint32_t k = 0; k < kMsgLen; k++) {
		auto f = pkt(0, 0, k);
		run(f);
	}
	/* Message 1's first packet is lost: the CLT still holds message 0. */
	auto mid = pkt(0, 1, 1);
	EXPECT_EQ(run(mid).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_first_lost], 1u);
	uint32_t id, bm;
	bool done;
	EXPECT_FALSE(t.slot_state(0, 1 * kMsgLen + 1, &id, &bm, &done));
	/* Go-back-N resends from the first packet. */
	for (uint32_t k = 0; k < kMsgLen; k++) {
		auto f = pkt(0, 1, k);
		run(f);
	}
	ASSERT_TRUE(t.slot_state(0, 1 * kMsgLen + 1, &id, &bm, &done));
	EXPECT_EQ(id, 1u);
	EXPECT_EQ(bm, 1u);
	EXPECT_EQ(ctr[NrCounter::roce_first_lost], 1u);
}

TEST_F(Fixture, GoBackNIntoThePreviousMessage)
{
	for (uint32_t m = 0; m < 2; m++) {
		for (uint32_t k = 0; k < kMsgLen; k++) {
			if (m == 0 && k == 2)
				continue; /* lost */
			auto f = pkt(0, m, k);
			run(f);
		}
	}
	/* Resend from message 0 packet 2 while the CLT holds message 1. */
	auto f = pkt(0, 0, 2);
	EXPECT_EQ(run(f).verdict, NrVerdict::kDrop);
	uint32_t id, bm;
	bool done;
	ASSERT_TRUE(t.slot_state(0, 0 * kMsgLen + 2, &id, &bm, &done));
	EXPECT_EQ(id, 0u);
	EXPECT_EQ(bm, 1u);
	EXPECT_EQ(ctr[NrCounter::roce_aggregated], 6u);
}

TEST_F(Fixture, PacketsOutsideTheWindow)
{
	/* Message 0 packet 0 from rank 0 only: the slot stays incomplete. */
	auto f = pkt(0, 0, 0);
	run(f);
	/* Message 2N maps onto the same slot while message 0 is not done. */
	auto g = pkt(1, 2 * kWindow, 0);
	EXPECT_EQ(run(g).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_ahead_window], 1u);
	/* Complete message 0 packet 0, then 2N takes the slot. */
	for (uint8_t r = 1; r < kRanks; r++) {
		auto h = pkt(r, 0, 0);
		run(h);
	}
	auto g2 = pkt(1, 2 * kWindow, 0);
	EXPECT_EQ(run(g2).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_aggregated], 4u);
	/* Message 0 now is older than its slot: its result is gone. */
	auto late = pkt(2, 0, 0);
	EXPECT_EQ(run(late).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_behind_window], 1u);
	/* More than a window before the CLT's message. */
	auto old = frame(conn(1), Msg{2 * kWindow, kMsgLen, NR_DTYPE_FLOAT32}, 1,
			 psn(1, 2 * kWindow, 1) - (kWindow + 1) * kMsgLen, fvals(1, 0, 1));
	EXPECT_EQ(run(old).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_before_window], 1u);
}

TEST_F(Fixture, OneWindowAheadFreesTheSlot)
{
	for (uint32_t k = 0; k < kMsgLen; k++) {
		for (uint8_t r = 0; r < kRanks; r++) {
			auto f = pkt(r, 0, k);
			run(f);
		}
	}
	EXPECT_EQ(ctr[NrCounter::roce_freed], 0u);
	auto f = pkt(0, kWindow, 0);
	run(f);
	EXPECT_EQ(ctr[NrCounter::roce_freed], 1u);
	/* A freed slot keeps its result for a lost result's resend. */
	auto resend = pkt(1, 0, 0);
	EXPECT_EQ(run(resend).verdict, NrVerdict::kForward);
	expect_result(resend, 1, 0, 0);
}

/*
 * MsgIDs wrap at the largest multiple of 2N below 2^32 (the host window does
 * the same), not at 2^32: with N = 3 that is 2^32 - 4, and message seq goes
 * out as MsgID seq % (2^32 - 4). Across the wrap each message must keep its
 * slot (MsgID % 2N == seq % 2N), free the one a window back, and a go-back-N
 * resend of the message before the wrap must find its own slot.
 */
TEST(NrMsgIdWrap, SlotsFreesAndGoBackNAcrossTheWrap)
{
	constexpr uint32_t kN = 3;
	constexpr uint64_t kMod = (1ull << 32) / (2 * kN) * (2 * kN);
	static_assert(kMod == (1ull << 32) - 4);
	NrConfig c = config();
	c.rings.resize(1);
	c.rings[0].window = kN;
	NrTable t{c};
	NrCounters ctr;
	const uint64_t s0 = kMod - 7; /* seq of the first message */
	auto msg_id = [](uint64_t seq) { return static_cast<uint32_t>(seq % kMod); };
	auto packet = [&](uint8_t r, uint64_t seq, uint32_t k) {
		const uint32_t m = static_cast<uint32_t>(seq - s0);
		return frame(conn(r), Msg{msg_id(seq), kMsgLen, NR_DTYPE_FLOAT32}, k,
			     (0x10u * r + m * kMsgLen + k) & ROCE_PSN_MASK, fvals(r, m, k, k == 0 ? kElems - 4 : kElems));
	};
	auto run = [&](std::vector<uint8_t> &f) {
		return nr_process(t, ctr, f.data(), static_cast<uint32_t>(f.size()), 1);
	};
	auto expect_sum = [&](const std::vector<uint8_t> &f, uint64_t seq, uint32_t k) {
		const std::vector<uint32_t> v = values_of(f);
		for (uint32_t i = 0; i < v.size(); i++)
			EXPECT_EQ(u2f(v[i]), fsum(static_cast<uint32_t>(seq - s0), k, i)) << "seq " << seq << " k " << k;
		EXPECT_EQ(icrc_in(f.data(), f.size()), icrc_reference(f.data(), f.size()));
	};

	/* Messages s0 .. kMod - 2 from every rank, complete. */
	uint64_t seq = s0;
	for (; seq < kMod - 1; seq++)
		for (uint32_t k = 0; k < kMsgLen; k++)
			for (uint8_t r = 0; r < kRanks; r++) {
				auto f = packet(r, seq, k);
				NrResult res = run(f);
				if (r + 1 == kRanks) {
					ASSERT_EQ(res.verdict, NrVerdict::kComplete) << seq;
					expect_sum(f, seq, k);
				}
			}
	/* kMod - 1 (the last MsgID before the wrap) and kMod (MsgID 0): rank 0
	 * loses packet 2 of kMod - 1 and goes on into MsgID 0. */
	const uint64_t last = kMod - 1;
	for (uint64_t q : {last, last + 1})
		for (uint32_t k = 0; k < kMsgLen; k++)
			for (uint8_t r = 1; r < kRanks; r++) {
				auto f = packet(r, q, k);
				EXPECT_EQ(run(f).verdict, NrVerdict::kDrop);
			}
	for (uint64_t q : {last, last + 1})
		for (uint32_t k = 0; k < kMsgLen; k++) {
			if (q == last && k == 2)
				continue;
			auto f = packet(0, q, k);
			ASSERT_EQ(run(f).verdict, NrVerdict::kComplete) << q << " " << k;
			expect_sum(f, q, k);
		}
	uint32_t id, bm;
	bool done;
	ASSERT_TRUE(t.slot_state(0, (0 % (2 * kN)) * kMsgLen + 1, &id, &bm, &done));
	EXPECT_EQ(id, 0u);
	EXPECT_TRUE(done);
	/* The resend of kMod - 1 packet 2, with the CLT at MsgID 0: slot
	 * (kMod - 1) % 2N, where ranks 1 and 2 wait. */
	auto resend = packet(0, last, 2);
	ASSERT_EQ(run(resend).verdict, NrVerdict::kComplete);
	expect_sum(resend, last, 2);
	ASSERT_TRUE(t.slot_state(0, static_cast<uint32_t>(last % (2 * kN)) * kMsgLen + 2, &id, &bm, &done));
	EXPECT_EQ(id, msg_id(last));
	EXPECT_TRUE(done);
	/* Every packet from s0 + N on freed the slot a window back: across the
	 * wrap too (MsgID 0 freed kMod - 3's slot). */
	EXPECT_EQ(ctr[NrCounter::roce_freed], (last + 1 - s0 + 1 - kN) * kMsgLen);
	EXPECT_EQ(ctr[NrCounter::roce_ahead_window] + ctr[NrCounter::roce_behind_window], 0u);
	/* No host sends a MsgID at or above the wrap. */
	auto bad = frame(conn(0), Msg{static_cast<uint32_t>(kMod), kMsgLen, NR_DTYPE_FLOAT32}, 0, 0x500,
			 fvals(0, 0, 0, kElems - 4));
	EXPECT_EQ(run(bad).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_tag_invalid], 1u);
}

TEST_F(Fixture, CorruptedAndForeignPackets)
{
	auto f = pkt(0, 0, 0);
	f[90] ^= 0x40;
	EXPECT_EQ(run(f).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_icrc_bad], 1u);
	EXPECT_EQ(t.connections(), 0u);

	/* Unknown ring, bad rank, wrong type: the tag is refused. */
	auto g = frame(conn(0, 8), Msg{0, kMsgLen, NR_DTYPE_FLOAT32}, 0, 1, fvals(0, 0, 0, 4));
	EXPECT_EQ(run(g).verdict, NrVerdict::kDrop);
	auto h = frame(conn(0), Msg{0, kMsgLen, NR_DTYPE_INT32}, 0, 1, fvals(0, 0, 0, 4));
	EXPECT_EQ(run(h).verdict, NrVerdict::kDrop);
	auto i = frame(conn(0), Msg{0, 2, NR_DTYPE_FLOAT32}, 0, 1, fvals(0, 0, 0, 4));
	EXPECT_EQ(run(i).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_tag_invalid], 3u);

	/* Ordinary RDMA: a first packet without the InetTag. A later packet of
	 * a connection the CLT does not know is dropped (see below). */
	auto plain = pkt(0, 0, 0);
	ina_store32(plain.data() + 54 + 16, 0x12345678);
	EXPECT_EQ(run(plain).verdict, NrVerdict::kPass);
	EXPECT_EQ(ctr[NrCounter::roce_pass_untagged], 1u);
	auto other = pkt(0, 0, 1);
	EXPECT_EQ(run(other).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_clt_miss], 1u);
	auto ack = pkt(0, 0, 1);
	ack[42] = ROCE_RC_ACK;
	EXPECT_EQ(run(ack).verdict, NrVerdict::kPass);
	EXPECT_EQ(ctr[NrCounter::roce_pass_opcode], 1u);

	/* Truncated and padded (BTH PadCnt) frames are malformed. */
	auto s = pkt(0, 0, 1);
	EXPECT_EQ(nr_process(t, ctr, s.data(), 50, 1).verdict, NrVerdict::kDrop);
	s[43] |= 0x10;
	EXPECT_EQ(run(s).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_malformed], 2u);
}

/* A connection's entry expires, or the table is cleared, mid-message: the
 * next packet must not reach the receiver with its raw values, which the
 * receiver would accept as the result (it expects that PSN). It is dropped;
 * a resend from the message's first packet fills the CLT again. */
TEST_F(Fixture, PacketOfAForgottenConnectionIsDroppedNotForwarded)
{
	for (uint8_t r = 0; r < kRanks; r++) {
		auto f = pkt(r, 0, 0);
		run(f);
	}
	ASSERT_EQ(ctr[NrCounter::roce_completed], 1u); /* every rank has result 0 */
	EXPECT_EQ(t.expire(100, 10, ctr), kRanks);

	const auto sent = pkt(0, 0, 1);
	auto mid = sent;
	const NrResult res = run(mid);
	EXPECT_EQ(res.verdict, NrVerdict::kDrop);
	EXPECT_EQ(res.reason, NrCounter::roce_clt_miss);
	EXPECT_EQ(ctr[NrCounter::roce_clt_miss], 1u);
	EXPECT_EQ(mid, sent);
	uint32_t id, bm;
	bool done;
	EXPECT_FALSE(t.slot_state(0, 1, &id, &bm, &done));

	/* The resend from the first packet: result 0 again, then the rest of
	 * the message aggregates. */
	for (uint8_t r = 0; r < kRanks; r++) {
		auto f = pkt(r, 0, 0);
		ASSERT_EQ(run(f).verdict, NrVerdict::kForward);
		expect_result(f, r, 0, 0);
	}
	std::vector<uint8_t> last;
	for (uint8_t r = 0; r < kRanks; r++) {
		last = pkt(r, 0, 1);
		run(last);
	}
	expect_result(last, kRanks - 1, 0, 1);
	EXPECT_EQ(ctr[NrCounter::roce_completed], 2u);

	t.clear();
	auto after_clear = pkt(1, 0, 2);
	EXPECT_EQ(run(after_clear).reason, NrCounter::roce_clt_miss);
	EXPECT_EQ(ctr[NrCounter::roce_clt_miss], 2u);
	EXPECT_EQ(ctr[NrCounter::roce_aggregated], 2u * kRanks);
}

TEST_F(Fixture, OpcodeMustFitThePlaceInTheMessage)
{
	auto f = pkt(0, 0, 0);
	run(f);
	/* PSN of packet 2 (the last) on a MIDDLE opcode. */
	auto g = frame(conn(0), Msg{0, kMsgLen, NR_DTYPE_FLOAT32}, 1, psn(0, 0, 2), fvals(0, 0, 2));
	EXPECT_EQ(run(g).verdict, NrVerdict::kDrop);
	EXPECT_EQ(ctr[NrCounter::roce_opcode_mismatch], 1u);
}

TEST_F(Fixture, TwoRingsAreIndependent)
{
	for (uint16_t ring : {7, 9}) {
		for (uint8_t r = 0; r < kRanks; r++) {
			auto f = pkt(r, 0, 1, ring);
			auto g = pkt(r, 0, 0, ring);
			run(g);
			NrResult res = run(f);
			EXPECT_EQ(res.verdict, r + 1 == kRanks ? NrVerdict::kComplete : NrVerdict::kDrop);
			if (res.verdict == NrVerdict::kComplete) {
				EXPECT_EQ(res.ring, ring == 7 ? 0 : 1);
			}
		}
	}
	EXPECT_EQ(t.connections(), 2u * kRanks);
	EXPECT_EQ(ctr[NrCounter::roce_completed], 4u);
}

TEST_F(Fixture, CltFullAndExpiry)
{
	NrTable small(config(NR_DTYPE_FLOAT32, 2));
	NrCounters c2;
	for (uint8_t r = 0; r < kRanks; r++) {
		auto f = pkt(r, 0, 0);
		nr_process(small, c2, f.data(), static_cast<uint32_t>(f.size()), 10 * r);
	}
	EXPECT_EQ(c2[NrCounter::roce_clt_full], 1u);
	EXPECT_EQ(small.connections(), 2u);
	EXPECT_EQ(small.expire(25, 20, c2), 1u); /* rank 0, seen at 0 */
	EXPECT_EQ(c2[NrCounter::roce_clt_expired], 1u);
	NrConnState s;
	EXPECT_FALSE(small.lookup(NrConnKey{conn(0).src_ip, conn(0).dst_ip, conn(0).dqpn}, &s));
	EXPECT_TRUE(small.lookup(NrConnKey{conn(1).src_ip, conn(1).dst_ip, conn(1).dqpn}, &s));
	auto f = pkt(2, 0, 0);
	EXPECT_EQ(nr_process(small, c2, f.data(), static_cast<uint32_t>(f.size()), 30).reason,
		  NrCounter::roce_completed);
}

TEST(NrInt32, SaturatingSumCounted)
{
	NrCounters ctr;
	std::vector<uint8_t> last;
	NrResult res{};
	NrConfig c = config(NR_DTYPE_INT32);
	c.rings[0].msg_len = 1;
	NrTable t1(c);
	for (uint8_t r = 0; r < kRanks; r++) {
		std::vector<uint32_t> v = {static_cast<uint32_t>(-5 - r), 7u * r, 0x40000000u, 0xC0000000u};
		last = frame(conn(r), Msg{3, 1, NR_DTYPE_INT32}, 0, 100 + r, v);
		res = nr_process(t1, ctr, last.data(), static_cast<uint32_t>(last.size()), 1);
	}
	ASSERT_EQ(res.verdict, NrVerdict::kComplete);
	const std::vector<uint32_t> v = values_of(last);
	EXPECT_EQ(static_cast<int32_t>(v[0]), -5 - 6 - 7);
	EXPECT_EQ(static_cast<int32_t>(v[1]), 21);
	EXPECT_EQ(static_cast<int32_t>(v[2]), INT32_MAX);
	EXPECT_EQ(static_cast<int32_t>(v[3]), INT32_MIN);
	EXPECT_EQ(ctr[NrCounter::roce_overflow], 2u);
	EXPECT_EQ(icrc_in(last.data(), last.size()), icrc_reference(last.data(), last.size()));
}

/* Full-MTU packets: the results' ICRC is combined from the headers' CRC and
 * the slot's value CRC; both lengths (first packet, others) checked. */
TEST(NrFullMtu, CombinedIcrcMatchesReference)
{
	NrConfig c = config();
	c.rings[0].msg_len = 2;
	NrTable t(c);
	NrCounters ctr;
	for (uint32_t k = 0; k < 2; k++) {
		const uint32_t n = 256 / 4 - (k == 0 ? 4 : 0);
		std::vector<uint8_t> last;
		NrResult res{};
		for (uint8_t r = 0; r < kRanks; r++) {
			last = frame(conn(r), Msg{0, 2, NR_DTYPE_FLOAT32}, k, 50 + 7 * r + k, fvals(r, 0, k, n));
			res = nr_process(t, ctr, last.data(), static_cast<uint32_t>(last.size()), 1);
		}
		ASSERT_EQ(res.verdict, NrVerdict::kComplete);
		EXPECT_EQ(icrc_in(last.data(), last.size()), icrc_reference(last.data(), last.size()));
		for (uint8_t r = 0; r + 1 < kRanks; r++) {
			std::vector<uint8_t> out(512);
			const uint32_t len = nr_result(t, res, r, out.data(), static_cast<uint32_t>(out.size()));
			ASSERT_EQ(len, last.size());
			EXPECT_EQ(icrc_in(out.data(), len), icrc_reference(out.data(), len)) << "rank " << int(r);
			EXPECT_EQ(ina_load24(out.data() + 51), 50u + 7 * r + k);
		}
	}
}

TEST(NrCheckIcrc, OffTrustsTheArrivingIcrc)
{
	NrConfig c = config();
	c.check_icrc = false;
	NrTable t(c);
	NrCounters ctr;
	auto f = frame(conn(0), Msg{0, kMsgLen, NR_DTYPE_FLOAT32}, 0, 9, fvals(0, 0, 0, 4));
	f[f.size() - 1] ^= 0xFF;
	EXPECT_EQ(nr_process(t, ctr, f.data(), static_cast<uint32_t>(f.size()), 1).reason,
		  NrCounter::roce_aggregated);
	EXPECT_EQ(ctr[NrCounter::roce_icrc_bad], 0u);
}

/* Bad input never crashes the stage or reaches outside the frame: valid
 * packets mutated at random (bytes flipped, truncated), each in a buffer of
 * exactly its length; a kPass leaves the frame as it was. */
TEST(NrRobustness, RandomMutations)
{
	NrTable t(config());
	NrCounters ctr;
	std::mt19937 rng(7);
	uint64_t verdicts[4] = {};
	for (int i = 0; i < 20000; i++) {
		const uint8_t rank = rng() % kRanks;
		const uint32_t k = rng() % kMsgLen, m = rng() % 8;
		std::vector<uint8_t> f = frame(conn(rank, rng() % 2 ? 7 : 9), Msg{m, kMsgLen, NR_DTYPE_FLOAT32}, k,
					       psn(rank, m, k), fvals(rank, m, k, k == 0 ? kElems - 4 : kElems));
		const int flips = rng() % 4;
		for (int j = 0; j < flips; j++)
			f[rng() % f.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
		if (rng() % 4 == 0)
			f.resize(rng() % f.size());
		if (rng() % 8 == 0) /* keep the ICRC right: only the parse sees the damage */
			if (f.size() >= 58)
				roce_icrc_store(f.data(), static_cast<uint32_t>(f.size()));
		std::vector<uint8_t> buf(f);
		const NrResult r = nr_process(t, ctr, buf.data(), static_cast<uint32_t>(buf.size()), i);
		verdicts[static_cast<int>(r.verdict)]++;
		if (r.verdict == NrVerdict::kPass) {
			EXPECT_EQ(buf, f);
		}
	}
	uint64_t total = 0;
	for (uint64_t v : ctr.v)
		total += v;
	EXPECT_GE(total, 20000u); /* every packet counted under some reason */
	EXPECT_GT(verdicts[static_cast<int>(NrVerdict::kDrop)], 0u);
	EXPECT_GT(ctr[NrCounter::roce_icrc_bad], 0u);
	EXPECT_GT(ctr[NrCounter::roce_malformed], 0u);
}
