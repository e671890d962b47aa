/* SPDX-License-Identifier: BSD-3-Clause
 *
 * AggregatorTable configuration, register access, counters and peek().
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"

namespace {

ina::PipelineConfig config(uint32_t aggregators, uint32_t stride = 1, uint32_t offset = 0, uint16_t elements = 62)
{
	ina::PipelineConfig c;
	c.aggregators = aggregators;
	c.stride = stride;
	c.offset = offset;
	c.elements = elements;
	return c;
}

TEST(Table, RejectsBadConfig)
{
	EXPECT_THROW(ina::AggregatorTable(config(0)), std::invalid_argument);
	EXPECT_THROW(ina::AggregatorTable(config(64, 0)), std::invalid_argument);
	EXPECT_THROW(ina::AggregatorTable(config(64, 2, 2)), std::invalid_argument);
	EXPECT_THROW(ina::AggregatorTable(config(64, 1, 0, 0)), std::invalid_argument);
	EXPECT_THROW(ina::AggregatorTable(config(64, 1, 0, INA_MAX_ELEMENTS + 1)), std::invalid_argument);
	EXPECT_NO_THROW(ina::AggregatorTable(config(64, 1, 0, INA_MAX_ELEMENTS)));
	EXPECT_NO_THROW(ina::AggregatorTable(config(1)));
}

TEST(Table, InterleavedOwnership)
{
	ina::AggregatorTable t(config(10, 3, 1));
	EXPECT_EQ(t.slots(), 3u); /* 1, 4, 7 */
	std::set<uint32_t> owned;
	for (uint32_t i = 0; i < 20; i++)
		if (t.owns(i))
			owned.insert(i);
	EXPECT_EQ(owned, (std::set<uint32_t>{1, 4, 7}));
	ina::AggregatorTable t2(config(10, 3, 0));
	EXPECT_EQ(t2.slots(), 4u); /* 0, 3, 6, 9 */
	EXPECT_TRUE(t2.owns(9));
	EXPECT_FALSE(t2.owns(12));
}

TEST(Table, WriteReadRoundTripAndClear)
{
	ina::AggregatorTable t(config(16, 2, 1, 20));
	ina::AggregatorState s;
	s.occupied = true;
	s.job = 3;
	s.seq = 0xDEADBEEF;
	s.timestamp = 1234567890123ull;
	s.bitmap = 0x80000001u;
	s.count = 2;
	s.ecn = true;
	s.col = false;
	s.overflow = true;
	int32_t v[20];
	for (int i = 0; i < 20; i++)
		v[i] = i * -1000;
	t.write(7, s, v, 20);
	EXPECT_EQ(t.occupied(), 1u);
	ina::AggregatorState r = t.read(7);
	EXPECT_TRUE(r.occupied);
	EXPECT_EQ(r.job, 3);
	EXPECT_EQ(r.seq, 0xDEADBEEFu);
	EXPECT_EQ(r.timestamp, 1234567890123ull);
	EXPECT_EQ(r.bitmap, 0x80000001u);
	EXPECT_EQ(r.count, 2u);
	EXPECT_TRUE(r.ecn);
	EXPECT_FALSE(r.col);
	EXPECT_TRUE(r.overflow);
	EXPECT_EQ(std::memcmp(r.value, v, sizeof(v)), 0);
	EXPECT_THROW(t.write(6, s, v, 20), std::invalid_argument); /* not this lcore's */
	EXPECT_FALSE(t.read(6).occupied);
	t.clear();
	EXPECT_EQ(t.occupied(), 0u);
	EXPECT_FALSE(t.read(7).occupied);
}

/* Counts what a caller-provided allocator hands out and gets back. */
struct ArenaLog {
	std::vector<std::pair<void *, size_t>> live;
	size_t allocated = 0, freed = 0;
	size_t fail_after = SIZE_MAX; /* allocations that succeed */
};

void *arena_alloc(size_t bytes, size_t align, void *ctx)
{
	auto *log = static_cast<ArenaLog *>(ctx);
	if (log->live.size() >= log->fail_after)
		return nullptr;
	void *p = std::aligned_alloc(align, bytes);
	std::memset(p, 0xA5, bytes); /* the table must zero it itself */
	log->live.emplace_back(p, bytes);
	log->allocated += bytes;
	return p;
}

void arena_free(void *p, void *ctx)
{
	auto *log = static_cast<ArenaLog *>(ctx);
	for (auto it = log->live.begin(); it != log->live.end(); ++it)
		if (it->first == p) {
			log->freed += it->second;
			log->live.erase(it);
			std::free(p);
			return;
		}
	ADD_FAILURE() << "freed memory the allocator did not hand out";
}

