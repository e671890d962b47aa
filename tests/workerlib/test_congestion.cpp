/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Congestion control state machines with worked examples: ATP §3.7's AIMD
 * numbers and A2TP §4.3's equations (1)-(6).
 */
#include <gtest/gtest.h>

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

/* Link window fixed unless ECN, so the worked numbers stay simple. */
CcConfig worked_config()
{
	CcConfig c;
	c.kind = CcKind::a2tp;
	c.initial_window = 100;
	c.slow_start_increase = 0;
	c.avoidance_increase = 0;
	c.a2tp_h = 0.05;
	c.min_round_ns = 1000;
	return c;
}

} /* namespace */

TEST(A2tp, DefaultsAreThePapers)
{
	CcConfig c;
	EXPECT_DOUBLE_EQ(c.a2tp_w, 1.0 / 16); /* §6.1: w = g = 1/16 */
	EXPECT_DOUBLE_EQ(c.a2tp_g, 1.0 / 16);
	EXPECT_LT(c.a2tp_h, 0); /* H from eq. (14) */
	c.kind = CcKind::a2tp;
	auto cc = make_congestion_control(c, 450, 32);
	auto *a = dynamic_cast<A2tp *>(cc.get());
	ASSERT_NE(a, nullptr);
	EXPECT_NEAR(a->threshold(), 0.1145, 0.001);
}

TEST(A2tp, WorkedExampleEquations1To6)
{
	A2tp a(worked_config(), 0.05);
	ASSERT_EQ(a.window(), 100u);
	ASSERT_EQ(a.agg_window(), 100u);

	/* Round 1: 50 ACKs in one RTT, all with Col, no ECN.
	 * (1) alpha = 15/16 * 0 + 1/16 * 1 = 0.0625
	 * (3) gamma = 50 / 100 = 0.5
	 *     p = (0.0625 - 0.05) / 0.95 = 0.0131579
	 * (5) d = p^0.5 = 0.1147079
	 * (4) ACW = 100 (1 - d / 2) = 94.2646 */
	for (uint64_t k = 0; k < 49; k++)
		a.on_ack(ack(k, 100, false, true, 0));
	a.on_ack(ack(49, 100, false, true, 1000)); /* one RTT later: round ends */
	EXPECT_EQ(a.rounds(), 1u);
	EXPECT_DOUBLE_EQ(a.alpha(), 0.0625);
	EXPECT_DOUBLE_EQ(a.gamma(), 0.5);
	/* What the worker's statistics and --trace report as "straggling". */
	EXPECT_DOUBLE_EQ(static_cast<const CongestionControl &>(a).straggling(), 0.5);
	EXPECT_NEAR(a.acw(), 94.26460665, 1e-6);
	EXPECT_EQ(a.agg_window(), 94u);
	EXPECT_DOUBLE_EQ(a.beta(), 0);
	EXPECT_EQ(a.window(), 100u);

	/* Round 2: 100 ACKs, none with Col, half with ECN.
	 * (1) alpha = 15/16 * 0.0625 = 0.05859375, p = 0.00904605
	 * (3) gamma = 1, (5) d = p, (4) ACW = 94.2646 (1 - p / 2) = 93.8382
	 * (2) beta = 1/16 * 0.5 = 0.03125
	 * (6) LCW = 100 (1 - beta / 2) = 98.4375 */
	for (uint64_t k = 50; k < 149; k++)
		a.on_ack(ack(k, 200, k % 2 == 0, false, 1000));
	a.on_ack(ack(149, 200, false, false, 2000));
	EXPECT_EQ(a.rounds(), 2u);
	EXPECT_DOUBLE_EQ(a.alpha(), 0.05859375);
	EXPECT_DOUBLE_EQ(a.beta(), 0.03125);
	EXPECT_DOUBLE_EQ(a.gamma(), 1.0);
	EXPECT_NEAR(a.acw(), 93.83824536, 1e-6);
	EXPECT_DOUBLE_EQ(a.lcw(), 98.4375);
	EXPECT_EQ(a.window(), 98u);
	EXPECT_EQ(a.agg_window(), 93u);

	/* Round 3: a straggling job: one ACK (with Col) in the whole RTT.
	 * (1) alpha = 15/16 * 0.05859375 + 1/16 = 0.11743164, p = 0.07098067
	 * (3) gamma = 1 / 98.4375 = 0.01015873
	 * (5) d = p^gamma = 0.97348450: close to 1, the window nearly halves
	 * (4) ACW = 93.8382 (1 - d / 2) = 48.1632 */
	a.on_ack(ack(150, 250, false, true, 2500));
	a.end_round(3000, 250);
	EXPECT_NEAR(a.alpha(), 0.117431640625, 1e-12);
	EXPECT_NEAR(a.gamma(), 0.0101587302, 1e-9);
	EXPECT_NEAR(a.acw(), 48.16320652, 1e-6);
	EXPECT_EQ(a.agg_window(), 48u);
}

