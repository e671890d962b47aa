/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Congestion control state machines with worked examples: ATP §3.7's AIMD
 * numbers and A2TP §4.3's equations (1)-(6).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "ina/worker/congestion.h"

using namespace ina;

namespace {

CcAck ack(uint64_t k, uint64_t next_k, bool ecn = false, bool col = false, uint64_t now = 0, uint64_t srtt = 0)
{
	return CcAck{k, next_k, ecn, col, now, srtt};
}

} /* namespace */

TEST(Atp, DefaultsAreThePapers)
{
	CcConfig c;
	EXPECT_EQ(c.kind, CcKind::atp);
	EXPECT_EQ(c.initial_window, 200);   /* "starts at 200 packets" */
	EXPECT_EQ(c.slow_start_increase, 5); /* one MTU = 5 packets per ACK */
	EXPECT_EQ(c.avoidance_increase, 5);  /* one MTU per window */
	AtpAimd a(c);
	EXPECT_EQ(a.window(), 200u);
	/* ATP estimates no straggling: reported as none. */
	EXPECT_DOUBLE_EQ(a.straggling(), 1.0);
}

TEST(Atp, SlowStartAddsOneMtuPerAck)
{
	CcConfig c;
	c.initial_ssthresh = 2048;
	AtpAimd a(c);
	for (uint64_t k = 0; k < 10; k++)
		a.on_ack(ack(k, 200));
	EXPECT_EQ(a.window(), 250u);
}

/* Without a threshold given, the window starts in congestion avoidance:
 * 200 packets are about a bandwidth-delay product already (congestion.h). */
TEST(Atp, DefaultThresholdIsTheInitialWindow)
{
	CcConfig c;
	AtpAimd a(c);
	EXPECT_EQ(a.ssthresh(), 200);
	for (uint64_t k = 0; k < 200; k++)
		a.on_ack(ack(k, 200 + k));
	EXPECT_GT(a.cwnd(), 204.8);
	EXPECT_LE(a.cwnd(), 205.0);
}

TEST(Atp, EcnHalvesOncePerWindowAndSetsThreshold)
{
	CcConfig c;
	c.initial_ssthresh = 2048;
	AtpAimd a(c);
	for (uint64_t k = 0; k < 10; k++)
		a.on_ack(ack(k, 200 + 5 * k));
	ASSERT_EQ(a.window(), 250u);
	/* ECN on the ACK of fragment 10 while fragments up to 300 were sent. */
	a.on_ack(ack(10, 300, true));
	EXPECT_EQ(a.window(), 125u);
	EXPECT_EQ(a.ssthresh(), 125);
	/* More marks from the same window: no second cut. */
	a.on_ack(ack(11, 300, true));
	a.on_ack(ack(299, 300, true));
	EXPECT_EQ(a.window(), 125u);
	/* A mark on a fragment sent after the cut halves again. */
	a.on_ack(ack(300, 400, true));
	EXPECT_EQ(a.window(), 62u);
}

TEST(Atp, AboveThresholdOneMtuPerWindow)
{
	CcConfig c;
	c.initial_ssthresh = 100;
	c.initial_window = 100;
	AtpAimd a(c);
	/* One window of ACKs (100) adds about 5 packets: sum of 5 / cwnd. */
	for (uint64_t k = 0; k < 100; k++)
		a.on_ack(ack(k, 100 + k));
	EXPECT_GT(a.cwnd(), 104.8);
	EXPECT_LE(a.cwnd(), 105.0);
}

TEST(Atp, LossHalvesLikeEcn)
{
	CcConfig c;
	AtpAimd a(c);
	a.on_loss(CcLoss{0, 200, false});
	EXPECT_EQ(a.window(), 100u);
	a.on_loss(CcLoss{5, 200, true}); /* same window */
	EXPECT_EQ(a.window(), 100u);
	a.on_loss(CcLoss{200, 300, true});
	EXPECT_EQ(a.window(), 50u);
}

