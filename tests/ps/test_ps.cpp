/* SPDX-License-Identifier: BSD-3-Clause
 * The PS library: completion, dedupe over multi-level contributor sets,
 * collision re-hash hints, ECN/Col, the overflow float path, ACK re-sends,
 * partitioning, the fragment window and bad input. */
#include <gtest/gtest.h>

#include "ina/control_client.h"
#include "ina/hash.h"
#include "ina/ps.h"
#include "ps_test_util.h"

using namespace ina;
using namespace ina_test;

namespace {

constexpr uint32_t kPsIp = 0x0A0000FE;

Endpoint ps_self()
{
	return Endpoint{{2, 0, 0, 0, 0, 0xFE}, kPsIp, INA_UDP_PORT};
}

PsWorker worker(uint32_t i, std::initializer_list<uint8_t> bits)
{
	PsWorker w;
	w.ip = 0x0A000001 + i;
	uint8_t mac[6] = {2, 0, 0, 0, 1, static_cast<uint8_t>(i)};
	memcpy(w.mac, mac, 6);
	uint32_t l = 0;
	for (uint8_t b : bits)
		w.bit[l++] = b;
	return w;
}

/* n workers on one switch (rack scale, levels = 1). */
PsJobConfig flat_job(uint16_t id, uint32_t n, bool multicast = false)
{
	PsJobConfig c;
	c.job = id;
	c.elements = 4;
	c.aggregators = 1000;
	c.window = 64;
	c.levels = 1;
	c.fan_in[0] = static_cast<uint8_t>(n);
	for (uint32_t i = 0; i < n; i++)
		c.workers.push_back(worker(i, {static_cast<uint8_t>(i)}));
	if (multicast) {
		c.has_switch = true;
		c.multicast_ack = true;
		c.switch_ip = 0x0A0000FD;
		uint8_t sm[6] = {2, 0, 0, 0, 0, 0xFD};
		memcpy(c.switch_mac, sm, 6);
	}
	return c;
}

struct Ps {
	ParameterServer ps{ps_self()};
	TxQueue tx{1024};
	uint64_t now = 1000000; /* microseconds; the PS takes nanoseconds */
	explicit Ps(std::initializer_list<PsJobConfig> jobs)
	{
		for (const auto &c : jobs) {
			std::string err;
			EXPECT_TRUE(ps.add_job(c, &err)) << err;
		}
	}
	std::vector<Out> feed(const Pkt &p)
	{
		auto f = build(p);
		ps.handle(f.data(), static_cast<uint32_t>(f.size()), now * 1000, tx);
		return drain(tx);
	}
	const PsJobStats &st(uint16_t job) { return *ps.job_stats(job); }
};

} // namespace

TEST(PsCompletion, FlatJobUnicastAckCarriesExactSums)
{
	Ps t{flat_job(5, 3)};
	EXPECT_TRUE(t.feed(from_worker(5, 10, 0, {1, -2, 3, 2147483000})).empty());
	EXPECT_TRUE(t.feed(from_worker(5, 10, 1, {10, -20, 30, 600})).empty());
	auto acks = t.feed(from_worker(5, 10, 2, {100, -200, 300, 47}));
	ASSERT_EQ(acks.size(), 3u); /* unicast: one per worker */
	for (uint32_t w = 0; w < 3; w++) {
		const Out &a = acks[w];
		EXPECT_EQ(a.dst.ip, 0x0A000001u + w);
		EXPECT_EQ(a.dst.mac[5], w);
		EXPECT_EQ(a.dst.port, INA_UDP_PORT);
		EXPECT_EQ(a.src.ip, kPsIp);
		EXPECT_EQ(a.flags, INA_F_ACK);
		EXPECT_EQ(a.job, 5);
		EXPECT_EQ(a.seq, 10u);
		EXPECT_EQ(a.index, aggregator_index(5, 10, 1000));
		EXPECT_EQ(a.remap, INA_NO_REMAP);
		EXPECT_EQ(a.level, 0); /* finished at the PS */
		EXPECT_EQ(a.levels, 1);
		EXPECT_EQ(a.values, (std::vector<int32_t>{111, -222, 333, 2147483647}));
	}
	EXPECT_EQ(t.st(5).completed, 1u);
	EXPECT_EQ(t.st(5).completed_at_ps, 1u);
	EXPECT_EQ(t.st(5).completed_in_network, 0u);
	EXPECT_EQ(t.st(5).worker_packets, 3u);
}

