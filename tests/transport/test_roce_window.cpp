/* SPDX-License-Identifier: BSD-3-Clause
 * NetReduce's host flow control (ina/roce_window.h) without a device: the
 * window of N messages, completion in and out of order, go-back-N from a
 * lost message, the 2N aggregator slots and MsgID wraparound, and the
 * configs it refuses. */
#include <gtest/gtest.h>

#include <vector>

#include "ina/roce_window.h"

using namespace ina;

namespace {

RoceWindowConfig small(uint32_t n)
{
	RoceWindowConfig c;
	c.window = n;
	c.msg_bytes = 2048;
	c.mtu = 1024;
	c.header_bytes = 16;
	c.timeout_ns = 1000;
	return c;
}

/* Posts everything next() gives at `now`; returns the seqs in order. */
std::vector<uint64_t> post_all(RoceWindow &w, uint64_t now)
{
	std::vector<uint64_t> out;
	uint64_t s;
	while (w.next(&s)) {
		w.posted(s, now);
		out.push_back(s);
		if (out.size() > 2 * kRoceMaxWindow) {
			ADD_FAILURE() << "next() never says stop";
			break;
		}
	}
	return out;
}

RoceResult result(RoceWindow &w, uint64_t seq, uint64_t *got = nullptr)
{
	uint64_t s = UINT64_MAX;
	RoceResult r = w.on_result(w.msg_id(seq), &s);
	if (got)
		*got = s;
	return r;
}

std::vector<uint64_t> range(uint64_t a, uint64_t b)
{
	std::vector<uint64_t> v;
	for (uint64_t i = a; i < b; i++)
		v.push_back(i);
	return v;
}

} /* namespace */

TEST(RoceWindow, InOrderCompletionSlidesTheWindow)
{
	RoceWindow w(small(4));
	w.add(10);
	EXPECT_EQ(post_all(w, 0), range(0, 4));
	EXPECT_EQ(w.in_flight(), 4u);
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t s;
		ASSERT_EQ(result(w, i, &s), RoceResult::kCompleted) << i;
		EXPECT_EQ(s, i);
		EXPECT_EQ(w.base(), i + 1);
		/* One result, one more message: i + 4 while there are any. */
		auto p = post_all(w, i + 1);
		if (i + 4 < 10)
			EXPECT_EQ(p, std::vector<uint64_t>{i + 4});
		else
			EXPECT_TRUE(p.empty());
	}
	EXPECT_TRUE(w.done());
	EXPECT_EQ(w.stats().posted, 10u);
	EXPECT_EQ(w.stats().completed, 10u);
	EXPECT_EQ(w.stats().retransmits, 0u);
}

TEST(RoceWindow, WindowFullBlocksPosting)
{
	RoceWindow w(small(3));
	w.add(100);
	EXPECT_EQ(post_all(w, 0).size(), 3u);
	uint64_t s;
	EXPECT_FALSE(w.next(&s));
	/* posted() of a message beyond the window is ignored. */
	w.posted(3, 0);
	EXPECT_EQ(w.in_flight(), 3u);
	EXPECT_FALSE(w.next(&s));
	/* Results of later messages do not open it: the oldest holds it. */
	EXPECT_EQ(result(w, 2), RoceResult::kCompleted);
	EXPECT_EQ(result(w, 1), RoceResult::kCompleted);
	EXPECT_FALSE(w.next(&s));
	EXPECT_EQ(w.base(), 0u);
	EXPECT_EQ(result(w, 0), RoceResult::kCompleted);
	EXPECT_EQ(w.base(), 3u);
	EXPECT_EQ(post_all(w, 1), range(3, 6));
}

TEST(RoceWindow, NothingToPostUntilAdded)
{
	RoceWindow w(small(8));
	uint64_t s;
	EXPECT_FALSE(w.next(&s));
	EXPECT_TRUE(w.done());
	w.add(2);
	EXPECT_FALSE(w.done());
	EXPECT_EQ(post_all(w, 0), range(0, 2));
	w.add(1);
	EXPECT_EQ(post_all(w, 0), range(2, 3));
}