TEST(Atp, WindowStaysWithinBounds)
{
	CcConfig c;
	c.max_window = 260;
	c.initial_ssthresh = 1000;
	AtpAimd a(c);
	for (uint64_t k = 0; k < 100; k++)
		a.on_ack(ack(k, k + 1));
	EXPECT_EQ(a.window(), 260u);
	for (uint64_t k = 0; k < 20; k++)
		a.on_loss(CcLoss{1000 * k, 1000 * k + 1, false});
	EXPECT_EQ(a.window(), 1u);
}

TEST(FixedWindow, NeverMoves)
{
	CcConfig c;
	c.kind = CcKind::none;
	c.initial_window = 64;
	auto cc = make_congestion_control(c, 1000, 2);
	cc->on_ack(ack(0, 1, true, true));
	cc->on_loss(CcLoss{0, 1, true});
	EXPECT_EQ(cc->window(), 64u);
	EXPECT_EQ(cc->agg_window(), 64u);
}

/* H from eq. (14) with C_min = 0, against the values A2TP §4.4 reads off
 * Figure 5: ~0.12 for 32 flows on 450 aggregators, 0.09 on 900. */
TEST(A2tp, ThresholdFromEquation14)
{
	EXPECT_NEAR(a2tp_threshold(450, 32), 0.1145, 0.001);
	EXPECT_NEAR(a2tp_threshold(900, 32), 0.0947, 0.001);
	EXPECT_NEAR(a2tp_threshold(900, 2), 0.0307, 0.001);
	EXPECT_LT(a2tp_threshold(450, 2), a2tp_threshold(450, 8));
	EXPECT_EQ(a2tp_threshold(4, 8), 0); /* no threshold needed */
}

namespace {

/* Link window fixed unless ECN, a fixed round time T of 100 us (1000 units
 * of the PS's clock), so the worked numbers stay simple. */
CcConfig worked_config()
{
	CcConfig c;
	c.kind = CcKind::a2tp;
	c.initial_window = 100;
	c.slow_start_increase = 0;
	c.avoidance_increase = 0;
	c.a2tp_h = 0.05;
	c.a2tp_round_ns = 100000;
	return c;
}

/* ACKs of fragments [from, to), the PS's stamps `step` units apart after
 * *clock (which ends at the last one's). */
void acks(A2tp &a, uint64_t from, uint64_t to, uint32_t *clock, uint32_t step, bool col, bool ecn_even = false)
{
	for (uint64_t k = from; k < to; k++) {
		CcAck x = ack(k, k + 100, ecn_even && k % 2 == 0, col);
		*clock += step;
		x.ps_clock = *clock;
		a.on_ack(x);
	}
}

} /* namespace */

TEST(A2tp, DefaultsAreThePapers)
{
	CcConfig c;
	EXPECT_DOUBLE_EQ(c.a2tp_w, 1.0 / 16); /* §6.1: w = g = 1/16 */
	EXPECT_DOUBLE_EQ(c.a2tp_g, 1.0 / 16);
	EXPECT_LT(c.a2tp_h, 0); /* H from eq. (14) */
	EXPECT_EQ(c.a2tp_round_ns, 0u); /* the shortest recent round */
	c.kind = CcKind::a2tp;
	auto cc = make_congestion_control(c, 450, 32);
	auto *a = dynamic_cast<A2tp *>(cc.get());
	ASSERT_NE(a, nullptr);
	EXPECT_NEAR(a->threshold(), 0.1145, 0.001);
	/* The first two rounds go out under the initial windows, all of them
	 * to the switch. */
	EXPECT_EQ(a->send_limit(), 400u);
	for (uint64_t k = 0; k < 400; k++)
		EXPECT_FALSE(a->bypass(k));
}

