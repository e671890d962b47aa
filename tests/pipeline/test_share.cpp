/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Fair share (docs/pipeline.md, "Fair share"): a job claims no more of a
 * table than its share, a refused claim goes on like a collision, and the
 * job_held register follows every claim and every free, whoever frees.
 */
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "test_util.h"

using inatest::Frame;
using inatest::Switch;
using ina::Counter;
using ina::Verdict;

namespace {

/* Runs a frame with a share for its job. */
ina::Result run(Switch &sw, const inavec::FrameFields &f, uint32_t share, uint64_t now = 1, Frame *out = nullptr)
{
	Frame fr = inavec::build_frame(f);
	ina::Result r = ina::process(*sw.table, sw.ctr, fr.data(), static_cast<uint32_t>(fr.size()), now, share);
	if (out)
		*out = fr;
	return r;
}

/* Aggregators whose key names `job`, read from the registers. */
uint32_t slots_of(const Switch &sw, uint16_t job)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < sw.cfg.aggregators; i++)
		n += sw.table->owns(i) && sw.agg(i).occupied && sw.agg(i).job == job;
	return n;
}

TEST(Share, RefusedClaimGoesOnLikeACollisionAndWritesNothing)
{
	Switch sw;
	EXPECT_EQ(run(sw, inatest::gradient(7, 100, 5, 0x1, 2), 2).reason, Counter::aggregated);
	EXPECT_EQ(run(sw, inatest::gradient(7, 101, 6, 0x1, 2), 2).reason, Counter::aggregated);
	EXPECT_EQ(sw.table->held(7), 2u);

	auto third = inatest::gradient(7, 102, 9, 0x2, 2, 62, 5);
	Frame out;
	ina::Result r = run(sw, third, 2, 3, &out);
	EXPECT_EQ(r.verdict, Verdict::kDownstream);
	EXPECT_EQ(r.reason, Counter::share_refusals);
	EXPECT_EQ(inatest::flags_of(out), INA_F_RESEND | INA_F_COLLISION);
	EXPECT_EQ(inatest::level_of(out), 1u);
	EXPECT_EQ(inatest::bitmap_of(out, 0), 0x2u) << "the packet goes whole: its own bitmap";
	EXPECT_EQ(inatest::value_of(out, 61), 5) << "and its own values";
	ina::AggregatorState s = sw.agg(9);
	EXPECT_FALSE(s.occupied);
	EXPECT_FALSE(s.col) << "no holder: no Col bit";
	EXPECT_EQ(sw.table->held(7), 2u);
	EXPECT_EQ(sw.table->occupied(), 2u);
	EXPECT_EQ(sw.count(Counter::share_refusals), 1u);
	EXPECT_EQ(sw.count(Counter::collision), 0u);

	/* At its limit the job still aggregates into what it holds. */
	EXPECT_EQ(run(sw, inatest::gradient(7, 100, 5, 0x2, 2), 2).reason, Counter::completed);
	/* Other jobs are not affected by job 7's share. */
	EXPECT_EQ(run(sw, inatest::gradient(8, 1, 9, 0x1, 2), ina::kNoShareLimit).reason, Counter::aggregated);
	EXPECT_EQ(sw.table->held(8), 1u);
	/* A share of 0 refuses every claim. */
	EXPECT_EQ(run(sw, inatest::gradient(9, 1, 10, 0x1, 2), 0).reason, Counter::share_refusals);
	/* A collision stays a collision (the slot is held), whatever the share. */
	EXPECT_EQ(run(sw, inatest::gradient(7, 103, 9, 0x1, 2), 2).reason, Counter::collision);
	EXPECT_TRUE(sw.agg(9).col);
}