/* Occupies global index i with <job, seq = i> at time ts. */
void hold(ina::AggregatorTable &t, uint32_t i, uint16_t job, uint64_t ts)
{
	ina::AggregatorState s;
	s.occupied = true;
	s.job = job;
	s.seq = i;
	s.timestamp = ts;
	s.bitmap = 1;
	s.count = 1;
	t.write(i, s, nullptr, 0);
}

void count_job(uint16_t job, void *ctx)
{
	static_cast<std::vector<uint16_t> *>(ctx)->push_back(job);
}

TEST(Table, SweepFreesOnlyIdleSlotsAFewAtATime)
{
	ina::AggregatorTable t(config(8, 2, 0)); /* slots 0, 2, 4, 6 */
	hold(t, 0, 1, 100); /* idle */
	hold(t, 2, 2, 950); /* fresh */
	hold(t, 6, 3, 10);  /* idle */
	std::vector<uint16_t> freed;
	uint32_t cursor = 0;
	/* now 1000, timeout 500: two slots looked at, one idle among them. */
	EXPECT_EQ(t.sweep(&cursor, 2, 1000, 500, count_job, &freed), 1u);
	EXPECT_EQ(cursor, 2u);
	EXPECT_FALSE(t.read(0).occupied);
	EXPECT_TRUE(t.read(2).occupied);
	EXPECT_TRUE(t.read(6).occupied) << "not looked at yet";
	EXPECT_EQ(t.sweep(&cursor, 2, 1000, 500, count_job, &freed), 1u);
	EXPECT_EQ(cursor, 0u) << "the cursor wraps";
	EXPECT_EQ(freed, (std::vector<uint16_t>{1, 3}));
	EXPECT_EQ(t.occupied(), 1u);
	const ina::AggregatorState st = t.read(6);
	EXPECT_EQ(st.bitmap, 0u);
	EXPECT_EQ(st.count, 0u);
	/* A timestamp from the future (another clock) is never stale; timeout
	 * 0 frees nothing. */
	hold(t, 4, 4, 5000);
	EXPECT_EQ(t.sweep(&cursor, 100, 1000, 500, nullptr, nullptr), 0u);
	EXPECT_EQ(t.sweep(&cursor, 100, 1000000, 0, nullptr, nullptr), 0u);
	EXPECT_EQ(t.occupied(), 2u);
	EXPECT_EQ(t.sweep(&cursor, 100, 1000000, 500, nullptr, nullptr), 2u);
	EXPECT_EQ(t.occupied(), 0u);
}

TEST(Table, PurgeFreesEveryAggregatorOfTheNamedJobs)
{
	ina::AggregatorTable t(config(16));
	for (uint32_t i = 0; i < 16; i++)
		hold(t, i, static_cast<uint16_t>(1 + i % 3), 0);
	std::vector<uint16_t> freed;
	auto job2 = [](uint16_t job, void *) { return job == 2; };
	EXPECT_EQ(t.purge(job2, count_job, &freed), 5u); /* 1, 4, 7, 10, 13 */
	EXPECT_EQ(freed, std::vector<uint16_t>(5, 2));
	EXPECT_EQ(t.occupied(), 11u);
	for (uint32_t i = 0; i < 16; i++)
		EXPECT_EQ(t.read(i).occupied, i % 3 != 1) << i;
	EXPECT_EQ(t.purge(job2, nullptr, nullptr), 0u);
}

TEST(Table, EpochRoundTripsAndPurgeMatchesEveryEpochOfTheJob)
{
	ina::AggregatorTable t(config(16));
	for (uint32_t i = 0; i < 4; i++) {
		ina::AggregatorState s;
		s.occupied = true;
		s.epoch = static_cast<uint8_t>(i * 85); /* 0, 85, 170, 255 */
		s.job = 0xFFFF;
		s.seq = 0xFFFFFFFFu - i;
		t.write(i, s, nullptr, 0);
	}
	for (uint32_t i = 0; i < 4; i++) {
		EXPECT_EQ(t.read(i).epoch, i * 85) << i;
		EXPECT_EQ(t.read(i).job, 0xFFFF) << "the epoch does not spill into the job";
		EXPECT_EQ(t.read(i).seq, 0xFFFFFFFFu - i);
	}
	std::vector<uint16_t> freed;
	auto all = [](uint16_t job, void *) { return job == 0xFFFF; };
	EXPECT_EQ(t.purge(all, count_job, &freed), 4u);
	EXPECT_EQ(freed, std::vector<uint16_t>(4, 0xFFFF));
}

