/* SPDX-License-Identifier: BSD-3-Clause */
#include <gtest/gtest.h>

#include <set>

#include "ina/hash.h"
#include "ina/wire.h"
#include "ina/worker.h"
#include "ina/worker/remap.h"

using namespace ina;

TEST(Hash, Crc32CheckValue)
{
	EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);
}

TEST(Hash, IndexIsCrcOfJobAndSeqBigEndian)
{
	const uint8_t key[6] = {0x00, 0x07, 0x00, 0x00, 0x01, 0x02}; /* job 7, seq 258 */
	EXPECT_EQ(aggregator_index(7, 258, 1000), crc32(key, 6) % 1000);
	RemapTable t(7, 1000, 4096);
	EXPECT_EQ(t.original_index(258), crc32(key, 6) % 1000);
	EXPECT_EQ(t.index(258), t.original_index(258));
}

TEST(Hash, IndicesSpreadOverTheTable)
{
	RemapTable t(3, 64, 4096);
	std::set<uint32_t> seen;
	for (uint32_t s = 0; s < 1000; s++) {
		uint32_t i = t.index(s);
		ASSERT_LT(i, 64u);
		seen.insert(i);
	}
	EXPECT_EQ(seen.size(), 64u);
}

/* Epochs of 1024 fragments: a hint from the ACK of fragment f applies from
 * epoch(f) + 2, i.e. fragment 2048 on for f < 1024. */
constexpr uint64_t kEpoch = 1024;

/* A fragment with the same original index as `seq`, at or after `from`. */
static uint64_t same_original(const RemapTable &t, uint64_t seq, uint64_t from)
{
	uint32_t orig = t.original_index(static_cast<uint32_t>(seq));
	for (uint64_t s = from;; s++)
		if (s != seq && t.original_index(static_cast<uint32_t>(s)) == orig)
			return s;
}

TEST(Remap, HintMovesTheOriginalIndexTwoEpochsLater)
{
	RemapTable t(5, 128, 1000); /* rounded up to 1024 */
	ASSERT_EQ(t.epoch_fragments(), kEpoch);
	uint64_t seq = 17;
	uint32_t orig = t.original_index(17);
	uint32_t moved = aggregator_rehash(orig, 128);
	ASSERT_NE(moved, orig);
	EXPECT_TRUE(t.apply_hint(seq, moved));
	EXPECT_FALSE(t.apply_hint(seq, moved)); /* already known */
	/* Fragments in flight (this and the next epoch) keep their index. */
	EXPECT_EQ(t.index(seq), orig);
	uint64_t soon = same_original(t, seq, kEpoch);
	ASSERT_LT(soon, 2 * kEpoch);
	EXPECT_EQ(t.index(soon), orig);
	/* From epoch 2 on, the original index moves. */
	uint64_t later = same_original(t, seq, 2 * kEpoch);
	EXPECT_EQ(t.index(later), moved);
	/* Fragments with other original indices are untouched. */
	for (uint64_t s = 2 * kEpoch; s < 2 * kEpoch + 1000; s++)
		if (t.original_index(static_cast<uint32_t>(s)) != orig) {
			EXPECT_EQ(t.index(s), t.original_index(static_cast<uint32_t>(s)));
		}
	/* A collision at the new index (epoch 2) moves it again from epoch 4. */
	uint32_t again = aggregator_rehash(moved, 128);
	EXPECT_TRUE(t.apply_hint(later, again));
	EXPECT_EQ(t.index(later), moved);
	EXPECT_EQ(t.index(same_original(t, seq, 4 * kEpoch)), again);
}

TEST(Remap, ArrivalOrderDoesNotMatter)
{
	/* Two workers receive the same hints in opposite orders. */
	RemapTable a(9, 64, kEpoch), b(9, 64, kEpoch);
	uint64_t s0 = 5;
	uint32_t orig = a.original_index(5);
	uint64_t s1 = same_original(a, s0, kEpoch);        /* epoch 1 */
	uint64_t s2 = same_original(a, s0, 3 * kEpoch);    /* epoch 3 */
	uint32_t i2 = aggregator_rehash(orig, 64);          /* from epoch 2 */
	uint32_t i3 = aggregator_rehash(i2, 64);            /* from epoch 3 (hint in epoch 1) */
	uint32_t i5 = aggregator_rehash(i3, 64);            /* from epoch 5 */
	EXPECT_TRUE(a.apply_hint(s0, i2));
	EXPECT_TRUE(a.apply_hint(s1, i3));
	EXPECT_TRUE(a.apply_hint(s2, i5));
	EXPECT_TRUE(b.apply_hint(s2, i5));
	EXPECT_TRUE(b.apply_hint(s1, i3));
	EXPECT_TRUE(b.apply_hint(s0, i2));
	for (uint64_t s = 0; s < 7 * kEpoch; s++)
		ASSERT_EQ(a.index(s), b.index(s)) << s;
	EXPECT_EQ(a.index(same_original(a, s0, 0)), orig);
	EXPECT_EQ(a.index(same_original(a, s0, 2 * kEpoch)), i2);
	EXPECT_EQ(a.index(same_original(a, s0, 3 * kEpoch)), i3);
	EXPECT_EQ(a.index(same_original(a, s0, 5 * kEpoch)), i5);
}

