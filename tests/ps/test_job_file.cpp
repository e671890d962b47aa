/* SPDX-License-Identifier: BSD-3-Clause
 * Job description files: the example parses, mistakes are one-line errors. */
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "ina/ps.h"
#include "ina/ps_config.h"

using namespace ina;

#ifndef INA_PS_EXAMPLE
#error "INA_PS_EXAMPLE must name config/ps-example.toml"
#endif

TEST(PsJobFile, ExampleParsesAndIsAccepted)
{
	PsJobConfig c;
	std::string err;
	ASSERT_TRUE(load_ps_job_file(INA_PS_EXAMPLE, &c, &err)) << err;
	EXPECT_EQ(c.job, 1);
	EXPECT_EQ(c.levels, 1);
	EXPECT_EQ(c.workers.size(), 2u);
	EXPECT_TRUE(c.has_switch);
	EXPECT_TRUE(c.multicast_ack);
	ParameterServer ps(Endpoint{{0}, 1, INA_UDP_PORT});
	EXPECT_TRUE(ps.add_job(c, &err)) << err;
}

TEST(PsJobFile, MistakesNameFileAndKey)
{
	PsJobConfig c;
	std::string err;
	const char *base = "id = 4\nlevels = 1\nfan_in = [2]\n"
			   "[[worker]]\nip = \"10.0.0.1\"\nbit = [0]\n"
			   "[[worker]]\nip = \"10.0.0.2\"\nbit = [1]\n";
	ASSERT_TRUE(parse_ps_job(base, "j.toml", &c, &err)) << err;
	EXPECT_FALSE(c.multicast_ack);
	EXPECT_EQ(c.workers[1].ip, 0x0A000002u);

	EXPECT_FALSE(parse_ps_job(std::string("windw = 8\n") + base, "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:1:1: windw: unknown key; did you mean `window`?");
	EXPECT_FALSE(parse_ps_job("id = 70000\nlevels = 0\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:1:6: id: must be within 1..65535");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 1\nfan_in = [2, 2]\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:3:10: fan_in: must have 1 entries (levels)");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 0\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:1:1: worker: missing: one [[worker]] table per worker");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 0\n[[worker]]\nip = \"10.0.0\"\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:4:6: worker[0].ip: must be an IPv4 address \"a.b.c.d\"");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 0\nack = \"broadcast\"\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:3:7: ack: must be \"multicast\" or \"unicast\"");
	EXPECT_FALSE(parse_ps_job("id = = 1\n", "j.toml", &c, &err));
	EXPECT_EQ(err.rfind("j.toml:1:6: ", 0), 0u) << err;
	EXPECT_EQ(err.find('\n'), std::string::npos);
	EXPECT_FALSE(load_ps_job_file("/nonexistent/job.toml", &c, &err));
	EXPECT_EQ(err, "/nonexistent/job.toml: cannot open: No such file or directory");
	EXPECT_FALSE(load_ps_job_file("/dev/zero", &c, &err));
	EXPECT_EQ(err, "/dev/zero: is a device, not a regular file");

	/* Strict addresses, one worker per IP, memory within kPsMaxJobBytes. */
	const std::string two = "id = 4\nlevels = 1\nfan_in = [2]\n[[worker]]\nip = \"10.0.0.1\"\nbit = [0]\n";
	EXPECT_FALSE(parse_ps_job(two + "[[worker]]\nip = \"10.0.0.1\"\nbit = [1]\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:8:6: worker[1].ip: the same address as another worker");
	EXPECT_FALSE(parse_ps_job(two + "[[worker]]\nip = \"10.0.0.2\\u0000\"\nbit = [1]\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:8:6: worker[1].ip: must be an IPv4 address \"a.b.c.d\"");
	EXPECT_FALSE(parse_ps_job(two + "[[worker]]\nip = \"10.0.0.2\"\nmac = \"-1:-1:-1:-1:-1:-1\"\nbit = [1]\n",
				  "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:9:7: worker[1].mac: must be a MAC address \"aa:bb:cc:dd:ee:ff\"");
	EXPECT_FALSE(parse_ps_job(two + "[[worker]]\nip = \"10.0.0.2\"\nmac = \"01:00:5e:00:00:01\"\nbit = [1]\n",
				  "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:9:7: worker[1].mac: must be a host's MAC address, not zero, multicast or broadcast");
	EXPECT_FALSE(parse_ps_job("elements = 62\nwindow = 8388608\n" + two, "j.toml", &c, &err));
	EXPECT_EQ(err.rfind("j.toml:2:10: window: job 4: window 8388608 ", 0), 0u) << err;
	EXPECT_TRUE(parse_ps_job("window = 65536\n" + two, "j.toml", &c, &err)) << err;
}

/* The switch's names for the same things: the PS's old ones are refused
 * with the new one named, at the file's line. */
TEST(PsJobFile, OldNamesAreRefusedWithTheNewOne)
{
	PsJobConfig c;
	std::string err;
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 0\n[[workers]]\nip = \"10.0.0.1\"\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:3:3: workers: unknown key; renamed: use `worker`");
	/* The job's id is `id`, as switchd's [[job]] id. */
	EXPECT_FALSE(parse_ps_job("job = 1\nlevels = 0\n[[worker]]\nip = \"10.0.0.1\"\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:1:1: job: unknown key; renamed: use `id`");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 1\nfan_in = [2]\n[[worker]]\nip = \"10.0.0.1\"\nbits = [0]\n",
				  "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:6:1: worker[0].bits: unknown key; renamed: use `bit`");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 0\n[switch]\nip = \"10.0.0.254\"\nmac = \"02:00:00:00:00:fe\"\n"
				  "key_file = \"k\"\n[[worker]]\nip = \"10.0.0.1\"\n",
				  "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:6:1: switch.key_file: unknown key; renamed: use `control_key_file`");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 0\nelemnts = 62\n[[worker]]\nip = \"10.0.0.1\"\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:3:1: elemnts: unknown key; did you mean `elements`?");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 0\nfrobnicate = 1\n[[worker]]\nip = \"10.0.0.1\"\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:3:1: frobnicate: unknown key");
}

