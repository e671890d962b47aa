/* SPDX-License-Identifier: BSD-3-Clause
 * The fault shim over real sockets (UDP on loopback): its statistics stay
 * within binomial bounds, the receiver sees exactly what the shim reports,
 * and the same seed gives the same faults. */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <unistd.h>

#include "ina/transport.h"
#include "ina/transport_faults.h"
#include "test_util.h"

using namespace ina;
using namespace ina_test;

namespace {

uint32_t local_ip(uint32_t host)
{
	uint32_t pid = static_cast<uint32_t>(getpid()) & 0xFFFF;
	return (127u << 24) | (pid << 8) | (100 + host);
}

struct FaultRun {
	FaultStats stats;
	std::vector<uint32_t> received; /* seqs in arrival order */
};

/* Sends kFrames frames a -> b with send-side faults, in bursts so that the
 * socket buffer never overflows; returns the shim's stats and what b got. */
FaultRun run_tx_faults(uint32_t host, double drop, double dup, double reorder, uint64_t seed,
		  uint32_t frames)
{
	TransportConfig ca;
	ca.kind = "udp";
	ca.ip = local_ip(host);
	ca.drop = drop;
	ca.duplicate = dup;
	ca.reorder = reorder;
	ca.seed = seed;
	TransportConfig cb;
	cb.kind = "udp";
	cb.ip = local_ip(host + 1);
	std::string err;
	auto a = open_transport(ca, &err);
	EXPECT_TRUE(a) << err;
	auto b = open_transport(cb, &err);
	EXPECT_TRUE(b) << err;
	FaultRun run;
	if (!a || !b)
		return run;
	EXPECT_STREQ(a->name(), "udp+faults");
	Endpoint src{{0}, ca.ip, INA_UDP_PORT};
	Endpoint dst{{0}, cb.ip, INA_UDP_PORT};
	Buf f;
	constexpr uint32_t kBurst = 256;
	for (uint32_t base = 0; base < frames; base += kBurst) {
		for (uint32_t i = base; i < std::min(frames, base + kBurst); i++) {
			f.fb.len = make_ina_frame(f.mem.data(), src, dst, 1, i, 8);
			EXPECT_EQ(a->send(&f.fb, 1), 1u);
		}
		/* Release a frame still held for reordering at the very end. */
		Buf scratch;
		a->recv(&scratch.fb, 1, 0);
		a->recv(&scratch.fb, 1, 0);
		FaultStats s;
		fault_stats(*a, &s);
		uint64_t expect = s.tx.frames - s.tx.dropped + s.tx.duplicated;
		recv_seqs(*b, &run.received,
			  static_cast<uint32_t>(expect - run.received.size()), 2000);
	}
	EXPECT_TRUE(fault_stats(*a, &run.stats));
	FaultStats plain;
	EXPECT_FALSE(fault_stats(*b, &plain)); /* b has no shim */
	return run;
}

/* |x - n p| <= 5 sigma of Binomial(n, p). */
void expect_binomial(uint64_t x, uint64_t n, double p, const char *what)
{
	double mean = n * p, sigma = std::sqrt(n * p * (1 - p));
	EXPECT_LE(std::fabs(double(x) - mean), 5 * sigma + 1)
		<< what << ": " << x << " of " << n << " at p=" << p;
}

} // namespace