TEST(PsCompletion, CompleteAggregateIsMulticastOnceAndMarkedInNetwork)
{
	Ps t{flat_job(0x0102, 4, true)};
	Pkt p = from_worker(0x0102, 7, 0, {4, 8, 12, 16});
	p.bitmap[0] = 0xF; /* the switch's complete result */
	p.level = 1;
	auto acks = t.feed(p);
	ASSERT_EQ(acks.size(), 1u);
	EXPECT_EQ(acks[0].dst.ip, (239u << 24) | (18u << 16) | 0x0102u);
	uint8_t mac[6] = {0x01, 0x00, 0x5e, 0x12, 0x01, 0x02};
	EXPECT_EQ(0, memcmp(acks[0].dst.mac, mac, 6));
	EXPECT_EQ(acks[0].level, 1); /* == levels: aggregated in the network */
	EXPECT_EQ(acks[0].values, (std::vector<int32_t>{4, 8, 12, 16}));
	EXPECT_EQ(t.st(0x0102).completed_in_network, 1u);
	EXPECT_EQ(t.st(0x0102).ack_frames, 1u);
}

/* The parameter packet carries the PS's clock in its fan_in bytes, in
 * units of 100 ns (wire.h): the stamp every worker paces A2TP's rounds on. */
TEST(PsCompletion, AckCarriesThePsClock)
{
	Ps t{flat_job(3, 1)};
	t.now = 1234567; /* us */
	auto a = t.feed(from_worker(3, 1, 0, {1, 2, 3, 4}));
	ASSERT_EQ(a.size(), 1u);
	EXPECT_EQ(a[0].ps_clock, 12345670u);
	t.now += 3;
	auto b = t.feed(from_worker(3, 2, 0, {1, 2, 3, 4}));
	ASSERT_EQ(b.size(), 1u);
	EXPECT_EQ(b[0].ps_clock - a[0].ps_clock, 30u);
}

TEST(PsCompletion, ManyFragmentsThroughASmallWindow)
{
	PsJobConfig c = flat_job(9, 2);
	c.window = 16;
	Ps t{c};
	uint64_t acks = 0;
	for (uint32_t seq = 0; seq < 5000; seq++) {
		acks += t.feed(from_worker(9, seq, 1, {int32_t(seq), 1, 2, 3})).size();
		auto a = t.feed(from_worker(9, seq, 0, {1, 1, 1, 1}));
		ASSERT_EQ(a.size(), 2u);
		EXPECT_EQ(a[0].values[0], int32_t(seq) + 1);
		acks += a.size();
	}
	EXPECT_EQ(acks, 10000u);
	EXPECT_EQ(t.st(9).completed, 5000u);
	EXPECT_EQ(t.st(9).evicted_incomplete, 0u);
	/* A packet 16 rounds old lands on a reused slot: stale. */
	t.feed(from_worker(9, 4990 - 16, 0, {1, 1, 1, 1}));
	EXPECT_EQ(t.st(9).stale, 1u);
}

/*
 * Two levels (ATP Figure 9 extended): rack A = workers 0, 1 (level-0 bits 0,
 * 1; level-1 bit 0), rack B = workers 2, 3 (level-0 bits 0, 1; level-1 bit
 * 1), worker 4 attached to the level-1 switch directly (no level-0 bit,
 * level-1 bit 2). fan_in = {2, 3}.
 */
PsJobConfig two_level_job()
{
	PsJobConfig c;
	c.job = 3;
	c.elements = 2;
	c.aggregators = 512;
	c.window = 32;
	c.levels = 2;
	c.fan_in[0] = 2;
	c.fan_in[1] = 3;
	c.workers = {worker(0, {0, 0}), worker(1, {1, 0}), worker(2, {0, 1}), worker(3, {1, 1}),
		     worker(4, {kPsNoBit, 2})};
	return c;
}

Pkt two_level(uint32_t seq, uint8_t level, uint32_t b0, uint32_t b1, std::vector<int32_t> v, uint16_t flags = 0)
{
	Pkt p;
	p.job = 3;
	p.seq = seq;
	p.index = 11;
	p.levels = 2;
	p.level = level;
	p.bitmap[0] = b0;
	p.bitmap[1] = b1;
	p.fan_in[0] = 2;
	p.fan_in[1] = 3;
	p.flags = flags;
	p.values = v;
	return p;
}