TEST(A2tp, NoCongestionGrowsAggregatorWindowUpToLinkWindow)
{
	CcConfig c = worked_config();
	A2tp a(c, 0.05);
	/* Cut ACW first so there is room to grow. */
	for (uint64_t k = 0; k < 49; k++)
		a.on_ack(ack(k, 100, false, true, 0));
	a.on_ack(ack(49, 100, false, true, 1000));
	double acw = a.acw();
	ASSERT_LT(acw, 100);
	/* alpha decays below H after enough clean rounds; then +1 per round. */
	uint64_t now = 1000, k = 50;
	int grew = 0;
	for (int r = 0; r < 40; r++) {
		double before = a.acw();
		for (int i = 0; i < 100; i++, k++)
			a.on_ack(ack(k, k + 100, false, false, now));
		now += 1000;
		a.on_ack(ack(k, k + 100, false, false, now));
		k++;
		if (a.acw() > before)
			grew++;
		EXPECT_LE(a.acw(), a.lcw());
	}
	EXPECT_GE(grew, 5); /* from ~93 to 100 at +1 per round */
	EXPECT_DOUBLE_EQ(a.acw(), 100); /* capped by LCW */
}

TEST(A2tp, LossHalvesLinkWindowAndCapsAggregatorWindow)
{
	A2tp a(worked_config(), 0.05);
	a.on_loss(CcLoss{0, 100, false});
	EXPECT_EQ(a.window(), 50u);
	EXPECT_EQ(a.agg_window(), 50u);
}

TEST(A2tp, InitialAggregatorWindowOption)
{
	CcConfig c = worked_config();
	c.initial_acw = 3; /* the paper's Figure 3 example */
	A2tp a(c, 0.05);
	EXPECT_EQ(a.window(), 100u);
	EXPECT_EQ(a.agg_window(), 3u);
}

TEST(A2tp, BypassByHashIsAFunctionOfSeqAndTheShare)
{
	EXPECT_FALSE(bypass_by_hash(5, 100, 100)); /* ACW = LCW: nothing bypasses */
	EXPECT_FALSE(bypass_by_hash(5, 120, 100));
	uint32_t bypassed = 0;
	for (uint32_t seq = 0; seq < 16000; seq++) {
		bool b = bypass_by_hash(seq, 25, 100); /* a quarter uses the switch */
		EXPECT_EQ(b, bypass_by_hash(seq, 25, 100));
		bypassed += b;
	}
	EXPECT_NEAR(bypassed, 12000, 400);
	for (uint32_t seq = 0; seq < 1000; seq++)
		EXPECT_TRUE(bypass_by_hash(seq, 0, 100));
}

TEST(A2tp, GammaSmoothingOption)
{
	CcConfig c = worked_config();
	c.a2tp_gamma_smoothing = 1.0 / 64; /* the public code's variant */
	A2tp a(c, 0.05);
	for (uint64_t k = 0; k < 49; k++)
		a.on_ack(ack(k, 100, false, true, 0));
	a.on_ack(ack(49, 100, false, true, 1000));
	/* gamma = 63/64 * 1 + 1/64 * 0.5 */
	EXPECT_DOUBLE_EQ(a.gamma(), 63.0 / 64 + 0.5 / 64);
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
