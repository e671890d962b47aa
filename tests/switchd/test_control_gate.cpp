/* SPDX-License-Identifier: BSD-3-Clause
 * switchd's control gate (switchd/src/control_gate.h): replay window and
 * per-sender counters, and who may change which job. */
#include <gtest/gtest.h>

#include "control_gate.h"

using namespace switchd;

namespace {

constexpr uint64_t kSec = 1000000000ull;
constexpr uint64_t kNow = 1700000000ull * kSec;
constexpr uint32_t kPsA = 0x0A000064, kPsB = 0x0A000065;

std::vector<JobConfig> config_jobs()
{
	JobConfig fixed, open;
	fixed.id = 7;
	open.id = 8;
	open.control_allowed = true;
	return {fixed, open};
}

} /* namespace */

TEST(ControlGate, CountersIncreasePerSenderWithinTheWindow)
{
	ControlGate g({}, 30);
	EXPECT_TRUE(g.fresh(kPsA, kNow, kNow));
	EXPECT_FALSE(g.fresh(kPsA, kNow, kNow)) << "the same counter again";
	EXPECT_FALSE(g.fresh(kPsA, kNow - 1, kNow)) << "an older one";
	EXPECT_TRUE(g.fresh(kPsA, kNow + 1, kNow));
	EXPECT_TRUE(g.fresh(kPsB, kNow - 5, kNow)) << "each sender has its own counter";
	EXPECT_FALSE(g.fresh(kPsB, kNow - 31 * kSec, kNow)) << "older than the window";
	EXPECT_FALSE(g.fresh(kPsB, kNow + 31 * kSec, kNow)) << "newer than the window";
	EXPECT_TRUE(g.fresh(kPsB, kNow + 29 * kSec, kNow));
	EXPECT_FALSE(g.fresh(kPsB, kNow, kNow)) << "a rejected far-future counter did not count, this one is below";
}

TEST(ControlGate, ConfigJobsAndOwners)
{
	ControlGate g(config_jobs(), 30);
	EXPECT_FALSE(g.may_change(7, kPsA)) << "a config job without control = allow";
	EXPECT_TRUE(g.may_change(8, kPsA)) << "control = allow";
	EXPECT_TRUE(g.may_change(21, kPsB)) << "an unknown job";
	g.registered(8, kPsA);
	EXPECT_TRUE(g.may_change(8, kPsA));
	EXPECT_FALSE(g.may_change(8, kPsB)) << "now PS A's";
	g.registered(21, kPsB);
	EXPECT_FALSE(g.may_change(21, kPsA));
	EXPECT_TRUE(g.may_change(21, kPsB));
	g.unregistered(21);
	EXPECT_TRUE(g.may_change(21, kPsA)) << "free again";
	EXPECT_FALSE(g.may_change(7, kPsB));
}