TEST(PsDedupe, MultiLevelContributorSets)
{
	Ps t{two_level_job()};
	/* Rack A's complete level-0 result: workers {0, 1}. */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x3, 0x1, {1 + 2, 10 + 20})).empty());
	/* Worker 2's own packet (pushed past a collision). */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x1, 0x2, {4, 40}, INA_F_RESEND | INA_F_COLLISION)).empty());
	/* Rack B's flushed partial {2, 3} overlaps worker 2: dropped whole. */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x3, 0x2, {999, 999}, INA_F_RESEND)).empty());
	EXPECT_EQ(t.st(3).duplicates, 1u);
	/* Rack A again (a copy): overlaps. */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x3, 0x1, {999, 999})).empty());
	EXPECT_EQ(t.st(3).duplicates, 2u);
	/* Worker 3 resends alone, then worker 4 (starts at level 1). */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x2, 0x2, {8, 80}, INA_F_RESEND)).empty());
	auto acks = t.feed(two_level(1, 1, 0xFFFFFFFF, 0x4, {16, 160}));
	ASSERT_EQ(acks.size(), 5u);
	EXPECT_EQ(acks[0].values, (std::vector<int32_t>{31, 310}));
	EXPECT_EQ(acks[0].level, 0);
	EXPECT_EQ(acks[0].levels, 2);
	/* The collision: index 11 re-hashed. */
	EXPECT_EQ(acks[0].index, 11u);
	EXPECT_EQ(acks[0].remap, aggregator_rehash(3, 11, 512));
	EXPECT_EQ(t.st(3).collisions, 1u);
	EXPECT_EQ(t.st(3).remaps, 1u);
	EXPECT_EQ(t.st(3).partial_packets, 3u); /* {0,1}, {2,3}, {0,1} */
	EXPECT_EQ(t.st(3).completed_at_ps, 1u);

	/* The top switch's complete result: bitmap[1] = all three children. */
	acks = t.feed(two_level(2, 2, 0xFFFFFFFF, 0x7, {5, 6}));
	ASSERT_EQ(acks.size(), 5u);
	EXPECT_EQ(acks[0].level, 2);
	EXPECT_EQ(acks[0].remap, INA_NO_REMAP);
	EXPECT_EQ(t.st(3).completed_in_network, 1u);

	/* A level-1 result holding racks A and B but not worker 4. */
	EXPECT_TRUE(t.feed(two_level(3, 2, 0xFFFFFFFF, 0x3, {1, 1})).empty());
	/* Rack A's partial of worker 0 only: inside what is held. */
	EXPECT_TRUE(t.feed(two_level(3, 1, 0x1, 0x1, {1, 1})).empty());
	EXPECT_EQ(t.st(3).duplicates, 3u);
	EXPECT_EQ(t.feed(two_level(3, 1, 0xFFFFFFFF, 0x4, {1, 1})).size(), 5u);
}

TEST(PsDedupe, PartialContainingEverythingHeldReplacesIt)
{
	Ps t{two_level_job()};
	/* Worker 2 alone, pushed past a collision. */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x1, 0x2, {4, 40}, INA_F_RESEND | INA_F_COLLISION)).empty());
	/* Rack B's flushed partial {2, 3}: worker 2's retransmission merged
	 * into the aggregator that worker 3 held. It contains all the slot
	 * has, so it replaces it (no double count of worker 2). */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x3, 0x2, {4 + 8, 40 + 80}, INA_F_RESEND)).empty());
	EXPECT_EQ(t.st(3).superseded, 1u);
	EXPECT_EQ(t.st(3).duplicates, 0u);
	/* The same set again is a duplicate. */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x3, 0x2, {999, 999}, INA_F_RESEND)).empty());
	EXPECT_EQ(t.st(3).duplicates, 1u);
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x3, 0x1, {1 + 2, 10 + 20})).empty());
	auto acks = t.feed(two_level(1, 1, 0xFFFFFFFF, 0x4, {16, 160}));
	ASSERT_EQ(acks.size(), 5u);
	EXPECT_EQ(acks[0].values, (std::vector<int32_t>{31, 310}));
}

TEST(PsDedupe, PacketWithNoWorkerIsCountedNotAggregated)
{
	Ps t{two_level_job()};
	/* Level-1 bit 3 belongs to nobody. */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0xFFFFFFFF, 0x8, {1, 1})).empty());
	EXPECT_EQ(t.st(3).bad_bitmap, 1u);
	/* Worker 4 has no level-0 bit: bitmap[0] = 0x1 with bitmap[1] = 0x4
	 * still names it (255 matches any bitmap at that level). */
	EXPECT_TRUE(t.feed(two_level(1, 1, 0x1, 0x4, {1, 1})).empty());
	EXPECT_EQ(t.st(3).bad_bitmap, 1u);
	EXPECT_EQ(t.st(3).worker_packets, 1u);
}

TEST(PsFlags, EcnAndColReachTheAck)
{
	Ps t{flat_job(4, 2)};
	Pkt a = from_worker(4, 1, 0, {1, 1, 1, 1});
	a.tos = 3; /* IP CE */
	Pkt b = from_worker(4, 1, 1, {1, 1, 1, 1});
	b.flags = INA_F_COL;
	t.feed(a);
	auto acks = t.feed(b);
	ASSERT_EQ(acks.size(), 2u);
	EXPECT_EQ(acks[0].flags, INA_F_ACK | INA_F_ECN | INA_F_COL);
	EXPECT_EQ(t.st(4).ecn, 1u);
	/* No flags on the next fragment. */
	t.feed(from_worker(4, 2, 0, {1, 1, 1, 1}));
	acks = t.feed(from_worker(4, 2, 1, {1, 1, 1, 1}));
	EXPECT_EQ(acks[0].flags, INA_F_ACK);
}