TEST(Share, EveryFreeGivesTheHolderItsClaimBack)
{
	ina::PipelineConfig c = Switch::default_config();
	c.gc_timeout = 100;
	Switch sw(c);
	const uint32_t share = 1;
	auto claim = [&](uint32_t seq, uint32_t idx, uint64_t now, uint8_t fan_in = 2) {
		return run(sw, inatest::gradient(7, seq, idx, 0x1, fan_in), share, now).reason;
	};
	/* parameter packet */
	EXPECT_EQ(claim(1, 5, 1), Counter::aggregated);
	EXPECT_EQ(claim(2, 6, 1), Counter::share_refusals);
	EXPECT_EQ(run(sw, inatest::parameter(7, 1, 5), share, 2).reason, Counter::ack_freed);
	EXPECT_EQ(sw.table->held(7), 0u);
	/* first-level resend: merged and freed */
	EXPECT_EQ(claim(2, 6, 3), Counter::aggregated);
	auto resend = inatest::gradient(7, 2, 6, 0x2, 2);
	resend.flags = INA_F_RESEND;
	EXPECT_EQ(run(sw, resend, share, 4).reason, Counter::resend_merged);
	EXPECT_EQ(sw.table->held(7), 0u);
	/* higher-level resend: flushed and freed */
	auto up = inatest::gradient(7, 3, 7, 0x1, 2);
	up.levels = 2;
	up.level = 1;
	up.bitmaps[0] = 0xFFFFFFFF;
	up.bitmaps[1] = 0x1;
	up.fan_ins[1] = 2;
	EXPECT_EQ(run(sw, up, share, 5).reason, Counter::aggregated);
	EXPECT_EQ(sw.table->held(7), 1u);
	up.flags = INA_F_RESEND;
	EXPECT_EQ(run(sw, up, share, 6).reason, Counter::resend_flushed);
	EXPECT_EQ(sw.table->held(7), 0u);
	/* GC by another job's parameter packet: the holder's count goes down */
	EXPECT_EQ(claim(4, 8, 10), Counter::aggregated);
	EXPECT_EQ(run(sw, inatest::parameter(9, 50, 8), ina::kNoShareLimit, 500).reason, Counter::gc_freed);
	EXPECT_EQ(sw.table->held(7), 0u);
	EXPECT_EQ(sw.table->held(9), 0u) << "the packet's own job held nothing";
	/* idle sweep */
	EXPECT_EQ(claim(5, 9, 600), Counter::aggregated);
	uint32_t cursor = 0;
	EXPECT_EQ(sw.table->sweep(&cursor, 64, 1000, 100, nullptr, nullptr), 1u);
	EXPECT_EQ(sw.table->held(7), 0u);
	/* purge (unregister, new registration, lease expiry, new epoch) */
	EXPECT_EQ(claim(6, 10, 1001), Counter::aggregated);
	EXPECT_EQ(sw.table->purge([](uint16_t job, void *) { return job == 7; }, nullptr, nullptr), 1u);
	EXPECT_EQ(sw.table->held(7), 0u);
	/* write() and clear() keep it too */
	ina::AggregatorState s;
	s.occupied = true;
	s.job = 7;
	sw.table->write(11, s, nullptr, 0);
	EXPECT_EQ(sw.table->held(7), 1u);
	s.job = 8;
	sw.table->write(11, s, nullptr, 0);
	EXPECT_EQ(sw.table->held(7), 0u);
	EXPECT_EQ(sw.table->held(8), 1u);
	sw.table->clear();
	EXPECT_EQ(sw.table->held(8), 0u);
	/* and each free made room for exactly one claim again */
	EXPECT_EQ(claim(7, 12, 1002), Counter::aggregated);
	EXPECT_EQ(claim(8, 13, 1002), Counter::share_refusals);
}

/* Random traffic of three jobs with small shares over a small table
 * (claims, matches, duplicates, collisions, resends at two levels,
 * parameter packets, GC, sweeps): after every packet job_held equals what
 * the registers hold, and no job holds more than its share. */
TEST(Share, HeldNeverDriftsFromTheRegisters)
{
	ina::PipelineConfig c;
	c.aggregators = 16;
	c.gc_timeout = 50;
	Switch sw(c);
	const std::map<uint16_t, uint32_t> share = {{1, 3}, {2, 5}, {3, ina::kNoShareLimit}};
	std::mt19937 rng(7);
	uint32_t cursor = 0;
	uint64_t refused = 0;
	for (uint64_t now = 1; now <= 20000; now++) {
		const uint16_t job = static_cast<uint16_t>(1 + rng() % 3);
		const uint32_t seq = rng() % 24;
		const uint32_t idx = seq % 16;
		const uint32_t kind = rng() % 8;
		inavec::FrameFields f = inatest::gradient(job, seq, idx, 1u << (rng() % 2), 2);
		if (kind == 0) {
			f = inatest::parameter(job, seq, idx);
		} else if (kind == 1) {
			f.flags = INA_F_RESEND;
		} else if (kind == 2) {
			f.levels = 2;
			f.level = 1;
			f.bitmaps[1] = f.bitmaps[0];
			f.bitmaps[0] = 0xFFFFFFFF;
			f.fan_ins[1] = 2;
			f.flags = rng() % 2 ? INA_F_RESEND : 0;
		}
		refused += run(sw, f, share.at(job), now).reason == Counter::share_refusals;
		if (now % 97 == 0)
			sw.table->sweep(&cursor, 4, now, c.gc_timeout, nullptr, nullptr);
		for (const auto &[j, limit] : share) {
			ASSERT_EQ(sw.table->held(j), slots_of(sw, j)) << "job " << j << " after packet " << now;
			ASSERT_LE(sw.table->held(j), limit) << "job " << j << " after packet " << now;
		}
	}
	EXPECT_GT(refused, 100u) << "the limits were reached";
	EXPECT_EQ(refused, sw.count(Counter::share_refusals));
}

} /* namespace */
