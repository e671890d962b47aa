/* SPDX-License-Identifier: BSD-3-Clause
 *
 * GOAT on the worker side: the plan's ranges as the sender maps them (node
 * per element, each sub-model's own run of aggregators, the same runs a
 * switch reserves), the `goat` config key and its checks, and the frame
 * writer's per-fragment agg_node.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ina/codec.h"
#include "ina/goat_wire.h"
#include "ina/wire.h"
#include "ina/worker.h"
#include "ina/worker/frames.h"
#include "ina/worker/goat_map.h"

using namespace ina;

TEST(GoatMap, NodePerElementAndDisjointRuns)
{
	/* Three sub-models: [0, 1000) to switch 1, [1000, 4000) to the PS,
	 * [4000, 10000) to switch 2; 100 aggregators. */
	const std::vector<GoatRange> r = {{1000, 1}, {4000, 0}, {10000, 2}};
	GoatMap m(r, 100);
	ASSERT_FALSE(m.empty());
	EXPECT_EQ(m.round(), 10000u);
	EXPECT_EQ(m.at(0).agg_node, 1);
	EXPECT_EQ(m.at(999).agg_node, 1);
	EXPECT_EQ(m.at(1000).agg_node, 0);
	EXPECT_EQ(m.at(3999).agg_node, 0);
	EXPECT_EQ(m.at(4000).agg_node, 2);
	EXPECT_EQ(m.at(9999).agg_node, 2);
	EXPECT_EQ(m.submodel(4000), 2u);
	/* Runs tile [0, 100) in order, in proportion (10 %, 30 %, 60 %). */
	uint32_t at = 0;
	for (uint64_t e : {0u, 1000u, 4000u}) {
		const GoatMap::Where &w = m.at(e);
		EXPECT_EQ(w.first, at);
		EXPECT_GT(w.end, w.first);
		at = w.end;
	}
	EXPECT_EQ(at, 100u);
	EXPECT_EQ(m.at(0).end - m.at(0).first, 10u);
	EXPECT_EQ(m.at(4000).end - m.at(4000).first, 60u);
}

TEST(GoatMap, EverySubModelGetsAnIndexEvenWhenTiny)
{
	/* A 1-element sub-model among huge ones still owns one aggregator. */
	const std::vector<GoatRange> r = {{1, 3}, {1000000, 4}, {1000001, 5}};
	GoatMap m(r, 3);
	EXPECT_EQ(m.at(0).first, 0u);
	EXPECT_EQ(m.at(0).end, 1u);
	EXPECT_EQ(m.at(1).first, 1u);
	EXPECT_EQ(m.at(1).end, 2u);
	EXPECT_EQ(m.at(1000000).first, 2u);
	EXPECT_EQ(m.at(1000000).end, 3u);
	/* More sub-models than aggregators: no region. */
	uint64_t ends[3] = {1, 2, 3};
	uint32_t f, e;
	EXPECT_FALSE(goat_region(ends, 3, 0, 2, &f, &e));
}

TEST(GoatMap, IndexRunsThroughTheRegion)
{
	/* Consecutive fragments take consecutive slots and wrap inside. */
	EXPECT_EQ(goat_index(0, 10, 14), 10u);
	EXPECT_EQ(goat_index(3, 10, 14), 13u);
	EXPECT_EQ(goat_index(4, 10, 14), 10u);
	for (uint32_t s = 0; s < 1000; s++) {
		const uint32_t i = goat_index(s * 7919u, 300, 317);
		EXPECT_GE(i, 300u);
		EXPECT_LT(i, 317u);
	}
}

TEST(GoatConfig, KeyParsesAndValidates)
{
	WorkerConfig c;
	c.ps.push_back(PsAddress{0x0A000001, {}});
	std::string err;
	ASSERT_TRUE(set_config_key(&c, "goat", "1000:1,4000:0,10000:2", &err)) << err;
	ASSERT_EQ(c.goat.size(), 3u);
	EXPECT_EQ(c.goat[1].end_element, 4000u);
	EXPECT_EQ(c.goat[2].agg_node, 2);
	EXPECT_TRUE(validate(c, &err)) << err;

	for (const char *bad : {"1000", "1000:x", "1000:70000", ":1", "1000:1,,2000:2"})
		EXPECT_FALSE(set_config_key(&c, "goat", bad, &err)) << bad;

	ASSERT_TRUE(set_config_key(&c, "goat", "1000:1,1000:2", &err));
	EXPECT_FALSE(validate(c, &err));
	EXPECT_NE(err.find("not after the previous"), std::string::npos) << err;

	ASSERT_TRUE(set_config_key(&c, "goat", "1:1,2:1,3:1", &err));
	c.aggregators = 2;
	EXPECT_FALSE(validate(c, &err));
	EXPECT_NE(err.find("more than the 2 aggregators"), std::string::npos) << err;

	c.aggregators = 4096;
	ASSERT_TRUE(set_config_key(&c, "goat", "", &err));
	EXPECT_TRUE(c.goat.empty());
	EXPECT_TRUE(validate(c, &err)) << err;
}

TEST(GoatFrames, WriterStampsTheFragmentsNode)
{
	GradientTemplate t;
	t.job_id = 7;
	t.agg_node = 0;
	t.levels = 1;
	t.fan_in[0] = 2;
	t.bitmap[0] = 1;
	Endpoint src{}, dst{};
	src.ip = 0x0A000002;
	dst.ip = 0x0A000001;
	src.port = dst.port = INA_UDP_PORT;
	src.mac[0] = dst.mac[0] = 2;
	FrameWriter fw(src, dst, t);
	std::vector<uint8_t> buf(INA_FRAME_LEN(4));
	float v[4] = {1, 2, 3, 4};
	uint32_t sat = 0;
	fw.gradient(buf.data(), 5, 17, 0, v, 4, 1e8, &sat, 3);
	const uint8_t *h = buf.data() + INA_HDR_OFFSET;
	EXPECT_EQ(ina_load16(h + offsetof(ina_hdr, agg_node)), 3);
	fw.gradient(buf.data(), 5, 17, 0, v, 4, 1e8, &sat);
	EXPECT_EQ(ina_load16(h + offsetof(ina_hdr, agg_node)), 0); /* the template's */
	fw.floats(buf.data(), 5, 17, INA_F_BYPASS, v, 4, 2);
	EXPECT_EQ(ina_load16(h + offsetof(ina_hdr, agg_node)), 2);
	EXPECT_TRUE(ina_load16(h + offsetof(ina_hdr, flags)) & INA_F_FLOAT);
}
