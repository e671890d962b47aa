/* SPDX-License-Identifier: BSD-3-Clause
 * ina-ps --threads: the shard function and its consistency with the PS
 * partition (ps_count), sharded ParameterServers (ownership, per-shard
 * window, sums, collisions and the float path), the kernel steering program
 * against ps_shard(), and the hand-off ring and doorbell across threads. */
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "ina/frame_ring.h"
#include "ina/hash.h"
#include "ina/ps.h"
#include "ina/ps_steering.h"
#include "ps_test_util.h"

using namespace ina;
using namespace ina_test;

namespace {

Endpoint ps_self() { return Endpoint{{2, 0, 0, 0, 0, 0xFE}, 0x0A0000FE, INA_UDP_PORT}; }

PsJobConfig flat_job(uint16_t id, uint32_t n)
{
	PsJobConfig c;
	c.job = id;
	c.elements = 4;
	c.aggregators = 1000;
	c.window = 64;
	c.levels = 1;
	c.fan_in[0] = static_cast<uint8_t>(n);
	for (uint32_t i = 0; i < n; i++) {
		PsWorker w;
		w.ip = 0x0A000001 + i;
		uint8_t mac[6] = {2, 0, 0, 0, 1, static_cast<uint8_t>(i)};
		memcpy(w.mac, mac, 6);
		w.bit[0] = static_cast<uint8_t>(i);
		c.workers.push_back(w);
	}
	return c;
}

/* `shards` ParameterServers of one PS instance, as ina-ps runs them; feed()
 * routes a packet by shard_of(), as the daemon's threads do. */
struct Sharded {
	std::vector<std::unique_ptr<ParameterServer>> ps;
	TxQueue tx{1024};
	uint64_t now = 1000000; /* microseconds; the PS takes nanoseconds */
	Sharded(const PsJobConfig &c, uint32_t shards)
	{
		for (uint32_t i = 0; i < shards; i++) {
			ps.push_back(std::make_unique<ParameterServer>(ps_self(), i, shards));
			std::string err;
			EXPECT_TRUE(ps.back()->add_job(c, &err)) << err;
		}
	}
	std::vector<Out> feed(const Pkt &p)
	{
		auto f = build(p);
		uint32_t s = ps[0]->shard_of(f.data(), uint32_t(f.size()));
		ps[s]->handle(f.data(), uint32_t(f.size()), now * 1000, tx);
		return drain(tx);
	}
	PsJobStats st(uint16_t job) const
	{
		PsJobStats sum;
		for (const auto &p : ps)
			ps_add_stats(sum, *p->job_stats(job));
		return sum;
	}
};

} // namespace

TEST(PsShards, EverySeqHasOneOwnerAndShardsAreBalanced)
{
	/* 3 PS instances x 4 threads: each seq is served by exactly one
	 * thread of one instance, and each thread gets a quarter of its
	 * instance's share (seq % 4 alone would not: 3 and 4 share no factor,
	 * but with ps_count 2 and 2 threads seq % 2 would give one thread all). */
	for (uint32_t ps_count : {1u, 2u, 3u}) {
		std::vector<uint32_t> per(ps_count * 4, 0);
		for (uint32_t seq = 0; seq < 12000; seq++)
			per[(seq % ps_count) * 4 + ps_shard(seq, ps_count, 4)]++;
		for (uint32_t n : per)
			EXPECT_EQ(n, 12000 / (ps_count * 4)) << "ps_count " << ps_count;
	}
	EXPECT_EQ(ps_shard_window(4096, 1), 4096u);
	EXPECT_EQ(ps_shard_window(4096, 2), 2048u);
	EXPECT_EQ(ps_shard_window(4096, 3), 2048u); /* 1366 rounded up */
	EXPECT_EQ(ps_shard_window(1, 5), 1u);
}