TEST(PsCollision, RehashHintForEveryCollidedIndex)
{
	PsJobConfig c = flat_job(6, 1);
	c.aggregators = 4096;
	Ps t{c};
	for (uint32_t seq = 0; seq < 200; seq++) {
		Pkt p = from_worker(6, seq, 0, {1, 2, 3, 4});
		p.index = aggregator_index(6, seq, 4096);
		p.flags = INA_F_RESEND | INA_F_COLLISION;
		p.level = 1;
		auto acks = t.feed(p);
		ASSERT_EQ(acks.size(), 1u);
		EXPECT_EQ(acks[0].index, p.index);
		EXPECT_EQ(acks[0].remap, aggregator_rehash(6, p.index, 4096));
		EXPECT_LT(acks[0].remap, 4096u);
	}
	EXPECT_EQ(t.st(6).remaps, 200u);
}

TEST(PsOverflow, SwitchOverflowAsksEveryWorkerForFloats)
{
	PsJobConfig c = flat_job(8, 3, true);
	Ps t{c};
	Pkt p = from_worker(8, 5, 0, {2147483647, 0, 0, 0});
	p.bitmap[0] = 0x3; /* partial of workers 0, 1 that saturated */
	p.flags = INA_F_OVERFLOW;
	p.level = 1;
	auto req = t.feed(p);
	ASSERT_EQ(req.size(), 3u);
	for (uint32_t w = 0; w < 3; w++) {
		EXPECT_EQ(req[w].flags, INA_F_OVERFLOW | INA_F_RESEND | INA_F_BYPASS);
		EXPECT_EQ(req[w].dst.ip, 0x0A000001u + w);
		EXPECT_EQ(req[w].dst.mac[5], 0xFD); /* through the switch */
		EXPECT_EQ(req[w].elems, 0);
		EXPECT_EQ(req[w].seq, 5u);
		EXPECT_EQ(req[w].index, p.index);
		EXPECT_EQ(req[w].level, 1); /* = levels: switches forward it */
		EXPECT_EQ(req[w].bitmap[0], 1u << w);
	}
	EXPECT_EQ(t.st(8).overflows, 1u);
	EXPECT_EQ(t.st(8).float_requests, 3u);

	/* int32 packets now are ignored; a re-request only after the holdoff. */
	EXPECT_TRUE(t.feed(from_worker(8, 5, 2, {1, 1, 1, 1})).empty());
	EXPECT_EQ(t.st(8).int_after_overflow, 1u);
	t.now += c.float_holdoff_us;
	EXPECT_EQ(t.feed(from_worker(8, 5, 2, {1, 1, 1, 1})).size(), 3u);

	/* Float answers: worker 1 twice (duplicate), then the others. */
	auto fl = [](uint32_t w, std::vector<float> v) {
		Pkt f = from_worker(8, 5, w, {});
		f.flags = INA_F_FLOAT | INA_F_RESEND | INA_F_BYPASS;
		f.floats = v;
		return f;
	};
	EXPECT_TRUE(t.feed(fl(1, {1.5f, -2.0f, 1e30f, 0.25f})).empty());
	EXPECT_TRUE(t.feed(fl(1, {1.5f, -2.0f, 1e30f, 0.25f})).empty());
	EXPECT_EQ(t.st(8).duplicates, 1u);
	EXPECT_TRUE(t.feed(fl(0, {20.0f, 0.5f, 1e30f, 0.25f})).empty());
	auto acks = t.feed(fl(2, {-0.5f, 0.0f, -1e30f, 0.5f}));
	ASSERT_EQ(acks.size(), 1u);
	EXPECT_EQ(acks[0].flags, INA_F_ACK | INA_F_OVERFLOW | INA_F_FLOAT);
	EXPECT_EQ(acks[0].floats, (std::vector<float>{21.0f, -1.5f, 1e30f, 1.0f}));
	EXPECT_EQ(t.st(8).float_packets, 3u);
	EXPECT_EQ(t.st(8).completed, 1u);

	/* A lost float ACK: a resend gets the same float parameter packet. */
	t.now += 1000;
	acks = t.feed(fl(2, {-0.5f, 0.0f, -1e30f, 0.5f}));
	ASSERT_EQ(acks.size(), 1u);
	EXPECT_EQ(acks[0].flags, INA_F_ACK | INA_F_OVERFLOW | INA_F_FLOAT);
	EXPECT_EQ(acks[0].floats[0], 21.0f);
}

/* A2TP: worker 0 sent seq 5 straight to the PS (BYPASS) while workers 1
 * and 2 sent theirs to the switch, where they wait for worker 0 in an
 * aggregator that never fills. Past the hold-off the PS asks workers 1 and
 * 2, whose copies it misses, for them again in int32 (RESEND | BYPASS, no
 * OVERFLOW); it asks again each hold-off until the fragment completes. The
 * answer that flushes the switch's partial sum completes it exactly. */
