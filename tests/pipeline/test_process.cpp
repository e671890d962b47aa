/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One test per branch of the switch program (ATP Figures 7 and 17, A2TP's
 * Col bit, GC, saturation, N levels, GOAT, filters, malformed input). The
 * conformance vectors cover the same ground as whole scenarios; these tests
 * pin each branch down on its own, with the counter it bumps.
 */
#include <gtest/gtest.h>

#include <climits>

#include "test_util.h"

using inatest::Frame;
using inatest::Switch;
using ina::Counter;
using ina::Verdict;

namespace {

TEST(Process, ClaimCopiesValuesAndBitmap)
{
	Switch sw;
	auto g = inatest::gradient(7, 100, 5, 0x4, 3, 62, 9);
	Frame out;
	ina::Result r = sw.run(g, 42, &out);
	EXPECT_EQ(r.verdict, Verdict::kDrop);
	EXPECT_EQ(r.reason, Counter::aggregated);
	EXPECT_EQ(sw.count(Counter::claimed), 1u);
	EXPECT_EQ(sw.count(Counter::aggregated), 1u);
	ina::AggregatorState s = sw.agg(5);
	ASSERT_TRUE(s.occupied);
	EXPECT_EQ(s.job, 7);
	EXPECT_EQ(s.seq, 100u);
	EXPECT_EQ(s.bitmap, 0x4u);
	EXPECT_EQ(s.count, 1u);
	EXPECT_EQ(s.timestamp, 42u);
	for (int i = 0; i < 62; i++)
		EXPECT_EQ(s.value[i], 9);
	EXPECT_EQ(sw.table->occupied(), 1u);
	EXPECT_EQ(out, inavec::build_frame(g)); /* a dropped contribution is not rewritten */
}

TEST(Process, CompletionWritesResultAndKeepsAggregator)
{
	Switch sw;
	sw.run(inatest::gradient(7, 100, 5, 0x1, 2, 62, 3));
	Frame out;
	ina::Result r = sw.run(inatest::gradient(7, 100, 5, 0x2, 2, 62, 4), 2, &out);
	EXPECT_EQ(r.verdict, Verdict::kDownstream);
	EXPECT_EQ(r.reason, Counter::completed);
	EXPECT_EQ(inatest::level_of(out), 1);
	EXPECT_EQ(inatest::bitmap_of(out, 0), 0x3u);
	for (int i = 0; i < 62; i++)
		EXPECT_EQ(inatest::value_of(out, i), 7);
	EXPECT_TRUE(sw.agg(5).occupied);
	EXPECT_EQ(sw.count(Counter::completed), 1u);
	EXPECT_EQ(sw.count(Counter::aggregated), 2u);
}

TEST(Process, DuplicateDroppedKeepsEcn)
{
	Switch sw;
	sw.run(inatest::gradient(7, 100, 5, 0x1, 3, 62, 3));
	auto dup = inatest::gradient(7, 100, 5, 0x1, 3, 62, 100);
	dup.flags = INA_F_ECN;
	ina::Result r = sw.run(dup);
	EXPECT_EQ(r.reason, Counter::duplicate);
	EXPECT_EQ(r.verdict, Verdict::kDrop);
	ina::AggregatorState s = sw.agg(5);
	EXPECT_TRUE(s.ecn);
	EXPECT_EQ(s.count, 1u);
	EXPECT_EQ(s.value[0], 3); /* not added */
}

TEST(Process, CollisionForwardsAndSetsCol)
{
	Switch sw;
	sw.run(inatest::gradient(9, 42, 5, 0x1, 2));
	Frame out;
	ina::Result r = sw.run(inatest::gradient(7, 100, 5, 0x2, 2, 62, 8), 1, &out);
	EXPECT_EQ(r.verdict, Verdict::kDownstream);
	EXPECT_EQ(r.reason, Counter::collision);
	EXPECT_EQ(inatest::flags_of(out), INA_F_RESEND | INA_F_COLLISION);
	EXPECT_EQ(inatest::level_of(out), 1);
	EXPECT_EQ(inatest::bitmap_of(out, 0), 0x2u);
	EXPECT_EQ(inatest::value_of(out, 0), 8);
	EXPECT_TRUE(sw.agg(5).col);
	EXPECT_EQ(sw.agg(5).job, 9);
	/* The holder's result carries COL (A2TP §4.3.1). */
	ina::Result done = sw.run(inatest::gradient(9, 42, 5, 0x2, 2), 1, &out);
	EXPECT_EQ(done.reason, Counter::completed);
	EXPECT_TRUE(inatest::flags_of(out) & INA_F_COL);
}

TEST(Process, SaturationSetsOverflow)
{
	Switch sw;
	sw.run(inatest::gradient(7, 100, 5, 0x1, 2, 62, INT32_MAX));
	Frame out;
	sw.run(inatest::gradient(7, 100, 5, 0x2, 2, 62, 1), 1, &out);
	EXPECT_TRUE(inatest::flags_of(out) & INA_F_OVERFLOW);
	EXPECT_EQ(inatest::value_of(out, 61), INT32_MAX);
	EXPECT_EQ(sw.count(Counter::overflow), 1u);
	EXPECT_TRUE(sw.agg(5).overflow);

	Switch neg;
	neg.run(inatest::gradient(7, 100, 5, 0x1, 2, 62, INT32_MIN));
	neg.run(inatest::gradient(7, 100, 5, 0x2, 2, 62, -1), 1, &out);
	EXPECT_EQ(inatest::value_of(out, 0), INT32_MIN);
	EXPECT_TRUE(inatest::flags_of(out) & INA_F_OVERFLOW);
}

/* ATP §3.8: once an element has saturated, later adds leave it there and the
 * overflow flag stays set, on every SIMD path, with clipped elements in the
 * first vector, a middle one and the tail (62 = 3 x 16 + 14 = 7 x 8 + 6). */
TEST(Process, SaturatedElementsHoldUntilFreed)
{
	const std::vector<size_t> clipped = {0, 17, 61};
	for (ina::SimdLevel l : {ina::SimdLevel::kScalar, ina::SimdLevel::kAvx2, ina::SimdLevel::kAvx512}) {
		if (l > ina::simd_best())
			continue;
		SCOPED_TRACE(ina::simd_name(l));
		Switch sw(Switch::default_config(), l);
		auto a = inatest::gradient(7, 100, 5, 0x1, 4, 62, 5);
		auto b = inatest::gradient(7, 100, 5, 0x2, 4, 62, 7);
		a.values[0] = a.values[17] = 2000000000;
		b.values[0] = b.values[17] = 2000000000;
		a.values[61] = b.values[61] = -2000000000;
		sw.run(a);
		sw.run(b);
		EXPECT_EQ(sw.count(Counter::overflow), 1u);
		/* A third worker pulls every element the other way: the saturated
		 * ones must not move, the others add as usual. */
		auto c = inatest::gradient(7, 100, 5, 0x4, 4, 62, -3);
		c.values[0] = c.values[17] = -2000000000;
		c.values[61] = 2000000000;
		sw.run(c);
		ina::AggregatorState s = sw.agg(5);
		EXPECT_TRUE(s.overflow);
		EXPECT_EQ(s.value[0], INT32_MAX);
		EXPECT_EQ(s.value[17], INT32_MAX);
		EXPECT_EQ(s.value[61], INT32_MIN);
		EXPECT_EQ(s.value[1], 9);
		EXPECT_EQ(s.value[60], 9);
		/* The held add clipped again: counted, flag still set. */
		EXPECT_EQ(sw.count(Counter::overflow), 2u);

		Frame out;
		auto d = inatest::gradient(7, 100, 5, 0x8, 4, 62, 1);
		d.values[0] = d.values[17] = d.values[61] = 0;
		EXPECT_EQ(sw.run(d, 1, &out).reason, Counter::completed);
		EXPECT_TRUE(inatest::flags_of(out) & INA_F_OVERFLOW);
		for (size_t e : clipped)
			EXPECT_EQ(inatest::value_of(out, e), e == 61 ? INT32_MIN : INT32_MAX) << e;
		EXPECT_EQ(inatest::value_of(out, 30), 10);
		/* An add of 0 does not move a saturated element; it leaves it at
		 * the limit, so it counts as a clip too. */
		EXPECT_EQ(sw.count(Counter::overflow), 3u);

		/* The PS's parameter packet frees the slot; the next fragment to
		 * claim it starts from its own values, not from the limit. */
		sw.run(inatest::parameter(7, 100, 5));
		sw.run(inatest::gradient(7, 101, 5, 0x1, 2, 62, -4));
		sw.run(inatest::gradient(7, 101, 5, 0x2, 2, 62, 6), 1, &out);
		EXPECT_FALSE(inatest::flags_of(out) & INA_F_OVERFLOW);
		for (size_t e : clipped)
			EXPECT_EQ(inatest::value_of(out, e), 2) << e;
	}
}

/* A sum that lands exactly on a limit cannot be told from a clipped one: it
 * counts as a clip when it lands there (the test looks at the word the add
 * leaves), it holds, and an add that would move it sets OVERFLOW again, so
 * that the PS recomputes in floating point rather than take a wrong sum. */
TEST(Process, ElementExactlyAtLimitHoldsAndFlags)
{
	Switch sw;
	auto a = inatest::gradient(7, 100, 5, 0x1, 3, 62, 0);
	a.values[3] = INT32_MAX - 1;
	a.values[4] = INT32_MIN + 1;
	auto b = inatest::gradient(7, 100, 5, 0x2, 3, 62, 0);
	b.values[3] = 1;
	b.values[4] = -1;
	sw.run(a);
	sw.run(b);
	EXPECT_TRUE(sw.agg(5).overflow);
	EXPECT_EQ(sw.count(Counter::overflow), 1u);
	auto c = inatest::gradient(7, 100, 5, 0x4, 3, 62, 0);
	c.values[3] = -10;
	c.values[4] = 10;
	Frame out;
	EXPECT_EQ(sw.run(c, 1, &out).reason, Counter::completed);
	EXPECT_EQ(inatest::value_of(out, 3), INT32_MAX);
	EXPECT_EQ(inatest::value_of(out, 4), INT32_MIN);
	EXPECT_TRUE(inatest::flags_of(out) & INA_F_OVERFLOW);
	EXPECT_EQ(sw.count(Counter::overflow), 2u);
}

/* Figure 17's merge uses the same add: a resent gradient does not pull a
 * saturated element back either. */
TEST(Process, ResendMergeKeepsSaturatedElements)
{
	Switch sw;
	sw.run(inatest::gradient(7, 100, 5, 0x1, 3, 62, INT32_MAX));
	sw.run(inatest::gradient(7, 100, 5, 0x2, 3, 62, 1));
	EXPECT_TRUE(sw.agg(5).overflow);
	auto re = inatest::gradient(7, 100, 5, 0x4, 3, 62, -100);
	re.flags = INA_F_RESEND;
	Frame out;
	EXPECT_EQ(sw.run(re, 1, &out).reason, Counter::resend_merged);
	EXPECT_EQ(inatest::value_of(out, 0), INT32_MAX);
	EXPECT_EQ(inatest::value_of(out, 61), INT32_MAX);
	EXPECT_TRUE(inatest::flags_of(out) & INA_F_OVERFLOW);
}

TEST(Process, ResendFirstLevelMergesAndFrees)
{
	Switch sw;
	sw.run(inatest::gradient(7, 100, 5, 0x1, 3, 62, 2));
	auto re = inatest::gradient(7, 100, 5, 0x4, 3, 62, 5);
	re.flags = INA_F_RESEND;
	Frame out;
	ina::Result r = sw.run(re, 1, &out);
	EXPECT_EQ(r.reason, Counter::resend_merged);
	EXPECT_EQ(r.verdict, Verdict::kDownstream);
	EXPECT_EQ(inatest::bitmap_of(out, 0), 0x5u);
	EXPECT_EQ(inatest::value_of(out, 10), 7);
	EXPECT_EQ(inatest::level_of(out), 1);
	EXPECT_FALSE(sw.agg(5).occupied);
	EXPECT_EQ(sw.table->occupied(), 0u);
	/* The next resent packet finds nothing and does not claim. */
	auto re2 = inatest::gradient(7, 100, 5, 0x2, 3);
	re2.flags = INA_F_RESEND;
	EXPECT_EQ(sw.run(re2).reason, Counter::resend_forwarded);
	EXPECT_FALSE(sw.agg(5).occupied);
}

TEST(Process, ResendAlreadyAggregatedFlushesWithoutAdding)
{
	Switch sw;
	sw.run(inatest::gradient(7, 100, 5, 0x1, 3, 62, 2));
	auto re = inatest::gradient(7, 100, 5, 0x1, 3, 62, 50);
	re.flags = INA_F_RESEND;
	Frame out;
	EXPECT_EQ(sw.run(re, 1, &out).reason, Counter::resend_merged);
	EXPECT_EQ(inatest::value_of(out, 0), 2);
	EXPECT_EQ(inatest::bitmap_of(out, 0), 0x1u);
	EXPECT_FALSE(sw.agg(5).occupied);
}

TEST(Process, ResendHigherLevelFreesAndForwards)
{
	Switch sw;
	auto a = inatest::gradient(7, 100, 5, 0x1, 2, 62, 2);
	a.level = 1;
	a.levels = 2;
	a.bitmaps[0] = 0x3;
	a.bitmaps[1] = 0x1;
	a.fan_ins[1] = 2;
	sw.run(a);
	auto re = a;
	re.flags = INA_F_RESEND;
	re.bitmaps[1] = 0x2;
	re.values.assign(62, 9);
	Frame out;
	ina::Result r = sw.run(re, 1, &out);
	EXPECT_EQ(r.reason, Counter::resend_flushed);
	EXPECT_EQ(inatest::value_of(out, 0), 9); /* forwarded as it came */
	EXPECT_EQ(inatest::bitmap_of(out, 1), 0x2u);
	EXPECT_EQ(inatest::level_of(out), 2);
	EXPECT_FALSE(sw.agg(5).occupied);
}

TEST(Process, ParameterFreesMatching)
{
	Switch sw;
	sw.run(inatest::gradient(7, 100, 5, 0x1, 2));
	Frame in = inavec::build_frame(inatest::parameter(7, 100, 5));
	Frame f = in;
	ina::Result r = sw.run(f);
	EXPECT_EQ(r.verdict, Verdict::kMulticast);
	EXPECT_EQ(r.reason, Counter::ack_freed);
	EXPECT_EQ(sw.count(Counter::multicast), 1u);
	EXPECT_EQ(f, in);
	EXPECT_FALSE(sw.agg(5).occupied);
	f = in;
	EXPECT_EQ(sw.run(f).reason, Counter::ack_unmatched);
}

TEST(Process, GarbageCollectionAfterTimeout)
{
	ina::PipelineConfig c = Switch::default_config();
	c.gc_timeout = 100;
	Switch sw(c);
	sw.run(inatest::gradient(9, 42, 5, 0x1, 2), 1000);
	EXPECT_EQ(sw.run(inatest::parameter(7, 100, 5), 1100).reason, Counter::ack_unmatched);
	EXPECT_TRUE(sw.agg(5).occupied);
	EXPECT_EQ(sw.run(inatest::parameter(7, 100, 5), 1101).reason, Counter::gc_freed);
	EXPECT_FALSE(sw.agg(5).occupied);
	EXPECT_EQ(sw.count(Counter::multicast), 2u);
}

TEST(Process, GarbageCollectionOff)
{
	Switch sw; /* gc_timeout 0 */
	sw.run(inatest::gradient(9, 42, 5, 0x1, 2), 0);
	EXPECT_EQ(sw.run(inatest::parameter(7, 100, 5), UINT64_MAX).reason, Counter::ack_unmatched);
	EXPECT_TRUE(sw.agg(5).occupied);
}

TEST(Process, FilteredPathsLeaveFrameAndRegistersAlone)
{
	ina::PipelineConfig c = Switch::default_config();
	c.switch_id = 3;
	Switch sw(c);
	struct Case {
		uint16_t flags;
		uint16_t agg_node;
		uint8_t level, levels;
		Counter reason;
	} cases[] = {
		{INA_F_BYPASS, 0, 0, 1, Counter::bypass},
		{INA_F_FLOAT, 0, 0, 1, Counter::float_forwarded},
		{0, 5, 0, 1, Counter::goat_forwarded},
		{0, 0, 1, 1, Counter::past_levels},
		{0, 0, 0, 0, Counter::past_levels},
	};
	for (const Case &k : cases) {
		auto g = inatest::gradient(7, 100, 5, 0x1, 1);
		g.flags = k.flags;
		g.agg_node = k.agg_node;
		g.level = k.level;
		g.levels = k.levels;
		Frame in = inavec::build_frame(g), f = in;
		ina::Result r = sw.run(f);
		EXPECT_EQ(r.verdict, Verdict::kDownstream) << ina::counter_name(k.reason);
		EXPECT_EQ(r.reason, k.reason);
		EXPECT_EQ(f, in) << ina::counter_name(k.reason);
	}
	EXPECT_EQ(sw.table->occupied(), 0u);
	/* agg_node == switch_id aggregates here. */
	auto mine = inatest::gradient(7, 100, 5, 0x1, 1);
	mine.agg_node = 3;
	EXPECT_EQ(sw.run(mine).reason, Counter::completed);
}

/* A sender's UDP checksum cannot survive the rewrites (a kernel sender on a
 * device without checksum offload fills it in): every INA data packet
 * leaves with 0, on the aggregating and on the forwarding paths. */
TEST(Process, UdpChecksumLeavesAsZero)
{
	Switch sw;
	auto forwarded = inatest::gradient(7, 100, 5, 0x1, 1);
	forwarded.level = 1;
	forwarded.levels = 1;
	for (auto g : {inatest::gradient(7, 101, 6, 0x1, 1), forwarded}) {
		Frame f = inavec::build_frame(g);
		ina_store16(f.data() + INA_HDR_OFFSET - 2, 0xBEEF);
		ina::Result r = sw.run(f);
		EXPECT_NE(r.verdict, Verdict::kDrop);
		EXPECT_EQ(ina_load16(f.data() + INA_HDR_OFFSET - 2), 0) << ina::counter_name(r.reason);
	}
}

TEST(Process, NonInaPassesUntouched)
{
	Switch sw;
	auto g = inatest::gradient(7, 100, 5, 0x1, 1);
	g.udp_dport = 4791;
	Frame in = inavec::build_frame(g), f = in;
	ina::Result r = sw.run(f);
	EXPECT_EQ(r.verdict, Verdict::kPass);
	EXPECT_EQ(r.reason, Counter::pass_through);
	EXPECT_EQ(f, in);
	Frame tiny = {1, 2, 3};
	EXPECT_EQ(sw.run(tiny).reason, Counter::pass_through);
	Frame empty;
	EXPECT_EQ(ina::process(*sw.table, sw.ctr, nullptr, 0, 1).reason, Counter::pass_through);
}

TEST(Process, ControlGoesToControlPlane)
{
	Switch sw;
	inavec::FrameFields c;
	c.type = INA_TYPE_CONTROL;
	c.job = 7;
	c.elems = 0;
	c.values = {0x01010100, 0};
	c.values_given = true;
	Frame in = inavec::build_frame(c), f = in;
	ina::Result r = sw.run(f);
	EXPECT_EQ(r.verdict, Verdict::kControl);
	EXPECT_EQ(r.reason, Counter::control);
	EXPECT_EQ(f, in);
}

struct MalformedCase {
	const char *what;
	Counter reason;
	void (*mutate)(inavec::FrameFields &);
};

class Malformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(Malformed, CountedAndDroppedUntouched)
{
	Switch sw;
	/* An aggregator for the same fragment must not be touched either. */
	sw.run(inatest::gradient(7, 100, 5, 0x1, 3, 62, 4));
	auto g = inatest::gradient(7, 100, 5, 0x2, 3);
	GetParam().mutate(g);
	Frame in = inavec::build_frame(g), f = in;
	ina::Result r = sw.run(f);
	EXPECT_EQ(r.verdict, Verdict::kDrop);
	EXPECT_EQ(r.reason, GetParam().reason);
	EXPECT_EQ(sw.count(GetParam().reason), 1u);
	EXPECT_EQ(f, in);
	ina::AggregatorState s = sw.agg(5);
	EXPECT_EQ(s.bitmap, 0x1u);
	EXPECT_EQ(s.count, 1u);
	EXPECT_EQ(s.value[0], 4);
}

INSTANTIATE_TEST_SUITE_P(
	Reasons, Malformed,
	::testing::Values(
		MalformedCase{"short_header", Counter::malformed_short, [](inavec::FrameFields &f) { f.frame_len = 60; }},
		MalformedCase{"short_payload", Counter::malformed_short, [](inavec::FrameFields &f) { f.frame_len = 333; }},
		MalformedCase{"version", Counter::malformed_version, [](inavec::FrameFields &f) { f.version = 2; }},
		MalformedCase{"type", Counter::malformed_type, [](inavec::FrameFields &f) { f.type = 9; }},
		MalformedCase{"length", Counter::malformed_length, [](inavec::FrameFields &f) { f.elems = 61; }},
		MalformedCase{"udp_length", Counter::malformed_length, [](inavec::FrameFields &f) { f.udp_len = 500; }},
		MalformedCase{"levels", Counter::malformed_level, [](inavec::FrameFields &f) { f.levels = 5; }},
		MalformedCase{"level", Counter::malformed_level, [](inavec::FrameFields &f) { f.level = 2; }},
		MalformedCase{"fan_in_0", Counter::malformed_fan_in, [](inavec::FrameFields &f) { f.fan_ins[0] = 0; }},
		MalformedCase{"fan_in_33", Counter::malformed_fan_in, [](inavec::FrameFields &f) { f.fan_ins[0] = 33; }},
		MalformedCase{"bitmap_0", Counter::malformed_bitmap, [](inavec::FrameFields &f) { f.bitmaps[0] = 0; }},
		MalformedCase{"bitmap_outside", Counter::malformed_bitmap,
			      [](inavec::FrameFields &f) { f.bitmaps[0] = 0x8; }},
		MalformedCase{"index", Counter::malformed_index, [](inavec::FrameFields &f) { f.index = 64; }},
		MalformedCase{"job_0", Counter::malformed_job, [](inavec::FrameFields &f) { f.job = 0; }}),
	[](const ::testing::TestParamInfo<MalformedCase> &i) { return std::string(i.param.what); });

/* A switch that meets a truncated header, another version and job 0 must
 * say which: one counter each, none of the others moved. */
TEST(Process, MalformedReasonsCountedApart)
{
	Switch sw;
	auto short_hdr = inatest::gradient(7, 100, 5, 0x1, 2);
	short_hdr.frame_len = 60;
	auto v2 = inatest::gradient(7, 101, 6, 0x1, 2);
	v2.version = 2;
	auto job0 = inatest::gradient(0, 102, 7, 0x1, 2);
	for (const auto &f : {short_hdr, v2, job0})
		EXPECT_EQ(sw.run(f).verdict, Verdict::kDrop);
	EXPECT_EQ(sw.count(Counter::malformed_short), 1u);
	EXPECT_EQ(sw.count(Counter::malformed_version), 1u);
	EXPECT_EQ(sw.count(Counter::malformed_job), 1u);
	uint64_t drops = 0;
	for (size_t i = 0; i < ina::kCounterCount; i++)
		if (ina::counter_kind(static_cast<Counter>(i)) == ina::CounterKind::kDrop)
			drops += sw.ctr.v[i];
	EXPECT_EQ(drops, 3u);
}

/* docs/protocol.md: a fan-in of 0 or above 32 at the packet's level is
 * malformed whatever the flags that would otherwise forward the packet
 * unaggregated (bypass, float, another GOAT node, a resend, a lower
 * switch's collision). */
class FanInAnyFlags : public ::testing::TestWithParam<std::pair<uint16_t, uint16_t>> {};

TEST_P(FanInAnyFlags, Dropped)
{
	for (uint8_t fan_in : {uint8_t(0), uint8_t(33), uint8_t(255)}) {
		Switch sw;
		auto g = inatest::gradient(7, 100, 5, 0x1, fan_in);
		g.flags = GetParam().first;
		g.agg_node = GetParam().second;
		Frame in = inavec::build_frame(g), f = in;
		ina::Result r = sw.run(f);
		EXPECT_EQ(r.verdict, Verdict::kDrop) << int(fan_in);
		EXPECT_EQ(r.reason, Counter::malformed_fan_in) << int(fan_in);
		EXPECT_EQ(f, in);
	}
}

INSTANTIATE_TEST_SUITE_P(Flags, FanInAnyFlags,
			 ::testing::Values(std::make_pair(uint16_t(0), uint16_t(0)),
					   std::make_pair(uint16_t(INA_F_BYPASS), uint16_t(0)),
					   std::make_pair(uint16_t(INA_F_FLOAT), uint16_t(0)),
					   std::make_pair(uint16_t(INA_F_RESEND), uint16_t(0)),
					   std::make_pair(uint16_t(INA_F_RESEND | INA_F_COLLISION), uint16_t(0)),
					   std::make_pair(uint16_t(0), uint16_t(9))));

/* A gradient wider than the aggregators goes on to the PS like a
 * collision, untouched but for RESEND | COLLISION and level + 1, and no
 * register changes (the aggregator of the same fragment keeps its sum). */
TEST(Process, TooWideForwardedLikeACollision)
{
	Switch sw;
	sw.run(inatest::gradient(7, 100, 5, 0x1, 3, 62, 4));
	for (uint16_t flags : {uint16_t(0), uint16_t(INA_F_RESEND)}) {
		auto g = inatest::gradient(7, 100, 5, 0x2, 3, 63, 2);
		g.flags = flags;
		Frame in = inavec::build_frame(g), f = in;
		ina::Result r = sw.run(f);
		EXPECT_EQ(r.verdict, Verdict::kDownstream);
		EXPECT_EQ(r.reason, Counter::too_wide);
		EXPECT_EQ(inatest::flags_of(f), flags | INA_F_RESEND | INA_F_COLLISION);
		EXPECT_EQ(inatest::level_of(f), 1);
		EXPECT_EQ(inatest::bitmap_of(f, 0), 0x2u);
		for (size_t i = 0; i < 63; i++)
			EXPECT_EQ(inatest::value_of(f, i), 2);
		/* Only flags, level and the UDP checksum (0) differ. */
		size_t diffs = 0;
		for (size_t i = 0; i < in.size(); i++)
			diffs += in[i] != f[i];
		EXPECT_LE(diffs, 2u);
	}
	EXPECT_EQ(sw.count(Counter::too_wide), 2u);
	EXPECT_EQ(sw.count(Counter::malformed_length) + sw.count(Counter::collision), 0u);
	ina::AggregatorState s = sw.agg(5);
	EXPECT_EQ(s.bitmap, 0x1u);
	EXPECT_EQ(s.count, 1u);
	EXPECT_EQ(s.value[0], 4);
}

/* A job whose fragments are wider than the first switch's aggregators
 * completes exactly through its PS: the first level (62 elements) sends
 * every worker's gradient on, the second (wider, 128) does not aggregate
 * them (RESEND never claims), the PS sums what arrives, and its parameter
 * packet, as wide, crosses both switches to the workers. */
TEST(Process, TooWideJobCompletesThroughThePs)
{
	ina::PipelineConfig narrow_cfg = Switch::default_config();
	ina::PipelineConfig wide_cfg = narrow_cfg;
	wide_cfg.elements = 128;
	Switch narrow(narrow_cfg), wide(wide_cfg);
	constexpr uint32_t kElems = 100;
	constexpr int kWorkers = 3;
	for (uint32_t seq = 1; seq <= 4; seq++) {
		const uint32_t index = seq % 64;
		std::vector<int64_t> sum(kElems, 0);
		uint32_t have = 0;
		for (int w = 0; w < kWorkers; w++) {
			auto g = inatest::gradient(7, seq, index, 1u << w, kWorkers, kElems);
			g.levels = 2;
			g.bitmaps[1] = 0x1;
			g.fan_ins[1] = 1;
			for (uint32_t i = 0; i < kElems; i++)
				g.values[i] = static_cast<int32_t>(seq * 1000 + w * 100 + i);
			Frame f = inavec::build_frame(g);
			ASSERT_EQ(narrow.run(f).reason, Counter::too_wide);
			ina::Result r = wide.run(f);
			ASSERT_EQ(r.verdict, Verdict::kDownstream);
			ASSERT_EQ(r.reason, Counter::resend_forwarded);
			ASSERT_EQ(inatest::level_of(f), 2);
			/* The PS: the contributors, once each. */
			const uint32_t bit = inatest::bitmap_of(f, 0);
			ASSERT_EQ(have & bit, 0u);
			have |= bit;
			for (uint32_t i = 0; i < kElems; i++)
				sum[i] += inatest::value_of(f, i);
		}
		ASSERT_EQ(have, (1u << kWorkers) - 1);
		auto ack = inatest::parameter(7, seq, index, kElems);
		ack.levels = 2;
		for (uint32_t i = 0; i < kElems; i++)
			ack.values[i] = static_cast<int32_t>(sum[i]);
		Frame a = inavec::build_frame(ack);
		EXPECT_EQ(wide.run(a).verdict, Verdict::kMulticast);
		EXPECT_EQ(narrow.run(a).verdict, Verdict::kMulticast);
		for (uint32_t i = 0; i < kElems; i++)
			EXPECT_EQ(inatest::value_of(a, i), int32_t(3 * seq * 1000 + 300 + 3 * i));
	}
	EXPECT_EQ(narrow.count(Counter::too_wide), 12u);
	EXPECT_EQ(narrow.count(Counter::multicast), 4u);
	EXPECT_EQ(narrow.table->occupied() + wide.table->occupied(), 0u);
}

TEST(Process, MisroutedToOtherLcore)
{
	ina::PipelineConfig c = Switch::default_config();
	c.stride = 2;
	c.offset = 1;
	Switch sw(c);
	EXPECT_EQ(sw.run(inatest::gradient(7, 100, 4, 0x1, 2)).reason, Counter::misrouted);
	EXPECT_EQ(sw.run(inatest::parameter(7, 100, 4)).reason, Counter::misrouted);
	EXPECT_EQ(sw.run(inatest::gradient(7, 101, 5, 0x1, 2)).reason, Counter::aggregated);
	EXPECT_TRUE(sw.agg(5).occupied);
}

TEST(Process, MultiLevelResultBitmaps)
{
	/* Level 2 of 4: result has bitmaps 0 and 1 = all children, level 3. */
	Switch sw;
	auto a = inatest::gradient(7, 100, 5, 0, 0, 62, 1);
	a.level = 2;
	a.levels = 4;
	a.bitmaps[0] = 0x1;
	a.bitmaps[1] = 0x3;
	a.bitmaps[2] = 0x1;
	a.fan_ins[2] = 2;
	sw.run(a);
	auto b = a;
	b.bitmaps[2] = 0x2;
	Frame out;
	ina::Result r = sw.run(b, 1, &out);
	EXPECT_EQ(r.reason, Counter::completed);
	EXPECT_EQ(inatest::level_of(out), 3);
	EXPECT_EQ(inatest::bitmap_of(out, 0), 0xFFFFFFFFu);
	EXPECT_EQ(inatest::bitmap_of(out, 1), 0xFFFFFFFFu);
	EXPECT_EQ(inatest::bitmap_of(out, 2), 0x3u);
	EXPECT_EQ(inatest::bitmap_of(out, 3), 0u);
	EXPECT_EQ(inatest::value_of(out, 0), 2);
}

TEST(Process, EveryReasonBumpsExactlyItsCounterOnce)
{
	/* Each call bumps its reason; the sum of path counters equals packets. */
	Switch sw;
	uint64_t packets = 0;
	for (uint32_t s = 0; s < 50; s++) {
		for (uint32_t w = 0; w < 4; w++) {
			sw.run(inatest::gradient(1 + s % 3, s, s % 7, 1u << w, 4), s);
			packets++;
		}
		sw.run(inatest::parameter(1 + s % 3, s, s % 7), s);
		packets++;
	}
	uint64_t paths = 0;
	for (Counter c : {Counter::aggregated, Counter::completed, Counter::collision, Counter::duplicate,
			  Counter::ack_freed, Counter::ack_unmatched, Counter::gc_freed})
		paths += sw.count(c);
	/* aggregated also counts the completing packet: subtract completions. */
	EXPECT_EQ(paths - sw.count(Counter::completed), packets);
	EXPECT_EQ(sw.count(Counter::multicast), 50u);
}

} /* namespace */