TEST(Remap, OldChangesFoldWithoutLosingTheCurrentIndex)
{
	RemapTable t(2, 32, kEpoch);
	uint64_t s = 3;
	uint32_t orig = t.original_index(3);
	uint32_t idx = orig;
	/* One change per epoch for ten epochs: only four are kept apart. */
	for (uint32_t e = 0; e < 10; e++) {
		uint64_t f = same_original(t, s, e * kEpoch);
		ASSERT_LT(f, (e + 1) * kEpoch);
		idx = aggregator_rehash(idx, 32);
		EXPECT_TRUE(t.apply_hint(f, idx));
		/* The newest change is in force two epochs later. */
		EXPECT_EQ(t.index(same_original(t, s, (e + 2) * kEpoch)), idx);
	}
}

TEST(Remap, IgnoresNoRemapAndOutOfRange)
{
	RemapTable t(5, 128, kEpoch);
	uint32_t before = t.index(3 * kEpoch + 9);
	EXPECT_FALSE(t.apply_hint(9, INA_NO_REMAP));
	EXPECT_FALSE(t.apply_hint(9, 128));
	EXPECT_EQ(t.index(3 * kEpoch + 9), before);
}

/* The baselines of ATP's Figure 14 (docs/worker.md, "Aggregator index"). */
TEST(IndexPolicy, LinearIsSeqModNAndTakesNoHints)
{
	RemapTable t(7, 100, 4096, IndexPolicy{IndexPolicy::Linear, 0, 0});
	for (uint32_t s : {0u, 1u, 99u, 100u, 12345u})
		EXPECT_EQ(t.index(s), s % 100);
	EXPECT_FALSE(t.apply_hint(5, 42));
	EXPECT_EQ(t.index(5 + 3 * 4096), (5 + 3 * 4096) % 100);
}

TEST(IndexPolicy, StaticStaysInTheJobsRange)
{
	RemapTable t(3, 4096, 4096, IndexPolicy{IndexPolicy::Static, 1024, 2048});
	for (uint32_t s = 0; s < 5000; s++) {
		ASSERT_EQ(t.index(s), 1024 + s % 1024) << s;
	}
	EXPECT_FALSE(t.apply_hint(7, 3000));
	/* Two jobs' partitions are disjoint whatever their seqs. */
	RemapTable u(4, 4096, 4096, IndexPolicy{IndexPolicy::Static, 2048, 3072});
	for (uint32_t s = 0; s < 5000; s++)
		ASSERT_NE(t.index(s), u.index(s + 17));
}

TEST(IndexPolicy, ConfigKey)
{
	WorkerConfig c;
	std::string err;
	EXPECT_EQ(c.index.kind, IndexPolicy::Hash);
	ASSERT_TRUE(set_config_key(&c, "index", "linear", &err)) << err;
	EXPECT_EQ(c.index.kind, IndexPolicy::Linear);
	ASSERT_TRUE(set_config_key(&c, "index", "static:256-512", &err)) << err;
	EXPECT_EQ(c.index.kind, IndexPolicy::Static);
	EXPECT_EQ(c.index.first, 256u);
	EXPECT_EQ(c.index.end, 512u);
	ASSERT_TRUE(set_config_key(&c, "index", "hash", &err)) << err;
	EXPECT_EQ(c.index.kind, IndexPolicy::Hash);
	for (const char *bad : {"", "lin", "static", "static:5", "static:5-5", "static:9-3", "static:-4", "static:1-x"})
		EXPECT_FALSE(set_config_key(&c, "index", bad, &err)) << bad;
	/* The range must lie within the switch's aggregators. */
	c.ps.push_back(PsAddress{0x0A000001, {}});
	c.aggregators = 512;
	ASSERT_TRUE(set_config_key(&c, "index", "static:256-512", &err)) << err;
	EXPECT_TRUE(validate(c, &err)) << err;
	ASSERT_TRUE(set_config_key(&c, "index", "static:256-513", &err)) << err;
	EXPECT_FALSE(validate(c, &err));
	EXPECT_NE(err.find("static index range [256, 513)"), std::string::npos) << err;
}