/* What add_job() would refuse is found in the file, with its line:
 * ina-ps --check-job adds no job. */
TEST(PsJobFile, WhatAddJobRefusesIsFoundInTheFile)
{
	PsJobConfig c;
	std::string err;
	const std::string one = "[[worker]]\nip = \"10.0.0.1\"\nbit = [0]\n";
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 1\nfan_in = [2]\nwindow = 48\n" + one, "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:4:10: window: must be a power of two");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 1\nfan_in = [2]\nps_index = 1\n" + one, "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:4:12: ps_index: must be below ps_count (1)");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 1\nfan_in = [2]\nack = \"multicast\"\n" + one, "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:4:7: ack: \"multicast\" needs a [switch]");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 1\nfan_in = [1]\n[[worker]]\nip = \"10.0.0.1\"\nbit = [1]\n",
				  "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:6:7: worker[0].bit: bit 1 at level 0 is not below fan_in 1 (255 = not at this level)");
	EXPECT_FALSE(parse_ps_job("id = 1\nlevels = 0\n[[worker]]\nip = \"10.0.0.1\"\n[[worker]]\nip = \"10.0.0.2\"\n",
				  "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:2:10: levels: 0 cannot tell workers apart; use levels = 1 (bit) without a switch");
	const std::string two = "id = 1\nlevels = 2\nfan_in = [2, 2]\n[[worker]]\nip = \"10.0.0.1\"\nbit = [0, 0]\n";
	EXPECT_FALSE(parse_ps_job(two + "[[worker]]\nip = \"10.0.0.2\"\nbit = [1, 255]\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:9:7: worker[1].bit: skips level 1 above its first level");
	EXPECT_FALSE(parse_ps_job(two + "[[worker]]\nip = \"10.0.0.2\"\nbit = [0, 0]\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:9:7: worker[1].bit: the same path as worker 0: they could not be told apart");
	EXPECT_TRUE(parse_ps_job(two + "[[worker]]\nip = \"10.0.0.2\"\nbit = [255, 1]\n", "j.toml", &c, &err)) << err;
}

/* [goat] (docs/goat.md, "Installing a plan"): the plan's switches that
 * aggregate, each with its address and its ranges computed from the plan. */
/* `elements`: absent or "auto" leaves the size to the path (ina-ps sizes
 * it, docs/ps.md "Fragment size"); a number is kept; anything else is an
 * error naming the key. */
TEST(PsJobFile, ElementsNamedOrLeftToThePath)
{
	const std::string base = "id = 4\nlevels = 0\n[[worker]]\nip = \"10.0.0.1\"\n";
	PsJobConfig c;
	std::string err;
	ASSERT_TRUE(parse_ps_job(base, "j.toml", &c, &err)) << err;
	EXPECT_TRUE(c.elements_auto);
	EXPECT_EQ(c.elements, 0) << "unresolved until ina-ps sizes it: add_job refuses it";
	ParameterServer ps(Endpoint{{0}, 1, INA_UDP_PORT});
	EXPECT_FALSE(ps.add_job(c, &err));
	ASSERT_TRUE(parse_ps_job("elements = \"auto\"\n" + base, "j.toml", &c, &err)) << err;
	EXPECT_TRUE(c.elements_auto);
	ASSERT_TRUE(parse_ps_job("elements = 30\n" + base, "j.toml", &c, &err)) << err;
	EXPECT_FALSE(c.elements_auto);
	EXPECT_EQ(c.elements, 30);
	EXPECT_FALSE(parse_ps_job("elements = \"big\"\n" + base, "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:1:12: elements: must be an integer 1..2048 or \"auto\"");
	EXPECT_FALSE(parse_ps_job("elements = 4000\n" + base, "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml:1:12: elements: must be within 1..2048");
}

/* set_elements() lowers what a job accepts after the path is known, never
 * above the room its slots were made with. */
TEST(PsJobFile, SetElementsWithinTheSlotsRoom)
{
	PsJobConfig c;
	std::string err;
	ASSERT_TRUE(parse_ps_job("elements = 768\nid = 4\nlevels = 0\n[[worker]]\nip = \"10.0.0.1\"\n", "j.toml",
				 &c, &err))
		<< err;
	ParameterServer ps(Endpoint{{0}, 1, INA_UDP_PORT});
	ASSERT_TRUE(ps.add_job(c, &err)) << err;
	EXPECT_EQ(ps.elements(4), 768);
	EXPECT_TRUE(ps.set_elements(4, 62));
	EXPECT_EQ(ps.elements(4), 62);
	EXPECT_TRUE(ps.set_elements(4, 768));
	EXPECT_FALSE(ps.set_elements(4, 769));
	EXPECT_FALSE(ps.set_elements(4, 0));
	EXPECT_FALSE(ps.set_elements(5, 62)) << "not served";
	EXPECT_EQ(ps.elements(5), 0);
}

TEST(PsJobFile, GoatPlanAndItsSwitches)
{
	char dir[] = "/tmp/ps-goat-XXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	const std::string plan = std::string(dir) + "/plan.json";
	{
		std::ofstream f(plan);
		f << R"({"plan": {"switches": [{"name": "s1", "id": 1, "submodels": ["a"]},
					      {"name": "s2", "id": 2, "submodels": ["b"]},
					      {"name": "s3", "id": 3, "submodels": []}],
			"submodels": [{"name": "a", "first_element": 0, "end_element": 100},
				      {"name": "b", "first_element": 100, "end_element": 300}],
			"workers": [)";
		for (int w = 0; w < 2; w++)
			f << (w ? "," : "") << R"({"name": "w)" << w << R"(", "ranges": [
				{"submodel": "a", "first_element": 0, "end_element": 100, "agg_node": 1},
				{"submodel": "b", "first_element": 100, "end_element": 300, "agg_node": 2}]})";
		f << "]}}\n";
	}
	const std::string base = "id = 4\nlevels = 1\nfan_in = [2]\naggregators = 512\n"
				 "[[worker]]\nip = \"10.0.0.1\"\nbit = [0]\n"
				 "[[worker]]\nip = \"10.0.0.2\"\nbit = [1]\n";
	const std::string sw1 = "[[goat.switch]]\nid = 1\nip = \"10.0.0.254\"\nmac = \"02:00:00:00:00:fe\"\n";
	const std::string sw2 = "[[goat.switch]]\nid = 2\nip = \"10.0.0.253\"\nmac = \"02:00:00:00:00:fd\"\n"
				"aggregators = [[100, 300]]\n";
	const std::string sw3 = "[[goat.switch]]\nid = 3\nip = \"10.0.0.252\"\nmac = \"02:00:00:00:00:fc\"\n";
	PsJobConfig c;
	std::string err;
	const std::string job = std::string(dir) + "/job.toml";
	ASSERT_TRUE(parse_ps_job(base + "[goat]\nplan = \"plan.json\"\n" + sw1 + sw2 + sw3, job, &c, &err)) << err;
	EXPECT_EQ(c.goat_plan, plan) << "relative to the job file";
	ASSERT_EQ(c.goat.size(), 2u) << "switch 3 aggregates nothing: nothing to send";
	EXPECT_EQ(c.goat[0].id, 1);
	EXPECT_EQ(c.goat[0].ip, 0x0A0000FEu);
	ASSERT_EQ(c.goat[0].slots.size(), 1u);
	EXPECT_EQ(c.goat[0].slots[0].first, 0u);
	EXPECT_EQ(c.goat[0].slots[0].end, 512u) << "the job's aggregators by default";
	EXPECT_EQ(c.goat[0].submodels, std::vector<std::string>{"a"});
	ASSERT_EQ(c.goat[1].slots.size(), 1u);
	EXPECT_EQ(c.goat[1].slots[0].first, 100u);
	EXPECT_EQ(c.goat[1].slots[0].end, 300u);

	EXPECT_FALSE(parse_ps_job(base + "[goat]\nplan = \"plan.json\"\n" + sw1, job, &c, &err));
	EXPECT_EQ(err, job + ":13:1: goat.switch: the plan's switch 's2' (id 2) aggregates sub-models: give it a "
			     "[[goat.switch]]");
	EXPECT_FALSE(parse_ps_job(base + "[goat]\nplan = \"none.json\"\n", job, &c, &err));
	EXPECT_NE(err.find("goat.plan: " + std::string(dir) + "/none.json: cannot open"), std::string::npos) << err;
	EXPECT_FALSE(parse_ps_job(base + "[goat]\nplan = \"plan.json\"\n" + sw1 + sw2 +
					  "[[goat.switch]]\nid = 9\nip = \"10.0.0.9\"\nmac = \"02:00:00:00:00:09\"\n",
				  job, &c, &err));
	EXPECT_EQ(err, job + ":23:6: goat.switch[2].id: " + plan + ": the plan has no switch with id 9 (switch.id)");
	EXPECT_FALSE(parse_ps_job(base + "[goat]\nplan = \"plan.json\"\n" + sw1 + sw2 + sw1, job, &c, &err));
	EXPECT_EQ(err, job + ":23:6: goat.switch[2].id: a second [[goat.switch]] with id 1");
	EXPECT_FALSE(parse_ps_job(base + "[goat]\nplan = \"plan.json\"\n" + sw1 +
					  "[[goat.switch]]\nid = 2\nip = \"10.0.0.253\"\nmac = \"02:00:00:00:00:fd\"\n"
					  "aggregators = [[300, 100]]\n",
				  job, &c, &err));
	EXPECT_EQ(err, job + ":21:15: goat.switch[1].aggregators: each entry must be [first, end], 0 <= first < end");
	/* [first, end] alone was the shape of earlier versions; switchd's [[goat]] takes pairs. */
	EXPECT_FALSE(parse_ps_job(base + "[goat]\nplan = \"plan.json\"\n" + sw1 +
					  "[[goat.switch]]\nid = 2\nip = \"10.0.0.253\"\nmac = \"02:00:00:00:00:fd\"\n"
					  "aggregators = [100, 300]\n",
				  job, &c, &err));
	EXPECT_EQ(err, job + ":21:15: goat.switch[1].aggregators: an array of [first, end] pairs now, as switchd's "
			     "[[goat]]: write [[first, end]]");
	const std::string one = "id = 4\nlevels = 1\nfan_in = [1]\n[[worker]]\nip = \"10.0.0.1\"\nbit = [0]\n";
	EXPECT_FALSE(parse_ps_job(one + "[goat]\nplan = \"plan.json\"\n", job, &c, &err));
	EXPECT_EQ(err, job + ":8:8: goat.plan: has 2 workers, the job 1 (plan worker i is the job's i-th)");
	std::filesystem::remove_all(dir);
}