TEST(PsSplit, BypassedFragmentSplitWithTheSwitchIsAskedForAfterTheHoldoff)
{
	PsJobConfig c = flat_job(8, 3, true);
	Ps t{c};
	Pkt p = from_worker(8, 5, 0, {7, 7, 7, 7});
	p.flags = INA_F_BYPASS;
	EXPECT_TRUE(t.feed(p).empty());
	t.now += c.bypass_holdoff_us - 1;
	t.ps.tick(t.now * 1000, t.tx);
	EXPECT_TRUE(drain(t.tx).empty());
	t.now += 1;
	t.ps.tick(t.now * 1000, t.tx);
	auto req = drain(t.tx);
	ASSERT_EQ(req.size(), 2u);
	for (uint32_t i = 0; i < 2; i++) {
		EXPECT_EQ(req[i].flags, INA_F_RESEND | INA_F_BYPASS);
		EXPECT_EQ(req[i].dst.ip, 0x0A000002u + i);
		EXPECT_EQ(req[i].seq, 5u);
	}
	EXPECT_EQ(t.st(8).split_recoveries, 1u);
	EXPECT_EQ(t.st(8).resend_requests, 2u);
	EXPECT_EQ(t.st(8).float_requests, 0u);
	/* Not before another hold-off; then again, to whoever is missing. */
	t.now += c.bypass_holdoff_us / 2;
	t.ps.tick(t.now * 1000, t.tx);
	EXPECT_TRUE(drain(t.tx).empty());
	t.now += c.bypass_holdoff_us;
	t.ps.tick(t.now * 1000, t.tx);
	EXPECT_EQ(drain(t.tx).size(), 2u);
	EXPECT_EQ(t.st(8).split_recoveries, 1u); /* one fragment */
	EXPECT_EQ(t.st(8).resend_requests, 4u);
	/* Worker 1's resend flushed the aggregator: workers 1 and 2's sum. */
	Pkt f = from_worker(8, 5, 1, {1, 2, 3, 4});
	f.bitmap[0] = 0x6;
	f.flags = INA_F_RESEND;
	auto acks = t.feed(f);
	ASSERT_EQ(acks.size(), 1u);
	EXPECT_EQ(acks[0].values, (std::vector<int32_t>{8, 9, 10, 11}));
	EXPECT_EQ(t.st(8).completed, 1u);
	EXPECT_EQ(t.st(8).overflows, 0u);
	/* Complete: no more requests. */
	t.now += 10 * c.bypass_holdoff_us;
	t.ps.tick(t.now * 1000, t.tx);
	EXPECT_TRUE(drain(t.tx).empty());
}

/* Every worker bypassed seq 6 and its copies arrive within the hold-off:
 * the PS completes it and asks for nothing. A fragment completed later
 * than the hold-off from the time it took to gather widens the hold-off. */
TEST(PsSplit, FragmentsGatheredInTimeAreNotAskedFor)
{
	PsJobConfig c = flat_job(8, 3, true);
	Ps t{c};
	for (uint32_t w = 0; w < 3; w++) {
		Pkt p = from_worker(8, 6, w, {1, 1, 1, 1});
		p.flags = INA_F_BYPASS;
		auto out = t.feed(p);
		EXPECT_EQ(out.size(), w == 2 ? 1u : 0u);
		t.now += c.bypass_holdoff_us / 3;
		t.ps.tick(t.now * 1000, t.tx);
		EXPECT_TRUE(drain(t.tx).empty());
	}
	/* Fragments bypassed by every worker that take 3 hold-offs to gather
	 * at the PS: the hold-off becomes twice that. (Their split_wait entries
	 * are answered by the time the hold-off has grown.) Fragments of
	 * other kinds do not count. */
	for (uint32_t seq = 10; seq < 40; seq++) {
		for (uint32_t w = 0; w < 3; w++) {
			Pkt p = from_worker(8, seq, w, {1, 1, 1, 1});
			p.flags = INA_F_BYPASS;
			t.feed(p);
			if (seq < 14) {
				Pkt q = from_worker(8, seq + 100, w, {1, 1, 1, 1});
				t.feed(q);
			}
			if (w < 2)
				t.now += 3 * c.bypass_holdoff_us / 2;
		}
	}
	Pkt p = from_worker(8, 50, 0, {1, 1, 1, 1});
	p.flags = INA_F_BYPASS;
	t.feed(p);
	t.now += 4 * c.bypass_holdoff_us;
	t.ps.tick(t.now * 1000, t.tx);
	EXPECT_TRUE(drain(t.tx).empty());
	t.now += 3 * c.bypass_holdoff_us;
	t.ps.tick(t.now * 1000, t.tx);
	EXPECT_EQ(drain(t.tx).size(), 2u); /* workers 1 and 2 */
	EXPECT_EQ(t.st(8).split_recoveries, 1u);
}

