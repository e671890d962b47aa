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
	/* A slot's: CRC-32 of <job, slot, salt>, then murmur3's fmix32. */
	const uint8_t salted[8] = {0x00, 0x07, 0x00, 0x00, 0x01, 0x02, 0x00, 0x03}; /* salt 3 */
	uint32_t h = crc32(salted, 8);
	h ^= h >> 16, h *= 0x85ebca6bu, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
	EXPECT_EQ(aggregator_slot_index(7, 258, 3, 1000), h % 1000);
}

/* ATP's end host: a fragment's slot is seq mod S (S = the in-flight span, at
 * most N), the slot's index the hash of <job, slot>, salted past the indices
 * the job's earlier slots took. */
TEST(Hash, SlotsOfAJobTakeDistinctAggregators)
{
	for (uint32_t n : {64u, 1000u, 4096u}) {
		RemapTable t(7, n, 256);
		const uint32_t s = n < 256 ? n : 256;
		ASSERT_EQ(t.slots(), s);
		EXPECT_EQ(t.original_index(0), aggregator_slot_index(7, 0, 0, n));
		std::set<uint32_t> seen;
		for (uint32_t q = 0; q < s; q++) {
			ASSERT_LT(t.original_index(q), n);
			seen.insert(t.original_index(q));
			/* seq and seq + S share their slot, so their aggregator. */
			EXPECT_EQ(t.index(q + 5 * uint64_t(s)), t.index(q));
		}
		EXPECT_EQ(seen.size(), s) << n;
	}
}

TEST(Hash, EveryWorkerOfAJobDrawsTheSameSlots)
{
	RemapTable a(9, 512, 256), b(9, 512, 256), other(10, 512, 256);
	uint32_t differ = 0;
	for (uint32_t q = 0; q < 256; q++) {
		ASSERT_EQ(a.original_index(q), b.original_index(q));
		differ += a.original_index(q) != other.original_index(q);
	}
	EXPECT_GT(differ, 200u); /* another job draws its own */
}

/* Modulo a power of two a bare CRC maps two jobs' slots onto the same
 * aggregators or onto disjoint ones; mixed, they overlap as random sets of
 * 256 in 512 do (about 128). */
TEST(Hash, TwoJobsOverlapAsRandomSets)
{
	for (uint16_t other : {2, 3, 17}) {
		RemapTable a(1, 512, 256), b(other, 512, 256);
		std::set<uint32_t> mine;
		for (uint32_t q = 0; q < 256; q++)
			mine.insert(a.original_index(q));
		uint32_t shared = 0;
		for (uint32_t q = 0; q < 256; q++)
			shared += mine.count(b.original_index(q));
		EXPECT_GT(shared, 80u) << other;
		EXPECT_LT(shared, 176u) << other;
	}
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
	uint32_t moved = aggregator_rehash(1, orig, 128);
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
	uint32_t again = aggregator_rehash(1, moved, 128);
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
	uint32_t i2 = aggregator_rehash(1, orig, 64);          /* from epoch 2 */
	uint32_t i3 = aggregator_rehash(1, i2, 64);            /* from epoch 3 (hint in epoch 1) */
	uint32_t i5 = aggregator_rehash(1, i3, 64);            /* from epoch 5 */
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
		idx = aggregator_rehash(1, idx, 32);
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