TEST(TransportFaults, DropDuplicateReorderWithinBounds)
{
	constexpr uint32_t kN = 20000;
	FaultRun r = run_tx_faults(1, 0.05, 0.02, 0.03, 42, kN);
	EXPECT_EQ(r.stats.tx.frames, kN);
	expect_binomial(r.stats.tx.dropped, kN, 0.05, "dropped");
	/* Duplicates and reorders are drawn for every frame, but only act on
	 * frames that were not dropped. */
	expect_binomial(r.stats.tx.duplicated, kN - r.stats.tx.dropped, 0.02, "duplicated");
	expect_binomial(r.stats.tx.reordered, kN - r.stats.tx.dropped, 0.03, "reordered");
	EXPECT_EQ(r.stats.tx.overrun, 0u);

	/* The receiver got exactly what the shim let through. */
	ASSERT_EQ(r.received.size(), kN - r.stats.tx.dropped + r.stats.tx.duplicated);
	std::vector<uint32_t> sorted = r.received;
	std::sort(sorted.begin(), sorted.end());
	uint64_t dups = 0;
	for (size_t i = 1; i < sorted.size(); i++)
		dups += sorted[i] == sorted[i - 1];
	EXPECT_EQ(dups, r.stats.tx.duplicated);
	uint64_t distinct = sorted.size() - dups;
	EXPECT_EQ(distinct, kN - r.stats.tx.dropped);
	/* Reordering is visible as arrivals below an earlier maximum. */
	uint64_t late = 0;
	uint32_t hi = 0;
	for (uint32_t s : r.received) {
		if (s < hi)
			late++;
		hi = std::max(hi, s);
	}
	EXPECT_GT(late, r.stats.tx.reordered / 2);
	EXPECT_LE(late, r.stats.tx.reordered + r.stats.tx.duplicated);
}

TEST(TransportFaults, SameSeedSameFaults)
{
	FaultRun a = run_tx_faults(10, 0.1, 0.1, 0.1, 7, 3000);
	FaultRun b = run_tx_faults(10, 0.1, 0.1, 0.1, 7, 3000);
	FaultRun c = run_tx_faults(10, 0.1, 0.1, 0.1, 8, 3000);
	EXPECT_EQ(a.stats.tx.dropped, b.stats.tx.dropped);
	EXPECT_EQ(a.stats.tx.duplicated, b.stats.tx.duplicated);
	EXPECT_EQ(a.stats.tx.reordered, b.stats.tx.reordered);
	EXPECT_EQ(a.received, b.received);
	EXPECT_NE(a.received, c.received);
}

TEST(TransportFaults, ReceiveSideDropsAndDuplicates)
{
	TransportConfig ca;
	ca.kind = "udp";
	ca.ip = local_ip(20);
	TransportConfig cb = ca;
	cb.ip = local_ip(21);
	cb.drop = 0.2;
	cb.duplicate = 0.1;
	cb.seed = 3;
	std::string err;
	auto a = open_transport(ca, &err);
	auto b = open_transport(cb, &err);
	ASSERT_TRUE(a && b) << err;
	Endpoint src{{0}, ca.ip, INA_UDP_PORT};
	Endpoint dst{{0}, cb.ip, INA_UDP_PORT};
	constexpr uint32_t kN = 5000;
	std::vector<uint32_t> got;
	Buf f;
	for (uint32_t base = 0; base < kN; base += 250) {
		for (uint32_t i = base; i < base + 250; i++) {
			f.fb.len = make_ina_frame(f.mem.data(), src, dst, 1, i, 8);
			ASSERT_EQ(a->send(&f.fb, 1), 1u);
		}
		FaultStats s;
		/* Poll until the shim has seen all 250 of this burst. */
		for (int t = 0; t < 200; t++) {
			recv_seqs(*b, &got, 1u << 30, 5);
			ASSERT_TRUE(fault_stats(*b, &s));
			if (s.rx.frames == base + 250)
				break;
		}
	}
	recv_seqs(*b, &got, 1u << 30, 50);
	FaultStats s;
	ASSERT_TRUE(fault_stats(*b, &s));
	EXPECT_EQ(s.rx.frames, kN);
	expect_binomial(s.rx.dropped, kN, 0.2, "rx dropped");
	expect_binomial(s.rx.duplicated, kN - s.rx.dropped, 0.1, "rx duplicated");
	EXPECT_EQ(got.size(), kN - s.rx.dropped + s.rx.duplicated);
}