/* More split fragments within one hold-off than the window has slots:
 * the queue holds one per slot, older fragments pushed out of the window
 * are dropped from it, and nothing is asked twice or for a wrong seq. */
TEST(PsSplit, QueueNeverOverrunsTheWindow)
{
	PsJobConfig c = flat_job(8, 3, true);
	c.window = 16;
	Ps t{c};
	for (uint32_t seq = 0; seq < 40; seq++) {
		Pkt p = from_worker(8, seq, 0, {1, 1, 1, 1});
		p.flags = INA_F_BYPASS;
		t.feed(p);
	}
	EXPECT_EQ(t.st(8).evicted_incomplete, 24u);
	t.now += c.bypass_holdoff_us;
	t.ps.tick(t.now * 1000, t.tx);
	auto req = drain(t.tx);
	ASSERT_EQ(req.size(), 2u * 16);
	for (size_t i = 0; i < req.size(); i++)
		EXPECT_EQ(req[i].seq, 24u + i / 2);
	EXPECT_EQ(t.st(8).split_recoveries, 16u);
}

/* bypass_holdoff_us = 0 turns it off. */
TEST(PsSplit, HoldoffZeroNeverAsks)
{
	PsJobConfig c = flat_job(8, 3, true);
	c.bypass_holdoff_us = 0;
	Ps t{c};
	Pkt p = from_worker(8, 5, 0, {7, 7, 7, 7});
	p.flags = INA_F_BYPASS;
	t.feed(p);
	t.now += 1000000;
	t.ps.tick(t.now * 1000, t.tx);
	EXPECT_TRUE(drain(t.tx).empty());
	EXPECT_EQ(t.st(8).split_recoveries, 0u);
}

TEST(PsOverflow, PsOwnSaturationTakesTheFloatPath)
{
	Ps t{flat_job(2, 2)};
	EXPECT_TRUE(t.feed(from_worker(2, 0, 0, {2000000000, 1, 1, 1})).empty());
	auto req = t.feed(from_worker(2, 0, 1, {2000000000, 1, 1, 1}));
	ASSERT_EQ(req.size(), 2u);
	EXPECT_EQ(req[0].flags, INA_F_OVERFLOW | INA_F_RESEND | INA_F_BYPASS);
	EXPECT_EQ(req[0].dst.mac[5], 0); /* no switch: straight to the worker */
	EXPECT_EQ(t.st(2).ps_overflows, 1u);
	EXPECT_EQ(t.st(2).overflows, 1u);
}

TEST(PsOverflow, FloatPoolExhaustionIsCounted)
{
	PsJobConfig c = flat_job(2, 2);
	c.float_slots = 1;
	Ps t{c};
	for (uint32_t seq = 0; seq < 2; seq++) {
		Pkt p = from_worker(2, seq, 0, {1, 1, 1, 1});
		p.flags = INA_F_OVERFLOW;
		t.feed(p);
	}
	EXPECT_EQ(t.st(2).overflows, 1u);
	EXPECT_EQ(t.st(2).float_pool_full, 1u);
}

TEST(PsRetransmit, LostAckIsSentAgain)
{
	Ps t{flat_job(1, 2)};
	t.feed(from_worker(1, 3, 0, {1, 2, 3, 4}));
	ASSERT_EQ(t.feed(from_worker(1, 3, 1, {1, 2, 3, 4})).size(), 2u);
	/* Worker 1 lost it and resends: unicast back to worker 1 only. */
	Pkt r = from_worker(1, 3, 1, {1, 2, 3, 4});
	r.flags = INA_F_RESEND;
	auto acks = t.feed(r);
	ASSERT_EQ(acks.size(), 1u);
	EXPECT_EQ(acks[0].dst.ip, 0x0A000002u);
	EXPECT_EQ(acks[0].values, (std::vector<int32_t>{2, 4, 6, 8}));
	EXPECT_EQ(t.st(1).ack_resent, 1u);
	EXPECT_EQ(t.st(1).after_done, 1u);
	EXPECT_EQ(t.st(1).retransmits, 1u);
}

TEST(PsRetransmit, MulticastResendsAreHeldOff)
{
	PsJobConfig c = flat_job(1, 3, true);
	c.ack_holdoff_us = 100;
	Ps t{c};
	Pkt full = from_worker(1, 0, 0, {1, 1, 1, 1});
	full.bitmap[0] = 0x7;
	ASSERT_EQ(t.feed(full).size(), 1u);
	t.now += 50;
	for (uint32_t w = 0; w < 3; w++) {
		Pkt r = from_worker(1, 0, w, {1, 1, 1, 1});
		r.flags = INA_F_RESEND;
		EXPECT_TRUE(t.feed(r).empty());
	}
	t.now += 60;
	Pkt r = from_worker(1, 0, 0, {1, 1, 1, 1});
	r.flags = INA_F_RESEND;
	EXPECT_EQ(t.feed(r).size(), 1u);
	EXPECT_EQ(t.st(1).ack_resent, 1u);
	EXPECT_EQ(t.st(1).after_done, 4u);
}

