/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Randomised tests over long packet sequences:
 *  - SIMD: every path (scalar, AVX2, AVX-512; those this CPU lacks are
 *    skipped) gives bit-identical verdicts, frames, counters and registers,
 *    on random data full of saturation edges and on every element count
 *    1..256 (vector tails);
 *  - Model: ina::process() agrees, packet by packet, with a plain reference
 *    model of the semantics (docs/protocol.md "Switch behaviour per packet"),
 *    written here independently of pipeline/src.
 */
#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <random>
#include <vector>

#include "test_util.h"

using ina::Counter;
using ina::Verdict;
using inatest::Frame;

namespace {

constexpr uint32_t kAggregators = 8;
constexpr uint16_t kElements = 256;
constexpr uint64_t kGc = 50;
constexpr uint16_t kSwitchId = 2;

ina::PipelineConfig random_config()
{
	ina::PipelineConfig c;
	c.aggregators = kAggregators;
	c.elements = kElements;
	c.switch_id = kSwitchId;
	c.gc_timeout = kGc;
	return c;
}

/* Values biased toward the saturation edges. */
int32_t edge_value(std::mt19937 &rng)
{
	static const int32_t edges[] = {INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 0, 1, -1,
					1 << 30, -(1 << 30), 0x40000001, -0x40000001};
	switch (rng() % 4) {
	case 0:
		return edges[rng() % (sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return static_cast<int32_t>(rng() % 2001) - 1000;
	default:
		return static_cast<int32_t>(rng());
	}
}

/* One random but well-formed packet (malformed input is the fuzzer's). */
struct Generator {
	std::mt19937 rng;
	uint64_t now = 0;
	explicit Generator(uint32_t seed) : rng(seed) {}

	static uint16_t elems_of(uint16_t job, uint32_t seq) { return 1 + (job * 97u + seq * 31u) % kElements; }

	inavec::FrameFields next()
	{
		inavec::FrameFields f;
		now += rng() % 12;
		f.job = static_cast<uint16_t>(1 + rng() % 3);
		f.seq = rng() % 6;
		f.index = rng() % 5 == 0 ? rng() % kAggregators : (f.job * 3u + f.seq) % kAggregators;
		uint32_t r = rng() % 100;
		if (r < 15)
			f.flags |= INA_F_ACK;
		else if (r < 35)
			f.flags |= INA_F_RESEND;
		else if (r < 37)
			f.flags |= INA_F_BYPASS;
		else if (r < 39)
			f.flags |= INA_F_FLOAT;
		if (rng() % 8 == 0)
			f.flags |= INA_F_ECN;
		if (rng() % 16 == 0)
			f.flags |= INA_F_COL;
		if (rng() % 16 == 0)
			f.flags |= INA_F_OVERFLOW;
		uint32_t n = rng() % 10;
		f.agg_node = n == 0 ? 5 : n == 1 ? kSwitchId : 0;
		f.levels = static_cast<uint8_t>(1 + rng() % 4);
		f.level = static_cast<uint8_t>(rng() % 3 == 0 ? rng() % (f.levels + 1) : 0);
		for (uint32_t l = 0; l < INA_MAX_LEVELS; l++) {
			uint8_t fan = static_cast<uint8_t>(1 + rng() % 4);
			f.fan_ins[l] = l < f.levels ? fan : 0;
			f.bitmaps[l] = l < f.levels ? 1u << (rng() % fan) : 0;
		}
		if (rng() % 2)
			f.remap = rng() % kAggregators;
		uint16_t elems = elems_of(f.job, f.seq);
		f.values.resize(elems);
		for (auto &v : f.values)
			v = edge_value(rng);
		f.values_given = true;
		return f;
	}
};

/* ---- reference model --------------------------------------------------- */

struct RefAgg {
	bool occupied = false;
	uint16_t job = 0;
	uint32_t seq = 0;
	uint64_t ts = 0;
	uint32_t bitmap = 0, count = 0;
	bool ecn = false, col = false, ovf = false;
	std::vector<int32_t> val = std::vector<int32_t>(kElements, 0);
};

struct RefResult {
	Verdict verdict;
	Counter reason;
	inavec::FrameFields out;
};

struct Reference {
	RefAgg agg[kAggregators];
	ina::PipelineCounters ctr;

	/* ATP §3.8: an element at INT32_MAX / INT32_MIN is saturated and an add
	 * leaves it there. An add counts as a clip when the element it leaves is
	 * at a limit (clipped, held, or landed there exactly): the test a Tofino
	 * lane makes on the word it returns (docs/pipeline.md "Overflow"). */
	static int32_t sat(int32_t a, int32_t b, bool *clip)
	{
		int64_t s = int64_t(a) + b;
		if (a == INT32_MAX || a == INT32_MIN)
			s = a;
		else if (s > INT32_MAX)
			s = INT32_MAX;
		else if (s < INT32_MIN)
			s = INT32_MIN;
		*clip |= s == INT32_MAX || s == INT32_MIN;
		return static_cast<int32_t>(s);
	}

	static uint16_t agg_flags(const RefAgg &a)
	{
		return (a.ecn ? INA_F_ECN : 0) | (a.col ? INA_F_COL : 0) | (a.ovf ? INA_F_OVERFLOW : 0);
	}

	static void result_bitmaps(inavec::FrameFields &o, uint32_t bitmap)
	{
		for (uint32_t i = 0; i < o.level; i++)
			o.bitmaps[i] = 0xFFFFFFFFu;
		o.bitmaps[o.level] = bitmap;
	}

	RefResult finish(Verdict v, Counter c, const inavec::FrameFields &o)
	{
		ctr[c]++;
		return {v, c, o};
	}

	RefResult process(const inavec::FrameFields &in, uint64_t now)
	{
		inavec::FrameFields o = in;
		bool ack = in.flags & INA_F_ACK;
		if (!ack) {
			if (in.flags & INA_F_BYPASS)
				return finish(Verdict::kDownstream, Counter::bypass, o);
			if (in.flags & INA_F_FLOAT)
				return finish(Verdict::kDownstream, Counter::float_forwarded, o);
			if (in.agg_node != 0 && in.agg_node != kSwitchId)
				return finish(Verdict::kDownstream, Counter::goat_forwarded, o);
			if (in.level >= in.levels)
				return finish(Verdict::kDownstream, Counter::past_levels, o);
		}
		RefAgg &a = agg[in.index];
		bool match = a.occupied && a.job == in.job && a.seq == in.seq;
		size_t n = in.values.size();
		if (ack) {
			ctr[Counter::multicast]++;
			if (match)
				return free_and(a, Verdict::kMulticast, Counter::ack_freed, o);
			if (a.occupied && now > a.ts && now - a.ts > kGc)
				return free_and(a, Verdict::kMulticast, Counter::gc_freed, o);
			return finish(Verdict::kMulticast, Counter::ack_unmatched, o);
		}
		uint32_t bit = in.bitmaps[in.level];
		uint8_t fan = in.fan_ins[in.level];
		uint16_t pkt_carry = in.flags & (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW);
		if (in.flags & INA_F_RESEND) {
			o.level = in.level + 1;
			if (a.occupied && !match) {
				a.col = true;
				o.flags |= INA_F_COLLISION;
				return finish(Verdict::kDownstream, Counter::collision, o);
			}
			if (!match)
				return finish(Verdict::kDownstream, Counter::resend_forwarded, o);
			if (in.level != 0) {
				o.flags |= agg_flags(a);
				return free_and(a, Verdict::kDownstream, Counter::resend_flushed, o);
			}
			bool clip = false;
			if (!(a.bitmap & bit)) {
				for (size_t i = 0; i < n; i++)
					a.val[i] = sat(a.val[i], in.values[i], &clip);
				ctr[Counter::aggregated]++;
			}
			if (clip)
				ctr[Counter::overflow]++;
			for (size_t i = 0; i < n; i++)
				o.values[i] = a.val[i];
			o.flags |= agg_flags(a) | pkt_carry | (clip ? INA_F_OVERFLOW : 0);
			o.level = in.level;
			result_bitmaps(o, a.bitmap | bit);
			o.level = in.level + 1;
			return free_and(a, Verdict::kDownstream, Counter::resend_merged, o);
		}
		if (a.occupied && !match) {
			a.col = true;
			o.flags |= INA_F_RESEND | INA_F_COLLISION;
			o.level = in.level + 1;
			return finish(Verdict::kDownstream, Counter::collision, o);
		}
		bool clip = false;
		if (!a.occupied) {
			a.occupied = true;
			a.job = in.job;
			a.seq = in.seq;
			a.ts = now;
			a.bitmap = bit;
			a.count = 1;
			for (size_t i = 0; i < n; i++)
				a.val[i] = in.values[i];
			a.ecn = in.flags & INA_F_ECN;
			a.col = in.flags & INA_F_COL;
			a.ovf = in.flags & INA_F_OVERFLOW;
			ctr[Counter::claimed]++;
		} else {
			a.ts = now;
			if (a.bitmap & bit) {
				a.ecn |= bool(in.flags & INA_F_ECN);
				return finish(Verdict::kDrop, Counter::duplicate, o);
			}
			a.bitmap |= bit;
			a.count++;
			for (size_t i = 0; i < n; i++)
				a.val[i] = sat(a.val[i], in.values[i], &clip);
			a.ecn |= bool(in.flags & INA_F_ECN);
			a.col |= bool(in.flags & INA_F_COL);
			a.ovf |= bool(in.flags & INA_F_OVERFLOW) || clip;
			if (clip)
				ctr[Counter::overflow]++;
		}
		if (a.count < fan)
			return finish(Verdict::kDrop, Counter::aggregated, o);
		ctr[Counter::aggregated]++;
		for (size_t i = 0; i < n; i++)
			o.values[i] = a.val[i];
		o.flags |= agg_flags(a);
		result_bitmaps(o, a.bitmap);
		o.level = in.level + 1;
		return finish(Verdict::kDownstream, Counter::completed, o);
	}

	RefResult free_and(RefAgg &a, Verdict v, Counter c, const inavec::FrameFields &o)
	{
		a.occupied = false;
		a.bitmap = a.count = 0;
		a.ecn = a.col = a.ovf = false;
		return finish(v, c, o);
	}
};

void expect_same_registers(const ina::AggregatorTable &t, const Reference &ref, size_t step)
{
	for (uint32_t i = 0; i < kAggregators; i++) {
		ina::AggregatorState s = t.read(i);
		const RefAgg &a = ref.agg[i];
		ASSERT_EQ(s.occupied, a.occupied) << "aggregator " << i << " step " << step;
		if (!a.occupied)
			continue;
		ASSERT_EQ(s.job, a.job) << "step " << step;
		ASSERT_EQ(s.seq, a.seq) << "step " << step;
		ASSERT_EQ(s.timestamp, a.ts) << "step " << step;
		ASSERT_EQ(s.bitmap, a.bitmap) << "step " << step;
		ASSERT_EQ(s.count, a.count) << "step " << step;
		ASSERT_EQ(s.ecn, a.ecn) << "step " << step;
		ASSERT_EQ(s.col, a.col) << "step " << step;
		ASSERT_EQ(s.overflow, a.ovf) << "step " << step;
		/* Elements of this fragment (a claim writes elem_count values). */
		uint16_t n = Generator::elems_of(a.job, a.seq);
		for (uint16_t e = 0; e < n; e++)
			ASSERT_EQ(s.value[e], a.val[e]) << "aggregator " << i << " element " << e << " step " << step;
	}
}

std::vector<ina::SimdLevel> cpu_levels()
{
	std::vector<ina::SimdLevel> v;
	for (ina::SimdLevel l : {ina::SimdLevel::kScalar, ina::SimdLevel::kAvx2, ina::SimdLevel::kAvx512})
		if (l <= ina::simd_best())
			v.push_back(l);
	return v;
}

class OnEverySimdPath : public ::testing::TestWithParam<ina::SimdLevel> {
protected:
	void SetUp() override
	{
		if (GetParam() > ina::simd_best())
			GTEST_SKIP() << "this CPU lacks " << ina::simd_name(GetParam());
	}
};

TEST_P(OnEverySimdPath, AgreesWithReferenceModel)
{
	for (uint32_t seed = 1; seed <= 4; seed++) {
		ina::AggregatorTable table(random_config(), GetParam());
		ina::PipelineCounters ctr;
		Reference ref;
		Generator gen(seed);
		for (size_t step = 0; step < 6000; step++) {
			inavec::FrameFields in = gen.next();
			Frame f = inavec::build_frame(in);
			ina::Result r = ina::process(table, ctr, f.data(), static_cast<uint32_t>(f.size()), gen.now);
			RefResult want = ref.process(in, gen.now);
			ASSERT_EQ(ina::counter_name(r.reason), std::string(ina::counter_name(want.reason)))
				<< "seed " << seed << " step " << step;
			ASSERT_EQ(r.verdict, want.verdict) << "seed " << seed << " step " << step;
			if (r.verdict != Verdict::kDrop) {
				ASSERT_EQ(f, inavec::build_frame(want.out)) << "seed " << seed << " step " << step;
			}
			expect_same_registers(table, ref, step);
			if (HasFatalFailure())
				return;
		}
		for (size_t c = 0; c < ina::kCounterCount; c++)
			EXPECT_EQ(ctr.v[c], ref.ctr.v[c]) << ina::counter_name(static_cast<Counter>(c));
		EXPECT_GT(ctr[Counter::completed], 50u);
		EXPECT_GT(ctr[Counter::collision], 50u);
		EXPECT_GT(ctr[Counter::resend_merged], 10u);
		EXPECT_GT(ctr[Counter::overflow], 10u);
		EXPECT_GT(ctr[Counter::gc_freed], 0u);
	}
}

INSTANTIATE_TEST_SUITE_P(Simd, OnEverySimdPath,
			 ::testing::Values(ina::SimdLevel::kScalar, ina::SimdLevel::kAvx2, ina::SimdLevel::kAvx512),
			 [](const ::testing::TestParamInfo<ina::SimdLevel> &i) {
				 return std::string(ina::simd_name(i.param));
			 });

TEST(Simd, AllPathsBitIdentical)
{
	std::vector<ina::SimdLevel> levels = cpu_levels();
	if (levels.size() < 2)
		GTEST_SKIP() << "only the scalar path on this CPU";
	std::vector<std::unique_ptr<ina::AggregatorTable>> tables;
	std::vector<ina::PipelineCounters> ctrs(levels.size());
	for (ina::SimdLevel l : levels)
		tables.push_back(std::make_unique<ina::AggregatorTable>(random_config(), l));
	Generator gen(99);
	for (size_t step = 0; step < 20000; step++) {
		inavec::FrameFields in = gen.next();
		Frame first;
		ina::Result r0{};
		for (size_t k = 0; k < levels.size(); k++) {
			Frame f = inavec::build_frame(in);
			ina::Result r = ina::process(*tables[k], ctrs[k], f.data(), static_cast<uint32_t>(f.size()),
						     gen.now);
			if (k == 0) {
				first = f;
				r0 = r;
				continue;
			}
			ASSERT_EQ(r.verdict, r0.verdict) << ina::simd_name(levels[k]) << " step " << step;
			ASSERT_EQ(r.reason, r0.reason) << ina::simd_name(levels[k]) << " step " << step;
			ASSERT_EQ(f, first) << ina::simd_name(levels[k]) << " step " << step;
		}
	}
	for (size_t k = 1; k < levels.size(); k++) {
		EXPECT_EQ(std::memcmp(ctrs[k].v, ctrs[0].v, sizeof(ctrs[0].v)), 0);
		for (uint32_t i = 0; i < kAggregators; i++) {
			ina::AggregatorState a = tables[0]->read(i), b = tables[k]->read(i);
			ASSERT_EQ(a.occupied, b.occupied);
			ASSERT_EQ(std::memcmp(a.value, b.value, sizeof(int32_t) * kElements), 0)
				<< ina::simd_name(levels[k]) << " aggregator " << i;
		}
	}
	EXPECT_GT(ctrs[0][Counter::overflow], 100u);
}

TEST(Simd, EveryElementCountAndEdgePair)
{
	/* Each count 1..256 (every tail length), each with values at the edges:
	 * two contributions and the completion's sum, on every path. */
	static const int32_t edges[] = {INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, -1, 0, 1};
	std::vector<ina::SimdLevel> levels = cpu_levels();
	std::mt19937 rng(7);
	for (uint16_t n = 1; n <= kElements; n++) {
		std::vector<int32_t> a(n), b(n);
		for (uint16_t e = 0; e < n; e++) {
			a[e] = edges[rng() % 7];
			b[e] = (rng() % 3) ? edges[rng() % 7] : static_cast<int32_t>(rng());
		}
		/* Expected, computed here in 64 bits; an element claimed at a limit
		 * is saturated and stays (ATP §3.8); the add is a clip when it leaves
		 * an element at a limit. */
		std::vector<int32_t> want(n);
		bool clip = false;
		for (uint16_t e = 0; e < n; e++) {
			int64_t s = int64_t(a[e]) + b[e];
			if (a[e] == INT32_MAX || a[e] == INT32_MIN)
				s = a[e];
			want[e] = static_cast<int32_t>(std::min<int64_t>(INT32_MAX, std::max<int64_t>(INT32_MIN, s)));
			clip |= want[e] == INT32_MAX || want[e] == INT32_MIN;
		}
		for (ina::SimdLevel l : levels) {
			ina::PipelineConfig c = random_config();
			ina::AggregatorTable t(c, l);
			ina::PipelineCounters ctr;
			auto ga = inatest::gradient(1, n, 3, 0x1, 2, n);
			ga.values = a;
			auto gb = inatest::gradient(1, n, 3, 0x2, 2, n);
			gb.values = b;
			Frame fa = inavec::build_frame(ga), fb = inavec::build_frame(gb);
			ina::process(t, ctr, fa.data(), static_cast<uint32_t>(fa.size()), 1);
			ina::Result r = ina::process(t, ctr, fb.data(), static_cast<uint32_t>(fb.size()), 2);
			ASSERT_EQ(r.reason, Counter::completed);
			for (uint16_t e = 0; e < n; e++)
				ASSERT_EQ(inatest::value_of(fb, e), want[e])
					<< ina::simd_name(l) << " n=" << n << " element " << e;
			ASSERT_EQ(bool(inatest::flags_of(fb) & INA_F_OVERFLOW), clip) << ina::simd_name(l) << " n=" << n;
			ASSERT_EQ(ctr[Counter::overflow], clip ? 1u : 0u);
			/* Registers beyond n are not touched by the kernels. */
			ina::AggregatorState s = t.read(3);
			for (uint16_t e = n; e < kElements; e++)
				ASSERT_EQ(s.value[e], 0) << ina::simd_name(l) << " n=" << n << " element " << e;
		}
	}
}

} /* namespace */