/* Job incarnations (docs/security.md): the aggregator key is <epoch, job,
 * seq>, the epoch being flags bits 8-15. A dead run's slot is a collision for
 * the next run's same fragment, never a match, and survives until GC. */
TEST(Process, EpochIsPartOfTheAggregatorKey)
{
	Switch sw;
	auto old_run = inatest::gradient(7, 100, 5, 0x1, 1, 62, 1000);
	old_run.flags = ina_flags_with_epoch(0, 1);
	Frame out;
	EXPECT_EQ(sw.run(old_run, 1, &out).reason, Counter::completed);
	EXPECT_TRUE(sw.agg(5).occupied);
	EXPECT_EQ(sw.agg(5).epoch, 1u);

	auto new_run = inatest::gradient(7, 100, 5, 0x1, 1, 62, 3);
	new_run.flags = ina_flags_with_epoch(0, 2);
	ina::Result r = sw.run(new_run, 2, &out);
	EXPECT_EQ(r.reason, Counter::collision);
	EXPECT_EQ(inatest::value_of(out, 0), 3) << "the new run's value, nothing of the old run's 1000";
	EXPECT_EQ(ina_flags_epoch(inatest::flags_of(out)), 2u) << "the epoch rides along";
	EXPECT_EQ(sw.agg(5).epoch, 1u);

	auto ack_new = inatest::parameter(7, 100, 5);
	ack_new.flags = ina_flags_with_epoch(INA_F_ACK, 2);
	EXPECT_EQ(sw.run(ack_new, 3, &out).reason, Counter::ack_unmatched);
	EXPECT_TRUE(sw.agg(5).occupied) << "another run's result does not free the slot";
	auto ack_old = inatest::parameter(7, 100, 5);
	ack_old.flags = ina_flags_with_epoch(INA_F_ACK, 1);
	EXPECT_EQ(sw.run(ack_old, 4, &out).reason, Counter::ack_freed);
	EXPECT_FALSE(sw.agg(5).occupied);
}