TEST(PsShards, ShardsCompleteTheirFragmentsAndDropOthers)
{
	PsJobConfig c = flat_job(9, 2);
	c.window = 16;
	c.ps_count = 2;
	c.ps_index = 1;
	Sharded t{c, 3};
	uint64_t acks = 0;
	for (uint32_t seq = 1; seq < 6000; seq += 2) {
		acks += t.feed(from_worker(9, seq, 1, {int32_t(seq), 1, 2, 3})).size();
		auto a = t.feed(from_worker(9, seq, 0, {1, 1, 1, -4}));
		ASSERT_EQ(a.size(), 2u) << seq;
		EXPECT_EQ(a[0].seq, seq);
		EXPECT_EQ(a[0].values[0], int32_t(seq) + 1);
		EXPECT_EQ(a[0].values[3], -1);
		acks += a.size();
	}
	EXPECT_EQ(acks, 6000u);
	PsJobStats st = t.st(9);
	EXPECT_EQ(st.completed, 3000u);
	EXPECT_EQ(st.evicted_incomplete, 0u);
	EXPECT_EQ(st.other_shard, 0u);
	/* Each shard ends with about a third of the fragments. */
	for (const auto &p : t.ps)
		EXPECT_EQ(p->job_stats(9)->completed, 1000u);
	/* A fragment handed to the wrong thread is dropped and counted: its
	 * state must never be split between two shards. */
	auto f = build(from_worker(9, 6001, 0, {1, 1, 1, 1}));
	uint32_t owner = t.ps[0]->shard_of(f.data(), uint32_t(f.size()));
	EXPECT_EQ(owner, ps_shard(6001, 2, 3));
	t.ps[(owner + 1) % 3]->handle(f.data(), uint32_t(f.size()), t.now * 1000, t.tx);
	EXPECT_EQ(t.st(9).other_shard, 1u);
	/* The shard's ring (8 slots: 16 / 3 rounded up) spans at least the
	 * job's 16 rounds and at most 8 x 3: a packet 15 rounds back finds its
	 * done fragment, one 48 rounds back is stale. */
	t.feed(from_worker(9, 5999 - 2 * 48, 0, {1, 1, 1, 1}));
	EXPECT_EQ(t.st(9).stale, 1u);
	EXPECT_EQ(t.feed(from_worker(9, 5999 - 2 * 15, 0, {1, 1, 1, 1})).size(), 1u); /* ACK re-sent */
}

TEST(PsShards, SumsCollisionsAndFloatPathAcrossShards)
{
	PsJobConfig c = flat_job(4, 2);
	Sharded t{c, 2};
	for (uint32_t seq = 0; seq < 8; seq++) {
		Pkt p = from_worker(4, seq, 0, {int32_t(seq), -1, 2000000000, 7});
		if (seq == 3)
			p.flags |= INA_F_COLLISION | INA_F_RESEND;
		EXPECT_TRUE(t.feed(p).empty());
	}
	for (uint32_t seq = 0; seq < 8; seq++) {
		/* seq 5 saturates int32 at the PS: float requests to both. */
		int32_t big = seq == 5 ? 2000000000 : 1;
		auto a = t.feed(from_worker(4, seq, 1, {1, 1, big, 1}));
		if (seq == 5) {
			ASSERT_EQ(a.size(), 2u);
			EXPECT_EQ(a[0].flags, INA_F_OVERFLOW | INA_F_RESEND | INA_F_BYPASS);
			continue;
		}
		ASSERT_EQ(a.size(), 2u) << seq;
		EXPECT_EQ(a[0].values[0], int32_t(seq) + 1);
		EXPECT_EQ(a[0].values[1], 0);
		EXPECT_EQ(a[0].values[2], 2000000001);
		EXPECT_EQ(a[0].remap, seq == 3 ? aggregator_rehash(4, aggregator_index(4, 3, 1000), 1000) : INA_NO_REMAP);
	}
	for (uint32_t w = 0; w < 2; w++) {
		Pkt p = from_worker(4, 5, w, {});
		p.flags = INA_F_FLOAT | INA_F_RESEND | INA_F_BYPASS;
		p.floats = {1.5f, 2.0f, 3.0f, 4.0f};
		auto a = t.feed(p);
		if (w == 1) {
			ASSERT_EQ(a.size(), 2u);
			float x;
			memcpy(&x, &a[0].values[0], 4);
			EXPECT_EQ(x, 3.0f);
		}
	}
	/* Dedupe: worker 0 again for a done fragment gets its ACK re-sent. */
	EXPECT_EQ(t.feed(from_worker(4, 2, 0, {1, 1, 1, 1})).size(), 1u);
	PsJobStats st = t.st(4);
	EXPECT_EQ(st.completed, 8u);
	EXPECT_EQ(st.overflows, 1u);
	EXPECT_EQ(st.remaps, 1u);
	EXPECT_EQ(st.after_done, 1u);
	EXPECT_EQ(t.ps[0]->job_stats(4)->completed + t.ps[1]->job_stats(4)->completed, 8u);
	EXPECT_EQ(t.ps[0]->job_stats(4)->completed, 4u);
}