TEST(A2tp, WorkedExampleEquations1To6)
{
	A2tp a(worked_config(), 0.05);
	ASSERT_EQ(a.window(), 100u);
	ASSERT_EQ(a.agg_window(), 100u);

	/* Round 0 (fragments 0-99): every ACK with Col, the PS's stamps 10
	 * units apart: D = 99 gaps of 10, scaled to 100 fragments = 1000 = T.
	 * (1) alpha = 15/16 * 0 + 1/16 * 1 = 0.0625
	 * (2) beta = 15/16 * 1 (its start, as DCTCP's) + 0 = 0.9375
	 * (3) gamma = T / D = 1
	 *     p = (0.0625 - 0.05) / 0.95 = 0.0131579
	 * (5) d = p^1, (4) ACW = 100 (1 - d / 2) = 99.3421
	 * It schedules round 2 (fragments 200-299): its first 99 use the
	 * switch, the last one bypasses. */
	uint32_t clock = 5000;
	acks(a, 0, 100, &clock, 10, true);
	EXPECT_EQ(a.rounds(), 1u);
	EXPECT_EQ(a.cursor(), 100u);
	EXPECT_DOUBLE_EQ(a.alpha(), 0.0625);
	EXPECT_DOUBLE_EQ(a.beta(), 0.9375);
	EXPECT_DOUBLE_EQ(a.gamma(), 1.0);
	EXPECT_NEAR(a.acw(), 100 * (1 - (0.0125 / 0.95) / 2), 1e-9);
	EXPECT_EQ(a.agg_window(), 99u);
	EXPECT_EQ(a.send_limit(), 300u);
	EXPECT_FALSE(a.bypass(199)); /* round 1 keeps its windows */
	EXPECT_FALSE(a.bypass(298));
	EXPECT_TRUE(a.bypass(299));

	/* Round 1 (100-199): 50 ACKs 10 units apart, all with Col; 50 ACKs
	 * 30 apart, none with Col, every other one with ECN.
	 * (1) alpha = 15/16 * 0.0625 + 1/16 * 0.5 = 0.08984375
	 * (2) beta = 15/16 * 0.9375 + 1/16 * 0.25 = 0.89453125
	 * (3) D = 50 x 10 + 50 x 30 = 2000, gamma = T / D = 0.5: one round
	 *     time brought half of the round's ACKs; the job waits for someone
	 *     p = (0.08984375 - 0.05) / 0.95, (5) d = p^0.5
	 * (4) ACW = 99.3421 (1 - d / 2)
	 * (6) LCW = 100 (1 - beta / 2) = 55.2734, and ACW <= LCW.
	 * The first ECN mark already cut this worker's window as it came,
	 * once, by the beta of then: 100 (1 - 0.9375 / 2) = 53.125. */
	acks(a, 100, 150, &clock, 10, true);
	EXPECT_EQ(a.window(), 100u);
	acks(a, 150, 200, &clock, 30, false, true);
	EXPECT_EQ(a.rounds(), 2u);
	EXPECT_DOUBLE_EQ(a.alpha(), 0.08984375);
	EXPECT_DOUBLE_EQ(a.beta(), 0.89453125);
	EXPECT_DOUBLE_EQ(a.gamma(), 0.5);
	EXPECT_DOUBLE_EQ(a.lcw(), 100 * (1 - 0.89453125 / 2));
	double p = (0.08984375 - 0.05) / 0.95;
	double acw = 100 * (1 - (0.0125 / 0.95) / 2) * (1 - std::sqrt(p) / 2);
	EXPECT_NEAR(acw, 89.17, 0.01);
	EXPECT_DOUBLE_EQ(a.acw(), a.lcw()); /* capped by LCW */
	EXPECT_EQ(a.window(), 53u);
	/* Round 3 (300-354): LCW's 55 fragments, all within ACW. */
	EXPECT_EQ(a.send_limit(), 355u);
	EXPECT_FALSE(a.bypass(354));
	/* What the worker's statistics and --trace report as "straggling". */
	EXPECT_DOUBLE_EQ(static_cast<const CongestionControl &>(a).straggling(), 0.5);
}