TEST(RoceWindow, OutOfOrderCompletion)
{
	RoceWindow w(small(4));
	w.add(8);
	post_all(w, 0);
	const uint64_t order[] = {3, 1, 2};
	for (uint64_t i : order) {
		uint64_t s;
		ASSERT_EQ(result(w, i, &s), RoceResult::kCompleted);
		EXPECT_EQ(s, i);
		EXPECT_EQ(w.base(), 0u);
	}
	/* A second result for a completed message in the window. */
	EXPECT_EQ(result(w, 2), RoceResult::kDuplicate);
	EXPECT_EQ(result(w, 0), RoceResult::kCompleted);
	EXPECT_EQ(w.base(), 4u) << "the whole completed prefix goes at once";
	EXPECT_EQ(post_all(w, 1), range(4, 8));
	/* A result for a message before the window: stale. */
	EXPECT_EQ(result(w, 1), RoceResult::kStale);
	/* For one in the window that was never posted: stale as well. */
	RoceWindow v(small(4));
	v.add(8);
	uint64_t s;
	ASSERT_TRUE(v.next(&s));
	v.posted(s, 0);
	EXPECT_EQ(result(v, 2), RoceResult::kStale);
	EXPECT_EQ(w.stats().duplicates, 1u);
	EXPECT_EQ(w.stats().stale, 1u);
}

TEST(RoceWindow, GoBackNFromALostMessage)
{
	RoceWindow w(small(6));
	w.add(20);
	EXPECT_EQ(post_all(w, 100), range(0, 6));
	/* Message 2 is lost; 0, 1 and 4 come back. */
	EXPECT_EQ(result(w, 0), RoceResult::kCompleted);
	EXPECT_EQ(result(w, 1), RoceResult::kCompleted);
	EXPECT_EQ(result(w, 4), RoceResult::kCompleted);
	EXPECT_EQ(post_all(w, 150), range(6, 8)) << "the window moved by two";
	/* Not overdue yet: nothing happens. */
	EXPECT_EQ(w.deadline(), 1100u);
	EXPECT_EQ(w.on_timeout(1099), 0u);
	uint64_t s;
	EXPECT_FALSE(w.next(&s));
	/* Overdue: back to 2 and everything after it in order, 4 included
	 * although it has its result: MsgIDs must follow each other in PSN
	 * order on the connection for the switch to place the NIC's own
	 * retransmissions. */
	EXPECT_EQ(w.on_timeout(1100), 6u);
	EXPECT_TRUE(w.resending());
	EXPECT_EQ(post_all(w, 1200), range(2, 8));
	EXPECT_FALSE(w.resending());
	EXPECT_EQ(w.stats().retransmits, 6u);
	EXPECT_EQ(w.stats().timeouts, 1u);
	/* The new deadline runs from the resend. */
	EXPECT_EQ(w.deadline(), 2200u);
	/* A late result of the first send counts; the resend's is then a
	 * duplicate. */
	EXPECT_EQ(result(w, 2), RoceResult::kCompleted);
	EXPECT_EQ(w.base(), 3u);
	EXPECT_EQ(post_all(w, 1300), range(8, 9));
	EXPECT_EQ(result(w, 3), RoceResult::kCompleted);
	EXPECT_EQ(w.base(), 5u);
	EXPECT_EQ(result(w, 4), RoceResult::kStale);
	for (uint64_t i = 5; i < 20; i++) {
		post_all(w, 1400);
		ASSERT_EQ(result(w, i), RoceResult::kCompleted) << i;
	}
	EXPECT_TRUE(w.done());
	EXPECT_EQ(w.stats().posted, 26u);
}

TEST(RoceWindow, ResendsGoInOrderOnly)
{
	RoceWindow w(small(4));
	w.add(4);
	post_all(w, 0);
	EXPECT_EQ(w.on_timeout(1000), 4u);
	/* posted() of anything but next()'s message is ignored. */
	w.posted(2, 1000);
	uint64_t s;
	ASSERT_TRUE(w.next(&s));
	EXPECT_EQ(s, 0u);
	/* A result while resending: the window moves, the resend goes on
	 * from the oldest message without a result. */
	EXPECT_EQ(result(w, 0), RoceResult::kCompleted);
	EXPECT_EQ(result(w, 1), RoceResult::kCompleted);
	ASSERT_TRUE(w.next(&s));
	EXPECT_EQ(s, 2u);
	EXPECT_EQ(post_all(w, 1000), range(2, 4));
	EXPECT_EQ(w.stats().retransmits, 2u);
}

