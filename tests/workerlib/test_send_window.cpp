/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Sliding window and loss detection: the SACK rule (three later fragments
 * ACKed) for every hole, duplicates, timeouts; the RTT estimator.
 */
#include <gtest/gtest.h>

#include "ina/worker/rtt.h"
#include "ina/worker/send_window.h"

using namespace ina;
using Kind = SendWindow::AckKind;

namespace {

void send_n(SendWindow &w, uint32_t n, uint64_t now = 0)
{
	for (uint32_t i = 0; i < n; i++)
		w.send_new(now, false);
}

} /* namespace */

TEST(SendWindow, InOrderAcksSlideTheWindow)
{
	SendWindow w(64);
	send_n(w, 4, 100);
	EXPECT_EQ(w.in_flight(), 4u);
	auto o = w.on_ack(0, 350);
	EXPECT_EQ(o.kind, Kind::in_order);
	EXPECT_EQ(o.rtt_ns, 250u);
	EXPECT_EQ(o.lost, 0u);
	EXPECT_EQ(w.base(), 1u);
	EXPECT_EQ(w.in_flight(), 3u);
}

TEST(SendWindow, DuplicatesAndUnknownAreIgnored)
{
	SendWindow w(64);
	send_n(w, 4);
	w.on_ack(0, 1);
	EXPECT_EQ(w.on_ack(0, 2).kind, Kind::duplicate); /* below base */
	w.on_ack(2, 3);
	EXPECT_EQ(w.on_ack(2, 4).kind, Kind::duplicate); /* already ACKed */
	EXPECT_EQ(w.on_ack(7, 5).kind, Kind::unknown);   /* never sent */
	EXPECT_EQ(w.in_flight(), 2u);
	EXPECT_EQ(w.base(), 1u);
}

TEST(SendWindow, ThreeOutOfOrderAcksDeclareTheExpectedLost)
{
	SendWindow w(64);
	send_n(w, 10);
	w.on_ack(0, 1);
	/* Fragment 1 is lost: ACKs of 2, 3, 4 arrive. */
	auto a = w.on_ack(2, 2);
	EXPECT_EQ(a.kind, Kind::out_of_order);
	EXPECT_EQ(a.lost, 0u);
	EXPECT_EQ(w.on_ack(3, 3).lost, 0u);
	auto c = w.on_ack(4, 4);
	EXPECT_EQ(c.lost, 1u);
	EXPECT_EQ(w.lost_at(0), 1u);
	/* Fast retransmit happens once; more out-of-order ACKs do not repeat it. */
	w.resend(1, 5);
	for (uint64_t k = 5; k < 10; k++)
		EXPECT_EQ(w.on_ack(k, 6).lost, 0u);
	/* The retransmission's ACK gives no RTT sample (Karn). */
	auto r = w.on_ack(1, 100);
	EXPECT_EQ(r.kind, Kind::in_order);
	EXPECT_EQ(r.rtt_ns, 0u);
	EXPECT_EQ(w.base(), 10u);
	EXPECT_EQ(w.in_flight(), 0u);
}

TEST(SendWindow, ReorderWithinTheWindowIsNotALoss)
{
	/* Fragments sent 100 ns apart, a 1000 ns reorder window: ACKs of
	 * fragments sent less than 1000 ns after a missing one only reorder it. */
	SendWindow w(64);
	w.set_reorder_window(1000);
	for (uint64_t k = 0; k < 30; k++)
		w.send_new(k * 100, false);
	w.on_ack(0, 5000);
	for (uint64_t k = 2; k <= 10; k++)
		EXPECT_EQ(w.on_ack(k, 5000).lost, 0u) << "fragment " << k << " sent within the window";
	/* Fragment 11 left 1000 ns after fragment 1: now 1 counts as lost. */
	auto a = w.on_ack(11, 5000);
	ASSERT_EQ(a.lost, 1u);
	EXPECT_EQ(w.lost_at(0), 1u);
	/* The late ACK of a reordered fragment is an ordinary ACK. */
	w.set_reorder_window(100000);
	for (uint64_t k = 13; k < 20; k++)
		EXPECT_EQ(w.on_ack(k, 6000).lost, 0u);
	EXPECT_EQ(w.on_ack(12, 6000).kind, Kind::out_of_order);
}