TEST(PsPartition, EachPsOwnsItsSequenceNumbers)
{
	PsJobConfig c0 = flat_job(7, 1);
	c0.ps_count = 3;
	c0.ps_index = 0;
	PsJobConfig c2 = c0;
	c2.ps_index = 2;
	Ps p0{c0};
	Ps p2{c2};
	uint32_t acked0 = 0, acked2 = 0;
	for (uint32_t seq = 0; seq < 300; seq++) {
		acked0 += p0.feed(from_worker(7, seq, 0, {1, 1, 1, 1})).size();
		acked2 += p2.feed(from_worker(7, seq, 0, {1, 1, 1, 1})).size();
	}
	EXPECT_EQ(acked0, 100u);
	EXPECT_EQ(acked2, 100u);
	EXPECT_EQ(p0.st(7).not_owned, 200u);
	EXPECT_EQ(p2.st(7).not_owned, 200u);
	/* window 64 slots cover 64 x 3 sequence numbers: nothing evicted. */
	EXPECT_EQ(p0.st(7).evicted_incomplete, 0u);
}

TEST(PsWindow, UnfinishedFragmentPushedOutIsCounted)
{
	PsJobConfig c = flat_job(7, 2);
	c.window = 4;
	Ps t{c};
	t.feed(from_worker(7, 1, 0, {1, 1, 1, 1}));       /* incomplete */
	t.feed(from_worker(7, 5, 0, {1, 1, 1, 1}));       /* same slot, newer */
	EXPECT_EQ(t.st(7).evicted_incomplete, 1u);
	EXPECT_EQ(t.feed(from_worker(7, 5, 1, {1, 1, 1, 1})).size(), 2u);
	t.feed(from_worker(7, 1, 1, {1, 1, 1, 1}));       /* older: stale */
	EXPECT_EQ(t.st(7).stale, 1u);
}

TEST(PsInput, BadPacketsAreCountedByReason)
{
	Ps t{flat_job(1, 2)};
	auto f = build(from_worker(1, 0, 0, {1, 2, 3, 4}));
	/* Too short for the headers. */
	t.ps.handle(f.data(), 30, t.now * 1000, t.tx);
	EXPECT_EQ(t.ps.stats().not_ina, 1u);
	/* Wrong version. */
	InaHeader h;
	decode(f.data() + INA_HDR_OFFSET, &h);
	auto v = f;
	InaHeader hv = h;
	hv.version = 9;
	encode(hv, v.data() + INA_HDR_OFFSET);
	t.ps.handle(v.data(), uint32_t(v.size()), t.now * 1000, t.tx);
	EXPECT_EQ(t.ps.stats().bad_version, 1u);
	/* elem_count not matching the UDP length. */
	auto l = f;
	InaHeader hl = h;
	hl.elem_count = 3;
	encode(hl, l.data() + INA_HDR_OFFSET);
	t.ps.handle(l.data(), uint32_t(l.size()), t.now * 1000, t.tx);
	EXPECT_EQ(t.ps.stats().bad_length, 1u);
	/* Unknown job. */
	t.feed(from_worker(77, 0, 0, {1, 2, 3, 4}));
	EXPECT_EQ(t.ps.stats().unknown_job, 1u);
	/* More elements than the job's. */
	t.feed(from_worker(1, 0, 0, {1, 2, 3, 4, 5}));
	EXPECT_EQ(t.st(1).bad_elements, 1u);
	/* Levels differing from the job's. */
	Pkt p = from_worker(1, 0, 0, {1, 2, 3, 4});
	p.levels = 2;
	t.feed(p);
	EXPECT_EQ(t.st(1).bad_levels, 1u);
	/* A parameter packet sent to the PS. */
	p = from_worker(1, 0, 0, {1, 2, 3, 4});
	p.flags = INA_F_ACK;
	t.feed(p);
	EXPECT_EQ(t.st(1).unexpected_ack, 1u);
	/* Element count changing within a fragment. */
	t.feed(from_worker(1, 0, 0, {1, 2, 3, 4}));
	t.feed(from_worker(1, 0, 1, {1, 2}));
	EXPECT_EQ(t.st(1).bad_elements, 2u);
	EXPECT_EQ(t.st(1).completed, 0u);
	EXPECT_EQ(t.tx.size(), 0u);
}