/* Eq. (5): the same collisions cut a straggling job's ACW harder. */
TEST(A2tp, StragglerCutsHarderThanAJobThatKeepsUp)
{
	CcConfig c = worked_config();
	A2tp keeps_up(c, 0.05), straggles(c, 0.05);
	uint32_t c1 = 0, c2 = 0;
	acks(keeps_up, 0, 100, &c1, 10, true);
	acks(straggles, 0, 100, &c2, 10, true);
	acks(keeps_up, 100, 200, &c1, 10, true);
	acks(straggles, 100, 110, &c2, 10, true);
	acks(straggles, 110, 200, &c2, 110, true); /* D = 10 x 10 + 90 x 110 */
	EXPECT_DOUBLE_EQ(keeps_up.gamma(), 1.0);
	EXPECT_DOUBLE_EQ(straggles.gamma(), 0.1);
	EXPECT_DOUBLE_EQ(keeps_up.alpha(), straggles.alpha());
	double p = (keeps_up.alpha() - 0.05) / 0.95;
	double acw1 = 100 * (1 - (0.0125 / 0.95) / 2);
	EXPECT_NEAR(keeps_up.acw(), acw1 * (1 - p / 2), 1e-9);
	EXPECT_NEAR(straggles.acw(), acw1 * (1 - std::pow(p, 0.1) / 2), 1e-9);
	EXPECT_LT(straggles.acw(), keeps_up.acw() - 20);
}

/* Two workers of a job see the same parameter packets (the same PS stamps)
 * at other times, in another order, some twice: they send the same
 * fragments to the switch and the same ones around it. */
TEST(A2tp, WorkersAgreeOnEveryFragmentWhateverTheTiming)
{
	CcConfig c;
	c.kind = CcKind::a2tp;
	c.initial_window = 64;
	c.a2tp_h = 0.02;
	auto col = [](uint64_t k) { return k >= 300 && k < 1500 && (k * 2654435761u >> 7) % 10 < 4; };
	auto ecn = [](uint64_t k) { return (k * 40503u >> 3) % 50 == 0; };
	/* The PS's stamps: a steady pace, three times slower for a while (a
	 * straggler), tensors of 500 fragments with a pause between them. */
	auto ps_clock = [](uint64_t k) {
		return static_cast<uint32_t>(40 * k + (k > 1000 ? 80 * (std::min<uint64_t>(k, 2000) - 1000) : 0) +
					     (k / 500) * 100000 + (k * 2246822519u >> 9) % 7);
	};
	struct Run {
		A2tp cc;
		uint64_t rtt_ns;
		bool shuffle;
		std::map<uint64_t, bool> decided; /* k -> bypass, when first sent */
	};
	Run x{A2tp(c, 0.02), 5000, false, {}}, y{A2tp(c, 0.02), 9000, true, {}};
	const uint64_t n = 4000;
	for (Run *r : {&x, &y}) {
		/* Arrivals by time; each fragment's ACK one RTT after its sending
		 * (y: later, in pairs swapped and some twice). */
		std::multimap<uint64_t, uint64_t> arrivals;
		uint64_t now = 1, next = 0, acked = 0;
		while (acked < n) {
			while (next < n && next < r->cc.send_limit() && next - acked < r->cc.window()) {
				r->decided[next] = r->cc.bypass(next);
				uint64_t k = r->shuffle ? next ^ 1 : next;
				arrivals.emplace(now + r->rtt_ns, k);
				if (r->shuffle && next % 7 == 0)
					arrivals.emplace(now + r->rtt_ns, k);
				next++;
			}
			ASSERT_FALSE(arrivals.empty());
			auto it = arrivals.begin();
			now = it->first;
			uint64_t k = it->second;
			arrivals.erase(it);
			if (k >= next)
				continue;
			r->cc.on_ack(CcAck{k, next, ecn(k), col(k), now, r->rtt_ns, ps_clock(k), k % 500 == 0});
			acked = r->cc.cursor();
			now += 10;
		}
	}
	ASSERT_EQ(x.decided.size(), n);
	ASSERT_EQ(y.decided.size(), n);
	uint64_t bypassed = 0;
	for (uint64_t k = 0; k < n; k++) {
		ASSERT_EQ(x.decided[k], y.decided[k]) << "fragment " << k;
		bypassed += x.decided[k];
	}
	/* The collisions made some fragments bypass, and not all. */
	EXPECT_GT(bypassed, 50u);
	EXPECT_LT(bypassed, n - 300);
	EXPECT_GT(x.cc.rounds(), 20u);
	EXPECT_DOUBLE_EQ(x.cc.gamma(), y.cc.gamma());
}

