/* SPDX-License-Identifier: BSD-3-Clause
 *
 * GOAT on the worker side: the plan's ranges as the sender maps them (node
 * per element, the job's aggregators at each switch), the `goat` and
 * `goat_aggregators` config keys and their checks, and the frame writer's
 * per-fragment agg_node.
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

TEST(GoatMap, NodePerElementAndTheSwitchsAggregators)
{
	/* Three sub-models: [0, 1000) to switch 1, [1000, 4000) to the PS,
	 * [4000, 10000) to switch 2; switch 2 gives the job [300, 500) of its
	 * 1024 aggregators, switch 1 all of them. */
	const std::vector<GoatRange> r = {{1000, 1}, {4000, 0}, {10000, 2}};
	const std::vector<GoatAggregators> a = {{2, 300, 500}};
	GoatMap m(r, a, 1024);
	ASSERT_FALSE(m.empty());
	EXPECT_EQ(m.round(), 10000u);
	EXPECT_EQ(m.at(0).agg_node, 1);
	EXPECT_EQ(m.at(999).agg_node, 1);
	EXPECT_EQ(m.at(1000).agg_node, 0);
	EXPECT_EQ(m.at(3999).agg_node, 0);
	EXPECT_EQ(m.at(4000).agg_node, 2);
	EXPECT_EQ(m.at(9999).agg_node, 2);
	EXPECT_EQ(m.submodel(4000), 2u);
	EXPECT_EQ(m.at(0).first, 0u);
	EXPECT_EQ(m.at(0).end, 1024u);
	EXPECT_EQ(m.at(5000).first, 300u);
	EXPECT_EQ(m.at(5000).end, 500u);
	EXPECT_TRUE(GoatMap({}, {}, 1024).empty());
}

TEST(GoatMap, IndexRunsThroughTheRange)
{
	/* Consecutive fragments take consecutive slots and wrap inside: a
	 * window of 4 never meets itself in [10, 14). */
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

	ASSERT_TRUE(set_config_key(&c, "goat", "1000:1,4000:0,10000:2", &err));
	ASSERT_TRUE(set_config_key(&c, "goat_aggregators", "1:0-100,2:100-4096", &err)) << err;
	ASSERT_EQ(c.goat_aggregators.size(), 2u);
	EXPECT_EQ(c.goat_aggregators[1].first, 100u);
	EXPECT_TRUE(validate(c, &err)) << err;
	for (const char *bad : {"1:0", "1-0:5", "x:0-5", "1:5-x", "1:0-99999999"})
		EXPECT_FALSE(set_config_key(&c, "goat_aggregators", bad, &err)) << bad;
	for (const char *invalid : {"1:0-5000", "1:7-7", "0:0-10"}) {
		ASSERT_TRUE(set_config_key(&c, "goat_aggregators", invalid, &err)) << invalid;
		EXPECT_FALSE(validate(c, &err)) << invalid;
		EXPECT_NE(err.find("GOAT aggregators"), std::string::npos) << err;
	}
	ASSERT_TRUE(set_config_key(&c, "goat_aggregators", "", &err));
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

/* A split sub-model (docs/goat.md, "Split sub-models"): its entry names the
 * run its fragments index, on a switch and for the PS alike. */
TEST(GoatConfig, SplitRunsPerSubModel)
{
	WorkerConfig c;
	c.ps.push_back(PsAddress{0x0A000001, {}});
	c.aggregators = 512;
	std::string err;
	ASSERT_TRUE(set_config_key(&c, "goat", "100:1,200:2:0-170,300:0:170-341,400:0", &err)) << err;
	ASSERT_EQ(c.goat.size(), 4u);
	EXPECT_EQ(c.goat[1].index_first, 0u);
	EXPECT_EQ(c.goat[1].index_end, 170u);
	EXPECT_EQ(c.goat[2].agg_node, 0);
	EXPECT_EQ(c.goat[2].index_first, 170u);
	EXPECT_TRUE(validate(c, &err)) << err;
	GoatMap m(c.goat, c.goat_aggregators, c.aggregators);
	EXPECT_EQ(m.at(0).end, 512u) << "whole at switch 1: its aggregators";
	EXPECT_EQ(m.at(150).first, 0u);
	EXPECT_EQ(m.at(150).end, 170u);
	EXPECT_EQ(m.at(250).agg_node, 0);
	EXPECT_EQ(m.at(250).first, 170u) << "to the PS, with the switches' run";
	EXPECT_EQ(m.at(250).end, 341u);
	EXPECT_EQ(m.at(350).end, m.at(350).first) << "whole at the PS: the job's own index";
	for (const char *bad : {"100:1:5", "100:1:9-3", "100:1:0-", "100:1:0-5:7"})
		EXPECT_FALSE(set_config_key(&c, "goat", bad, &err)) << bad;
	ASSERT_TRUE(set_config_key(&c, "goat", "100:1:0-600", &err));
	EXPECT_FALSE(validate(c, &err));
	EXPECT_NE(err.find("beyond the 512"), std::string::npos) << err;
}