TEST(SendWindow, TwoOutOfOrderAcksAreNotALoss)
{
	SendWindow w(64);
	send_n(w, 5);
	EXPECT_EQ(w.on_ack(1, 1).lost, 0u);
	EXPECT_EQ(w.on_ack(2, 1).lost, 0u);
	/* The expected one arrives: the count starts over. */
	EXPECT_EQ(w.on_ack(0, 1).kind, Kind::in_order);
	EXPECT_EQ(w.base(), 3u);
	EXPECT_EQ(w.on_ack(4, 1).lost, 0u);
}

TEST(SendWindow, EveryHoleIsFoundWithoutWaitingForTheOneBelow)
{
	SendWindow w(64);
	send_n(w, 10);
	/* 0 and 3 lost; 1, 2, 4, 5, 6 arrive. */
	w.on_ack(1, 1);
	w.on_ack(2, 1);
	auto c = w.on_ack(4, 1);
	ASSERT_EQ(c.lost, 1u);
	ASSERT_EQ(w.lost_at(0), 0u);
	w.resend(0, 2);
	EXPECT_EQ(w.on_ack(5, 3).lost, 0u);
	/* 4, 5, 6 ACKed after 3: 3 is lost, although 0 is still missing. */
	auto r = w.on_ack(6, 3);
	EXPECT_EQ(w.base(), 0u);
	EXPECT_EQ(r.lost, 1u);
	EXPECT_EQ(w.lost_at(0), 3u);
	/* The retransmitted 0 arrives: nothing new is lost. */
	EXPECT_EQ(w.on_ack(0, 4).lost, 0u);
	EXPECT_EQ(w.base(), 3u);
}

TEST(SendWindow, OneAckCanDeclareSeveralHoles)
{
	SendWindow w(64);
	send_n(w, 8);
	/* 0..4 stuck; 5, 6, 7 complete. */
	EXPECT_EQ(w.on_ack(5, 1).lost, 0u);
	EXPECT_EQ(w.on_ack(6, 1).lost, 0u);
	auto o = w.on_ack(7, 1);
	ASSERT_EQ(o.lost, 5u);
	for (uint32_t i = 0; i < 5; i++)
		EXPECT_EQ(w.lost_at(i), i);
	/* Later ACKs do not declare them again. */
	send_n(w, 4);
	for (uint64_t k = 8; k < 12; k++)
		EXPECT_EQ(w.on_ack(k, 2).lost, 0u);
}

TEST(SendWindow, TimeoutsListFragmentsOlderThanRto)
{
	SendWindow w(64);
	w.send_new(0, false);
	w.send_new(100, false);
	w.send_new(200, true);
	w.on_ack(1, 300);
	uint64_t out[8];
	EXPECT_EQ(w.collect_timeouts(150, 100, out, 8), 1u);
	EXPECT_EQ(out[0], 0u);
	EXPECT_EQ(w.collect_timeouts(1000, 100, out, 8), 2u);
	EXPECT_EQ(out[1], 2u);
	/* A retransmission restarts the fragment's clock. */
	w.resend(0, 1000);
	EXPECT_EQ(w.transmissions(0), 2u);
	EXPECT_EQ(w.collect_timeouts(1050, 100, out, 8), 1u);
	EXPECT_EQ(out[0], 2u);
}

TEST(SendWindow, TracksFragmentsBypassingTheSwitch)
{
	SendWindow w(64);
	w.send_new(0, false);
	w.send_new(0, true);
	w.send_new(0, true);
	EXPECT_EQ(w.in_flight(), 3u);
	EXPECT_EQ(w.in_flight_agg(), 1u);
	EXPECT_TRUE(w.bypassed(1));
	w.on_ack(1, 1);
	EXPECT_EQ(w.in_flight_agg(), 1u);
	w.on_ack(0, 1);
	EXPECT_EQ(w.in_flight_agg(), 0u);
}

TEST(SendWindow, CapacityBoundsTheSpan)
{
	SendWindow w(16);
	EXPECT_EQ(w.capacity(), 16u);
	send_n(w, 16);
	EXPECT_FALSE(w.has_room());
	w.on_ack(0, 1);
	EXPECT_TRUE(w.has_room());
}