/* Without collisions ACW is LCW, whatever LCW does: nothing bypasses. */
TEST(A2tp, NoCollisionsNothingBypasses)
{
	CcConfig c;
	c.kind = CcKind::a2tp;
	A2tp a(c, 0.1);
	uint64_t now = 1000;
	for (uint64_t k = 0; k < 20000; k++) {
		ASSERT_LT(k, a.send_limit());
		ASSERT_FALSE(a.bypass(k)) << k;
		a.on_ack(ack(k, k + 1, k % 97 == 0, false, now + 5000));
		now += 30;
	}
	EXPECT_GT(a.rounds(), 40u);
	EXPECT_DOUBLE_EQ(a.acw(), a.lcw());
}

/* A timeout halves what this worker keeps in flight, not the job's
 * schedule; three later ACKs (a suspected loss) cut nothing. */
TEST(A2tp, TimeoutCutsThisWorkersWindowOnly)
{
	A2tp a(worked_config(), 0.05);
	a.on_loss(CcLoss{0, 100, false});
	EXPECT_EQ(a.window(), 100u);
	a.on_loss(CcLoss{0, 100, true});
	EXPECT_EQ(a.window(), 50u);
	EXPECT_EQ(a.agg_window(), 100u);
	EXPECT_EQ(a.send_limit(), 200u);
	for (uint64_t k = 0; k < 200; k++)
		EXPECT_FALSE(a.bypass(k));
}

/* The fragments sent before a timeout time out together: one halving per
 * window. The cap then grows back per ACK, as ATP's window does, not per
 * round: at a cap of one a round of LCW fragments takes LCW round trips,
 * and a straggler held there keeps its leaders' fragments waiting past
 * their RTO (the lab's four-job Fig. 10 took seconds so). */
TEST(A2tp, CapHalvesOncePerWindowAndGrowsBackPerAck)
{
	CcConfig c = worked_config();
	c.avoidance_increase = 5;
	A2tp a(c, 0.05);
	for (uint64_t k = 0; k < 20; k++)
		a.on_loss(CcLoss{k, 100, true});
	EXPECT_EQ(a.window(), 50u);
	a.on_loss(CcLoss{100, 120, true});
	EXPECT_EQ(a.window(), 25u);
	/* Above its threshold: one MTU (5 packets) per cap of ACKs. */
	uint32_t clock = 0;
	acks(a, 0, 25, &clock, 10, false);
	EXPECT_EQ(a.window(), 29u);
	acks(a, 25, 100, &clock, 10, false);
	EXPECT_GE(a.window(), 40u);
	EXPECT_EQ(a.rounds(), 1u);
}

TEST(A2tp, InitialAggregatorWindowOption)
{
	CcConfig c = worked_config();
	c.initial_acw = 3; /* the paper's Figure 3 example */
	A2tp a(c, 0.05);
	EXPECT_EQ(a.window(), 100u);
	EXPECT_EQ(a.agg_window(), 3u);
	EXPECT_FALSE(a.bypass(2));
	EXPECT_TRUE(a.bypass(3));
	EXPECT_FALSE(a.bypass(102));
	EXPECT_TRUE(a.bypass(103));
}

TEST(A2tp, GammaSmoothingOption)
{
	CcConfig c = worked_config();
	c.a2tp_gamma_smoothing = 1.0 / 64; /* the public code's variant */
	A2tp a(c, 0.05);
	uint32_t clock = 0;
	acks(a, 0, 100, &clock, 10, true);
	acks(a, 100, 200, &clock, 20, false);
	/* round 0: gamma 1; round 1: 63/64 * 1 + 1/64 * 0.5 */
	EXPECT_DOUBLE_EQ(a.gamma(), 63.0 / 64 + 0.5 / 64);
}