TEST(PsShards, ShardOfSendsEverythingButDataToShardZero)
{
	PsJobConfig c = flat_job(9, 2);
	Sharded t{c, 4};
	auto f = build(from_worker(9, 7, 0, {1, 1, 1, 1}));
	EXPECT_EQ(t.ps[0]->shard_of(f.data(), uint32_t(f.size())), 3u);
	EXPECT_EQ(t.ps[0]->shard_of(f.data(), 30), 0u);                       /* short */
	auto u = build(from_worker(10, 7, 0, {1, 1, 1, 1}));                   /* unknown job */
	EXPECT_EQ(t.ps[0]->shard_of(u.data(), uint32_t(u.size())), 0u);
	f[INA_HDR_OFFSET + offsetof(struct ina_hdr, type)] = INA_TYPE_CONTROL; /* malformed control */
	EXPECT_EQ(t.ps[0]->shard_of(f.data(), uint32_t(f.size())), 0u);
}

TEST(PsSteering, ProgramAgreesWithPsShard)
{
	std::vector<PsJobConfig> jobs = {flat_job(1, 2), flat_job(2, 2), flat_job(300, 2)};
	jobs[1].ps_count = 3;
	jobs[2].ps_count = 2;
	for (uint32_t shards : {2u, 3u, 5u}) {
		std::string err;
		auto prog = ps_steering_program(jobs, shards, &err);
		ASSERT_FALSE(prog.empty()) << err;
		std::mt19937 rng(shards);
		for (int i = 0; i < 3000; i++) {
			const PsJobConfig &c = jobs[i % 3];
			uint32_t seq = rng();
			auto f = build(from_worker(c.job, seq, 0, {1, 2, 3, 4}));
			const uint8_t *h = f.data() + INA_HDR_OFFSET;
			uint32_t len = uint32_t(f.size()) - INA_HDR_OFFSET;
			ASSERT_EQ(ps_steering_run(prog, h, len), int64_t(ps_shard(seq, c.ps_count, shards)))
				<< "job " << c.job << " seq " << seq;
			/* shard_of (the software hand-off) and the kernel agree. */
			Sharded t{c, shards};
			ASSERT_EQ(t.ps[0]->shard_of(f.data(), uint32_t(f.size())), ps_shard(seq, c.ps_count, shards));
			if (i > 20)
				break; /* Sharded is costly; the interpreter loop above is the bulk */
		}
		for (int i = 0; i < 3000; i++) {
			const PsJobConfig &c = jobs[i % 3];
			uint32_t seq = rng();
			auto f = build(from_worker(c.job, seq, 0, {1}));
			ASSERT_EQ(ps_steering_run(prog, f.data() + INA_HDR_OFFSET, uint32_t(f.size()) - INA_HDR_OFFSET),
				  int64_t(ps_shard(seq, c.ps_count, shards)));
		}
		/* Control messages and runts go to thread 0. */
		auto f = build(from_worker(2, 7, 0, {1}));
		f[INA_HDR_OFFSET + offsetof(struct ina_hdr, type)] = INA_TYPE_CONTROL;
		EXPECT_EQ(ps_steering_run(prog, f.data() + INA_HDR_OFFSET, 44), 0);
		EXPECT_EQ(ps_steering_run(prog, f.data() + INA_HDR_OFFSET, 1), 0);
	}
	/* A job table the kernel could not take is refused, not truncated. */
	std::vector<PsJobConfig> many;
	for (uint16_t j = 1; j <= 1000; j++) {
		many.push_back(flat_job(j, 2));
		many.back().ps_count = 2;
	}
	std::string err;
	EXPECT_TRUE(ps_steering_program(many, 4, &err).empty());
	EXPECT_NE(err.find("BPF instructions"), std::string::npos) << err;
}