TEST(Table, RegistersComeFromTheCallersAllocator)
{
	ArenaLog log;
	ina::RegisterAllocator mem{arena_alloc, arena_free, &log};
	{
		ina::AggregatorTable t(config(100, 2, 1, 20), ina::SimdLevel::kScalar, mem);
		EXPECT_EQ(log.live.size(), 6u); /* id, bitmap, count, flags, value, job_held */
		EXPECT_EQ(t.register_bytes(), log.allocated);
		/* 50 slots x 32 int32 (20 rounded up to 16) of values alone */
		EXPECT_GE(t.register_bytes(), 50u * 32 * sizeof(int32_t));
		for (const auto &a : log.live)
			EXPECT_EQ(reinterpret_cast<uintptr_t>(a.first) % 64, 0u);
		ina::AggregatorState s = t.read(1);
		EXPECT_FALSE(s.occupied);
		for (int i = 0; i < 20; i++)
			EXPECT_EQ(s.value[i], 0) << "element " << i;
		EXPECT_EQ(t.occupied(), 0u);
	}
	EXPECT_TRUE(log.live.empty());
	EXPECT_EQ(log.freed, log.allocated);

	/* Out of memory half-way: what was allocated goes back. */
	log.fail_after = 3;
	EXPECT_THROW(ina::AggregatorTable(config(100), ina::SimdLevel::kScalar, mem), std::bad_alloc);
	EXPECT_TRUE(log.live.empty());
	EXPECT_EQ(log.freed, log.allocated);
}

TEST(Table, SimdLevelAboveCpuRejected)
{
	if (ina::simd_best() == ina::SimdLevel::kAvx512)
		GTEST_SKIP() << "this CPU has every SIMD level";
	EXPECT_THROW(ina::AggregatorTable(config(4), ina::SimdLevel::kAvx512), std::invalid_argument);
}

TEST(Counters, NamesRoundTrip)
{
	std::set<std::string> names;
	for (size_t i = 0; i < ina::kCounterCount; i++) {
		auto c = static_cast<ina::Counter>(i);
		const char *n = ina::counter_name(c);
		ASSERT_NE(n, nullptr);
		ASSERT_NE(ina::counter_help(c), nullptr);
		EXPECT_GT(std::strlen(ina::counter_help(c)), 5u);
		names.insert(n);
		ina::Counter back;
		ASSERT_TRUE(ina::counter_from_name(n, &back));
		EXPECT_EQ(back, c);
	}
	EXPECT_EQ(names.size(), ina::kCounterCount);
	ina::Counter c;
	EXPECT_FALSE(ina::counter_from_name("no_such_counter", &c));
	EXPECT_EQ(ina::counter_name(ina::Counter::kCount), nullptr);
}

TEST(Peek, ReadsFixedFields)
{
	auto g = inatest::gradient(513, 0x01020304, 77, 0x1, 1, 10);
	g.flags = INA_F_RESEND | INA_F_ECN;
	inatest::Frame f = inavec::build_frame(g);
	ina::InaView v{};
	ASSERT_TRUE(ina::peek(f.data(), static_cast<uint32_t>(f.size()), &v));
	EXPECT_EQ(v.ina_offset, INA_HDR_OFFSET);
	EXPECT_EQ(v.type, INA_TYPE_DATA);
	EXPECT_EQ(v.flags, INA_F_RESEND | INA_F_ECN);
	EXPECT_EQ(v.job, 513);
	EXPECT_EQ(v.seq, 0x01020304u);
	EXPECT_EQ(v.agg_index, 77u);
	EXPECT_EQ(v.elem_count, 10);
}

TEST(Peek, RejectsOtherTrafficAndShortFrames)
{
	auto g = inatest::gradient(1, 1, 1, 0x1, 1);
	ina::InaView v{};
	inatest::Frame f = inavec::build_frame(g);
	EXPECT_FALSE(ina::peek(f.data(), INA_HDR_OFFSET + INA_HDR_LEN - 1, &v));
	EXPECT_TRUE(ina::peek(f.data(), INA_HDR_OFFSET + INA_HDR_LEN, &v));
	g.udp_dport = 53;
	f = inavec::build_frame(g);
	EXPECT_FALSE(ina::peek(f.data(), static_cast<uint32_t>(f.size()), &v));
	g.udp_dport.reset();
	g.eth_type = 0x86DD;
	f = inavec::build_frame(g);
	EXPECT_FALSE(ina::peek(f.data(), static_cast<uint32_t>(f.size()), &v));
	EXPECT_FALSE(ina::peek(f.data(), 0, &v));
}

} /* namespace */