/* By default the round time is LCW_round ACKs at the best pace of the last 5 to 10 s of the PS's
 * clock: a slower pace reads as straggling until it has been the job's
 * pace for that long. */
TEST(A2tp, DefaultRoundTimeIsTheBestRecentPace)
{
	CcConfig c = worked_config();
	c.a2tp_round_ns = 0;
	A2tp a(c, 0.05);
	uint32_t clock = 0;
	uint64_t k = 0;
	for (int r = 0; r < 5; r++, k += 100)
		acks(a, k, k + 100, &clock, 10, false);
	EXPECT_DOUBLE_EQ(a.gamma(), 1.0);
	acks(a, k, k + 100, &clock, 40, false);
	k += 100;
	EXPECT_DOUBLE_EQ(a.gamma(), 0.25);
	/* 12 s of the slower pace (12e7 units of 100 ns): it is the pace now. */
	while (clock < 12u * 10000000u) {
		acks(a, k, k + 100, &clock, 40000, false);
		k += 100;
	}
	acks(a, k, k + 100, &clock, 40000, false);
	EXPECT_DOUBLE_EQ(a.gamma(), 1.0);
}

/* The pause between two tensors (the application's compute, not the
 * job's pace) counts in no round: only the ACKs' gaps within a tensor. */
TEST(A2tp, PauseBetweenTensorsIsNotStraggling)
{
	A2tp a(worked_config(), 0.05);
	uint32_t clock = 0;
	acks(a, 0, 150, &clock, 10, false);
	/* Fragment 150 starts a tensor, 1 s after the last one's ACK. */
	CcAck x = ack(150, 250);
	x.ps_clock = clock += 10000000;
	x.tensor_start = true;
	a.on_ack(x);
	acks(a, 151, 200, &clock, 10, false);
	EXPECT_EQ(a.rounds(), 2u);
	EXPECT_DOUBLE_EQ(a.gamma(), 1.0);
	/* The same pause inside a tensor is the job waiting. */
	x = ack(200, 300);
	x.ps_clock = clock += 10000000;
	a.on_ack(x);
	acks(a, 201, 300, &clock, 10, false);
	EXPECT_LT(a.gamma(), 0.001);
}

/* Congestion on this worker's own path (IP CE on its copy of the parameter
 * packet, or a long delay) cuts what it keeps in flight, not the job's
 * schedule, which only the PS's marks move; ATP takes either as a mark. */
TEST(A2tp, OwnPathCongestionCutsOnlyThisWorker)
{
	A2tp a(worked_config(), 0.05);
	uint32_t clock = 0;
	for (uint64_t k = 0; k < 100; k++) {
		CcAck x = ack(k, k + 100);
		x.ps_clock = clock += 10;
		x.local_ecn = k % 2 == 0;
		a.on_ack(x);
	}
	EXPECT_EQ(a.rounds(), 1u);
	EXPECT_DOUBLE_EQ(a.lcw(), 100.0) << "the schedule saw no mark";
	EXPECT_DOUBLE_EQ(a.beta(), 15.0 / 16);
	EXPECT_EQ(a.send_limit(), 300u);
	EXPECT_LT(a.window(), 60u) << "this worker's own cap took eq. (6)";

	CcConfig c;
	AtpAimd atp(c);
	const double before = atp.cwnd();
	CcAck x = ack(0, 10);
	x.local_ecn = true;
	atp.on_ack(x);
	EXPECT_DOUBLE_EQ(atp.cwnd(), before / 2);
}

TEST(CcKind, Parse)
{
	CcKind k;
	EXPECT_TRUE(parse_cc_kind("a2tp", &k));
	EXPECT_EQ(k, CcKind::a2tp);
	EXPECT_TRUE(parse_cc_kind("none", &k));
	EXPECT_EQ(k, CcKind::none);
	EXPECT_FALSE(parse_cc_kind("dctcp", &k));
	EXPECT_STREQ(cc_kind_name(CcKind::atp), "atp");
}