TEST(RoceWindow, RepeatedTimeoutsWhileResending)
{
	RoceWindow w(small(4));
	w.add(4);
	post_all(w, 0);
	EXPECT_EQ(w.on_timeout(1000), 4u);
	/* Only 0 and 1 go out again before the next check: 2 and 3 are
	 * queued, not overdue a second time. */
	uint64_t s;
	ASSERT_TRUE(w.next(&s));
	w.posted(s, 1000);
	ASSERT_TRUE(w.next(&s));
	w.posted(s, 1000);
	EXPECT_EQ(w.on_timeout(1500), 0u);
	EXPECT_EQ(post_all(w, 1500), range(2, 4));
	EXPECT_EQ(w.on_timeout(2000), 4u);
	EXPECT_EQ(w.stats().timeouts, 2u);
}

TEST(RoceWindow, SlotsAreMsgIdModTwoN)
{
	RoceWindow w(small(4));
	for (uint64_t s = 0; s < 32; s++)
		EXPECT_EQ(w.slot(s), s % 8);
	EXPECT_EQ(w.msg_packets(), 2u);
}

TEST(RoceWindow, SlotReusedOnlyAfterMessageNPlusNReleased)
{
	/* Message m + 2N shares m's aggregators; they are freed by the
	 * packets of m + N. So m + 2N waits for m + N's result even when
	 * everything else is back. */
	const uint32_t n = 4;
	RoceWindow w(small(n));
	w.add(64);
	post_all(w, 0);
	for (uint64_t i = 0; i < n; i++)
		ASSERT_EQ(result(w, i), RoceResult::kCompleted);
	EXPECT_EQ(post_all(w, 0), range(n, 2 * n));
	/* All of N+1 .. 2N-1 back, N (which releases slot 0) not. */
	for (uint64_t i = n + 1; i < 2 * n; i++)
		ASSERT_EQ(result(w, i), RoceResult::kCompleted);
	EXPECT_FALSE(w.slot_released(2 * n));
	uint64_t s;
	EXPECT_FALSE(w.next(&s)) << "message 2N would reuse slot 0 before message N freed it";
	ASSERT_EQ(result(w, n), RoceResult::kCompleted);
	EXPECT_TRUE(w.slot_released(2 * n));
	EXPECT_EQ(post_all(w, 0), range(2 * n, 3 * n));
	EXPECT_EQ(w.slot(2 * n), 0u);
	/* Over a long run in random completion order, a model of the
	 * switch's array: message q takes slot q % 2N when posted and frees
	 * it only when q + N completes (all ranks' packets of q + N arrived
	 * and deallocated it). No message may find its slot taken. */
	RoceWindow v(small(n));
	v.add(5000);
	std::vector<int> live(2 * n, -1); /* slot -> seq in flight */
	uint64_t rng = 88172645463325252ull;
	uint64_t posted = 0, completed = 0;
	while (!v.done()) {
		uint64_t q;
		while (v.next(&q)) {
			ASSERT_TRUE(live[v.slot(q)] == -1 || live[v.slot(q)] == static_cast<int>(q))
				<< "seq " << q << " over " << live[v.slot(q)];
			live[v.slot(q)] = static_cast<int>(q);
			v.posted(q, 0);
			posted++;
		}
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		uint64_t pick = v.base() + rng % v.in_flight();
		if (v.on_result(v.msg_id(pick), &q) == RoceResult::kCompleted) {
			completed++;
			if (q >= n && live[v.slot(q - n)] == static_cast<int>(q - n))
				live[v.slot(q - n)] = -1;
		}
	}
	EXPECT_EQ(completed, 5000u);
	EXPECT_EQ(posted, 5000u);
}

