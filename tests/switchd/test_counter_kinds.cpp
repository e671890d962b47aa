/* SPDX-License-Identifier: BSD-3-Clause
 * The kinds of the counter lists (switchd/src/stats.h, ina/pipeline.h,
 * ina/netreduce.h): a counter whose name says it drops must be of kind
 * kDrop, or the summaries would not name it and the packet accounting of
 * docs/switchd.md ("Where every packet went") would not balance. The
 * column makes each new counter declare a kind; this catches a wrong one. */
#include <gtest/gtest.h>

#include <string>

#include "ina/netreduce.h"
#include "ina/pipeline.h"
#include "stats.h"

using namespace switchd;
using ina::CounterKind;

namespace {

bool says_drop(const std::string &name)
{
	const std::string suffix = "_drops";
	const bool ends_drops = name.size() > suffix.size() &&
				name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
	return ends_drops || name.rfind("malformed", 0) == 0 || name.rfind("roce_malformed", 0) == 0;
}

/* Every counter of a list whose name says drop, with another kind. */
template <typename NameFn, typename KindFn>
std::string misfiled(size_t n, NameFn name, KindFn kind)
{
	std::string bad;
	for (size_t i = 0; i < n; i++)
		if (says_drop(name(i)) && kind(i) != CounterKind::kDrop)
			bad += std::string(" ") + name(i);
	return bad;
}

size_t count_kind(const CounterKind *kinds, size_t n, CounterKind k)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += kinds[i] == k;
	return c;
}

} /* namespace */

TEST(CounterKinds, NamesThatSayDropAreDrops)
{
	EXPECT_EQ(misfiled(PortCounters::size(), [](size_t i) { return kPortCounterNames[i]; },
			   [](size_t i) { return kPortCounterKinds[i]; }), "");
	EXPECT_EQ(misfiled(LcoreCounters::size(), [](size_t i) { return kLcoreCounterNames[i]; },
			   [](size_t i) { return kLcoreCounterKinds[i]; }), "");
	EXPECT_EQ(misfiled(JobCounters::size(), [](size_t i) { return kJobCounterNames[i]; },
			   [](size_t i) { return kJobCounterKinds[i]; }), "");
	EXPECT_EQ(misfiled(ina::kCounterCount,
			   [](size_t i) { return ina::counter_name(static_cast<ina::Counter>(i)); },
			   [](size_t i) { return ina::counter_kind(static_cast<ina::Counter>(i)); }), "");
	EXPECT_EQ(misfiled(ina::kNrCounterCount,
			   [](size_t i) { return ina::nr_counter_name(static_cast<ina::NrCounter>(i)); },
			   [](size_t i) { return ina::nr_counter_kind(static_cast<ina::NrCounter>(i)); }),
		  "");
}

/* The drops without the suffix, by their kind; and what is not a drop. */
TEST(CounterKinds, DropsWithOtherNames)
{
	EXPECT_EQ(kLcoreCounterKinds[static_cast<size_t>(LcoreCtr::no_route)], CounterKind::kDrop);
	EXPECT_EQ(kLcoreCounterKinds[static_cast<size_t>(LcoreCtr::flood_no_port)], CounterKind::kDrop);
	EXPECT_EQ(ina::counter_kind(ina::Counter::duplicate), CounterKind::kDrop);
	EXPECT_EQ(ina::counter_kind(ina::Counter::misrouted), CounterKind::kDrop);
	EXPECT_EQ(ina::nr_counter_kind(ina::NrCounter::roce_duplicate), CounterKind::kDrop);
	/* The aggregator's verdict kDrop that is no drop: switchd's `absorbed`. */
	EXPECT_EQ(ina::counter_kind(ina::Counter::aggregated), CounterKind::kEvent);
	EXPECT_EQ(ina::nr_counter_kind(ina::NrCounter::roce_aggregated), CounterKind::kEvent);
	EXPECT_EQ(kLcoreCounterKinds[static_cast<size_t>(LcoreCtr::absorbed)], CounterKind::kEvent);
	/* Out of range: no kind to report, not a drop. */
	EXPECT_EQ(ina::counter_kind(ina::Counter::kCount), CounterKind::kEvent);
}

/* The one level among the sums: a queue's depth now. */
TEST(CounterKinds, OnlyQueueDepthIsAGauge)
{
	EXPECT_EQ(count_kind(kPortCounterKinds, PortCounters::size(), CounterKind::kGauge), 1u);
	EXPECT_EQ(kPortCounterKinds[static_cast<size_t>(PortCtr::queue_depth)], CounterKind::kGauge);
	EXPECT_EQ(count_kind(kLcoreCounterKinds, LcoreCounters::size(), CounterKind::kGauge), 0u);
	EXPECT_EQ(count_kind(ina::kCounterKinds, ina::kCounterCount, CounterKind::kGauge), 0u);
	EXPECT_EQ(count_kind(ina::kNrCounterKinds, ina::kNrCounterCount, CounterKind::kGauge), 0u);
}