TEST(Rtt, FollowsRfc6298)
{
	RttConfig c;
	c.initial_rto_ns = 1000000;
	c.min_rto_ns = 1000;
	c.max_rto_ns = 10000000;
	RttEstimator r(c);
	EXPECT_EQ(r.rto_ns(), 1000000u);
	EXPECT_FALSE(r.has_sample());
	r.sample(100000); /* srtt = 100 us, rttvar = 50 us, rto = 300 us */
	EXPECT_EQ(r.srtt_ns(), 100000u);
	EXPECT_EQ(r.rttvar_ns(), 50000u);
	EXPECT_EQ(r.rto_ns(), 300000u);
	r.sample(180000); /* rttvar = (3*50 + 80)/4 = 57.5 us; srtt = (7*100 + 180)/8 = 110 us */
	EXPECT_EQ(r.rttvar_ns(), 57500u);
	EXPECT_EQ(r.srtt_ns(), 110000u);
	EXPECT_EQ(r.rto_ns(), 110000u + 4 * 57500u);
	r.backoff();
	EXPECT_EQ(r.rto_ns(), 2 * (110000u + 4 * 57500u));
}

TEST(Rtt, RtoIsAtLeastTwiceSrtt)
{
	RttConfig c;
	c.min_rto_ns = 1000;
	RttEstimator r(c);
	for (int i = 0; i < 50; i++)
		r.sample(1000000);
	EXPECT_EQ(r.srtt_ns(), 1000000u);
	EXPECT_LT(r.rttvar_ns(), 1000u);
	EXPECT_EQ(r.rto_ns(), 2000000u);
}

TEST(Rtt, AckWithoutSampleDropsBackoff)
{
	RttConfig c;
	c.initial_rto_ns = 20000000;
	c.min_rto_ns = 5000000;
	c.max_rto_ns = 500000000;
	RttEstimator r(c);
	r.backoff();
	r.backoff();
	EXPECT_EQ(r.rto_ns(), 80000000u);
	r.reset_backoff(); /* no sample yet: back to the initial RTO */
	EXPECT_EQ(r.rto_ns(), 20000000u);
	r.sample(3000000);
	r.backoff();
	EXPECT_EQ(r.rto_ns(), 18000000u);
	r.reset_backoff();
	EXPECT_EQ(r.rto_ns(), 9000000u);
}

TEST(Rtt, DefaultCeilingHoldsAgainstStalls)
{
	/* Samples of fragments that waited on peers' retransmissions must not
	 * lift the RTO past the ceiling (docs/worker.md, step 5). */
	RttEstimator r;
	for (int i = 0; i < 100; i++)
		r.sample(400000000);
	EXPECT_EQ(r.rto_ns(), RttConfig().max_rto_ns);
	EXPECT_EQ(RttConfig().max_rto_ns, 50000000u);
	r.backoff();
	EXPECT_EQ(r.rto_ns(), 50000000u);
}

TEST(Rtt, BackoffStopsAtAMultipleOfTheBase)
{
	RttConfig c;
	c.min_rto_ns = 1000;
	c.max_backoff = 4;
	RttEstimator r(c);
	r.sample(1000000); /* RTO 3 ms */
	ASSERT_EQ(r.rto_ns(), 3000000u);
	r.backoff();
	EXPECT_EQ(r.rto_ns(), 6000000u);
	r.backoff();
	EXPECT_EQ(r.rto_ns(), 12000000u);
	r.backoff();
	EXPECT_EQ(r.rto_ns(), 12000000u);
}

TEST(Rtt, ClampsToMinAndMax)
{
	RttConfig c;
	c.min_rto_ns = 2000000;
	c.max_rto_ns = 5000000;
	c.max_backoff = 1000;
	RttEstimator r(c);
	r.sample(1000);
	EXPECT_EQ(r.rto_ns(), 2000000u);
	for (int i = 0; i < 10; i++)
		r.backoff();
	EXPECT_EQ(r.rto_ns(), 5000000u);
}

TEST(RttMin, SmallestOfTheLastOneToTwoPeriods)
{
	RttMin m(1000);
	EXPECT_EQ(m.get(), UINT64_MAX);
	m.sample(500, 1000);
	m.sample(300, 1200);
	m.sample(700, 1500);
	EXPECT_EQ(m.get(), 300u);
	/* A new period: the old minimum still counts... */
	m.sample(900, 2100);
	EXPECT_EQ(m.get(), 300u);
	/* ...until one more period has passed: the base follows the path up. */
	m.sample(800, 3200);
	EXPECT_EQ(m.get(), 800u);
	m.sample(100, 3300);
	EXPECT_EQ(m.get(), 100u);
}