TEST(PsFrameRing, FullRingAndLongFramesAreRefused)
{
	PsFrameRing r(3, 100); /* rounded up to 4 slots */
	EXPECT_EQ(r.capacity(), 4u);
	uint8_t f[101] = {};
	EXPECT_FALSE(r.put(f, 101));
	for (int i = 0; i < 4; i++)
		EXPECT_TRUE(r.put(f, 10));
	EXPECT_FALSE(r.put(f, 10));
	EXPECT_EQ(r.ready(), 0u); /* not yet published */
	EXPECT_TRUE(r.publish());
	EXPECT_TRUE(r.busy());
	EXPECT_EQ(r.ready(), 4u);
	r.release(4);
	EXPECT_FALSE(r.busy());
	EXPECT_TRUE(r.put(f, 10));
}

TEST(PsFrameRing, FramesCrossThreadsInOrderAndIntact)
{
	constexpr uint32_t kFrames = 200000;
	PsFrameRing r(64, 64);
	Doorbell bell;
	std::atomic<bool> ok{true};
	std::thread consumer([&] {
		uint32_t next = 0;
		while (next < kFrames) {
			uint32_t n = r.ready();
			if (!n) {
				bell.arm();
				if (r.ready() == 0)
					bell.wait(1000);
				bell.disarm();
				continue;
			}
			for (uint32_t i = 0; i < n; i++) {
				uint32_t len;
				const uint8_t *f = r.frame(i, &len);
				uint32_t v;
				memcpy(&v, f, 4);
				if (v != next || len != 5 + next % 50 || f[len - 1] != uint8_t(next))
					ok = false;
				next++;
			}
			r.release(n);
		}
	});
	for (uint32_t i = 0; i < kFrames; i++) {
		uint8_t f[64];
		uint32_t len = 5 + i % 50;
		memcpy(f, &i, 4);
		f[len - 1] = uint8_t(i);
		while (!r.put(f, len)) {
			if (r.publish())
				bell.ring();
			std::this_thread::yield();
		}
		if (i % 16 == 15 && r.publish())
			bell.ring();
	}
	if (r.publish())
		bell.ring();
	consumer.join();
	EXPECT_TRUE(ok.load());
	EXPECT_FALSE(r.busy());
}

TEST(Doorbell, RingWakesASleeper)
{
	Doorbell bell;
	std::atomic<bool> armed{false};
	double slept_ms = 0;
	std::thread sleeper([&] {
		bell.arm();
		armed = true;
		auto t0 = std::chrono::steady_clock::now();
		bell.wait(5000000); /* 5 s unless rung */
		slept_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	});
	while (!armed)
		std::this_thread::yield();
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	bell.ring();
	sleeper.join();
	EXPECT_LT(slept_ms, 2000.0);
}