/* GOAT split sub-models (docs/goat.md, "Split sub-models"): the caller's
 * children replace the fragment's fan-in and allowed bits. Workers 1 and 3
 * of four complete at two, whatever fan-in the fragments carry; worker 2
 * is not one of them. */
TEST(Process, ChildrenFromTheCallerDecideCompletion)
{
	Switch sw;
	const ina::Children split{2, 0b1010};
	Frame f = inavec::build_frame(inatest::gradient(7, 100, 5, 0b0010, 4, 62, 3));
	ina::Result r = ina::process(*sw.table, sw.ctr, f.data(), static_cast<uint32_t>(f.size()), 1,
			 ina::kNoShareLimit, &split);
	EXPECT_EQ(r.reason, Counter::aggregated);
	EXPECT_EQ(sw.count(Counter::claimed), 1u);
	Frame other = inavec::build_frame(inatest::gradient(7, 100, 5, 0b0100, 4, 62, 5));
	r = ina::process(*sw.table, sw.ctr, other.data(), static_cast<uint32_t>(other.size()), 1,
			 ina::kNoShareLimit, &split);
	EXPECT_EQ(r.verdict, Verdict::kDrop);
	EXPECT_EQ(r.reason, Counter::malformed_bitmap) << "worker 2 is not a child here";
	Frame last = inavec::build_frame(inatest::gradient(7, 100, 5, 0b1000, 4, 62, 4));
	r = ina::process(*sw.table, sw.ctr, last.data(), static_cast<uint32_t>(last.size()), 2,
			 ina::kNoShareLimit, &split);
	EXPECT_EQ(r.verdict, Verdict::kDownstream);
	EXPECT_EQ(r.reason, Counter::completed);
	EXPECT_EQ(inatest::bitmap_of(last, 0), 0b1010u);
	EXPECT_EQ(inatest::level_of(last), 1);
	for (int i = 0; i < 62; i++)
		EXPECT_EQ(inatest::value_of(last, i), 7);
	/* Without them the fragment's fan-in holds: 4, and bit 2 is allowed. */
	Frame a = inavec::build_frame(inatest::gradient(7, 101, 6, 0b0010, 4));
	Frame b = inavec::build_frame(inatest::gradient(7, 101, 6, 0b1000, 4));
	EXPECT_EQ(sw.run(a).reason, Counter::aggregated);
	EXPECT_EQ(sw.run(b).reason, Counter::aggregated) << "two of four: not complete";
	const ina::Children bad{0, 0};
	Frame c = inavec::build_frame(inatest::gradient(7, 102, 7, 0b0010, 4));
	r = ina::process(*sw.table, sw.ctr, c.data(), static_cast<uint32_t>(c.size()), 1,
			 ina::kNoShareLimit, &bad);
	EXPECT_EQ(r.reason, Counter::malformed_fan_in);
}