TEST(RoceWindow, MsgIdWrapsAtAMultipleOfTwoN)
{
	/* An 8-bit MsgID with N = 3: 256 is no multiple of 6, so MsgIDs run
	 * 0..251 and start over, keeping MsgID % 6 == seq % 6. */
	RoceWindowConfig c = small(3);
	c.msg_id_bits = 8;
	RoceWindow w(c);
	EXPECT_EQ(w.id_modulus(), 252u);
	w.add(2000);
	for (uint64_t i = 0; i < 2000; i++) {
		post_all(w, 0);
		EXPECT_EQ(w.msg_id(i) % 6, w.slot(i)) << i;
		EXPECT_LT(w.msg_id(i), 252u);
		uint64_t s;
		ASSERT_EQ(w.on_result(w.msg_id(i), &s), RoceResult::kCompleted) << i;
		ASSERT_EQ(s, i);
	}
	EXPECT_EQ(w.msg_id(252), 0u);
	EXPECT_EQ(w.msg_id(251), 251u);
	EXPECT_TRUE(w.done());
	/* A MsgID the field holds but the wrap never uses: stale. */
	uint64_t s;
	EXPECT_EQ(w.on_result(253, &s), RoceResult::kStale);
	/* Across the wrap, with messages out of order. */
	RoceWindowConfig d = small(4);
	d.msg_id_bits = 4; /* 16 = 2 x 8: no gap */
	RoceWindow v(d);
	v.add(40);
	for (uint64_t i = 0; i < 14; i++) {
		post_all(v, 0);
		ASSERT_EQ(result(v, i), RoceResult::kCompleted);
	}
	EXPECT_EQ(post_all(v, 0), range(17, 18));
	EXPECT_EQ(v.in_flight(), 4u) << "14..17 in flight, MsgIDs 14, 15, 0, 1";
	EXPECT_EQ(v.msg_id(16), 0u);
	uint64_t got;
	ASSERT_EQ(v.on_result(1, &got), RoceResult::kCompleted);
	EXPECT_EQ(got, 17u);
	ASSERT_EQ(v.on_result(15, &got), RoceResult::kCompleted);
	EXPECT_EQ(got, 15u);
	EXPECT_EQ(v.base(), 14u);
	/* MsgID 13 was message 13, done; 13 + 16 is not in flight. */
	EXPECT_EQ(v.on_result(13, &got), RoceResult::kStale);
}

TEST(RoceWindow, BadConfigRejected)
{
	struct Case {
		const char *name;
		void (*edit)(RoceWindowConfig *);
		const char *want;
	} cases[] = {
		{"window 0", [](RoceWindowConfig *c) { c->window = 0; }, "roce window must be 1..4096 messages, got 0"},
		{"window too large", [](RoceWindowConfig *c) { c->window = 4097; }, "got 4097"},
		{"MTU 1500", [](RoceWindowConfig *c) { c->mtu = 1500; }, "roce MTU must be 256, 512, 1024, 2048 or 4096"},
		{"not a multiple of the MTU",
		 [](RoceWindowConfig *c) {
			 c->mtu = 1024;
			 c->msg_bytes = 3000;
		 },
		 "roce message size 3000 is not a multiple of the MTU payload 1024"},
		{"header only", [](RoceWindowConfig *c) { c->msg_bytes = 16; }, "must exceed the INA header"},
		{"too large", [](RoceWindowConfig *c) { c->msg_bytes = 2u << 20; }, "at most 1048576 bytes"},
		{"too many packets",
		 [](RoceWindowConfig *c) {
			 c->mtu = 256;
			 c->msg_bytes = 1u << 20;
		 },
		 "roce message of 4096 packets, at most 1024"},
		{"values not whole", [](RoceWindowConfig *c) { c->header_bytes = 14; }, "4-byte values"},
		{"MsgID too narrow",
		 [](RoceWindowConfig *c) {
			 c->msg_id_bits = 4;
			 c->window = 9;
		 },
		 "needs 2N MsgIDs"},
		{"MsgID 40 bits", [](RoceWindowConfig *c) { c->msg_id_bits = 40; }, "2..32 bits"},
		{"timeout 0", [](RoceWindowConfig *c) { c->timeout_ns = 0; }, "timeout"},
	};
	std::string err;
	EXPECT_TRUE(roce_window_check(RoceWindowConfig(), &err)) << err;
	for (const Case &k : cases) {
		RoceWindowConfig c;
		k.edit(&c);
		err.clear();
		EXPECT_FALSE(roce_window_check(c, &err)) << k.name;
		EXPECT_NE(err.find(k.want), std::string::npos) << k.name << ": " << err;
		EXPECT_EQ(err.find('\n'), std::string::npos);
	}
	RoceWindowConfig edge;
	edge.window = kRoceMaxWindow;
	edge.msg_id_bits = 13; /* 8192 = 2N exactly */
	EXPECT_TRUE(roce_window_check(edge, &err)) << err;
}