TEST(PsConfig, BadJobsAreRejectedWithOneLine)
{
	ParameterServer ps(ps_self());
	std::string err;
	PsJobConfig c = flat_job(1, 2);
	c.workers[1].bit[0] = 2; /* not below fan_in 2 */
	EXPECT_FALSE(ps.add_job(c, &err));
	EXPECT_EQ(err, "job 1: worker 1 bit 2 at level 0 is not below fan_in 2");
	c = flat_job(1, 2);
	c.workers[1].bit[0] = 0;
	EXPECT_FALSE(ps.add_job(c, &err));
	EXPECT_NE(err.find("shares its path"), std::string::npos) << err;
	c = flat_job(1, 2);
	c.multicast_ack = true;
	EXPECT_FALSE(ps.add_job(c, &err));
	EXPECT_EQ(err, "job 1: multicast parameter packets need a switch");
	c = flat_job(1, 2);
	c.window = 100;
	EXPECT_FALSE(ps.add_job(c, &err));
	EXPECT_NE(err.find("power of two"), std::string::npos);
	c = flat_job(1, 2);
	ASSERT_TRUE(ps.add_job(c, &err)) << err;
	EXPECT_FALSE(ps.add_job(c, &err));
	EXPECT_EQ(err, "job 1: already served by this PS");
	EXPECT_TRUE(ps.add_job(flat_job(2, 3), &err)) << err;
	EXPECT_EQ(ps.jobs(), (std::vector<uint16_t>{1, 2}));
}

TEST(PsJobs, SeveralJobsAtOnceStayApart)
{
	Ps t{flat_job(1, 2), flat_job(2, 2)};
	t.feed(from_worker(1, 0, 0, {1, 1, 1, 1}));
	t.feed(from_worker(2, 0, 0, {5, 5, 5, 5}));
	auto a1 = t.feed(from_worker(1, 0, 1, {1, 1, 1, 1}));
	auto a2 = t.feed(from_worker(2, 0, 1, {5, 5, 5, 5}));
	ASSERT_EQ(a1.size(), 2u);
	ASSERT_EQ(a2.size(), 2u);
	EXPECT_EQ(a1[0].values[0], 2);
	EXPECT_EQ(a2[0].values[0], 10);
	EXPECT_EQ(a2[0].job, 2);
}

TEST(PsControl, RegistrationFrameLayout)
{
	PsJobConfig c = two_level_job();
	c.has_switch = true;
	c.switch_ip = 0x0A0000FD;
	uint8_t sm[6] = {2, 0, 0, 0, 0, 0xFD};
	memcpy(c.switch_mac, sm, 6);
	uint8_t buf[2048];
	uint32_t len = build_ctrl_request(c, ps_self(), false, 77, buf, sizeof(buf));
	ASSERT_EQ(len, INA_L2L3L4_LEN + INA_HDR_LEN + 20 + 5 * 16 + 40);
	Endpoint s, d;
	uint32_t plen;
	ASSERT_TRUE(parse_frame_headers(buf, len, &s, &d, &plen));
	EXPECT_EQ(d.ip, 0x0A0000FDu);
	EXPECT_EQ(d.mac[5], 0xFD);
	EXPECT_EQ(d.port, INA_UDP_PORT);
	const uint8_t *h = buf + INA_HDR_OFFSET;
	EXPECT_EQ(h[0], INA_VERSION);
	EXPECT_EQ(h[1], INA_TYPE_CONTROL);
	EXPECT_EQ(ina_load16(h + offsetof(ina_hdr, job_id)), 3);
	EXPECT_EQ(ina_load16(h + offsetof(ina_hdr, elem_count)), 0);
	const uint8_t *ch = h + INA_HDR_LEN;
	EXPECT_EQ(ch[0], INA_CTRL_REGISTER);
	EXPECT_EQ(ch[1], 5);
	EXPECT_EQ(ch[2], 2);
	EXPECT_EQ(ina_load32(ch + 4), kPsIp);
	EXPECT_EQ(ch[offsetof(ina_ctrl_hdr, fan_in) + 0], 2);
	EXPECT_EQ(ch[offsetof(ina_ctrl_hdr, fan_in) + 1], 3);
	const uint8_t *w4 = ch + 20 + 4 * 16;
	EXPECT_EQ(ina_load32(w4), 0x0A000005u);
	EXPECT_EQ(w4[offsetof(ina_ctrl_worker, bit) + 0], 0xFF);
	EXPECT_EQ(w4[offsetof(ina_ctrl_worker, bit) + 1], 2);
	EXPECT_EQ(w4[offsetof(ina_ctrl_worker, bit) + 2], 0xFF);
	EXPECT_EQ(ina_load64(ch + 20 + 5 * 16), 77u) << "the counter in the trailer";
	len = build_ctrl_request(c, ps_self(), true, 78, buf, sizeof(buf));
	EXPECT_EQ(buf[INA_HDR_OFFSET + INA_HDR_LEN], INA_CTRL_UNREGISTER);
	EXPECT_EQ(build_ctrl_request(c, ps_self(), false, 79, buf, 50), 0u);
}
