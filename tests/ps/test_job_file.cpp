/* SPDX-License-Identifier: BSD-3-Clause
 * Job description files: the example parses, mistakes are one-line errors. */
#include <gtest/gtest.h>

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
	const char *base = "job = 4\nlevels = 1\nfan_in = [2]\n"
			   "[[workers]]\nip = \"10.0.0.1\"\nbits = [0]\n"
			   "[[workers]]\nip = \"10.0.0.2\"\nbits = [1]\n";
	ASSERT_TRUE(parse_ps_job(base, "j.toml", &c, &err)) << err;
	EXPECT_FALSE(c.multicast_ack);
	EXPECT_EQ(c.workers[1].ip, 0x0A000002u);

	EXPECT_FALSE(parse_ps_job(std::string("windw = 8\n") + base, "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: windw: unknown key");
	EXPECT_FALSE(parse_ps_job("job = 70000\nlevels = 0\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: job: must be within 1..65535");
	EXPECT_FALSE(parse_ps_job("job = 1\nlevels = 1\nfan_in = [2, 2]\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: fan_in: must have 1 entries (levels)");
	EXPECT_FALSE(parse_ps_job("job = 1\nlevels = 0\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: workers: missing: one [[workers]] table per worker");
	EXPECT_FALSE(parse_ps_job("job = 1\nlevels = 0\n[[workers]]\nip = \"10.0.0\"\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: workers[0].ip: must be an IPv4 address \"a.b.c.d\"");
	EXPECT_FALSE(parse_ps_job("job = 1\nlevels = 0\nack = \"broadcast\"\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: ack: must be \"multicast\" or \"unicast\"");
	EXPECT_FALSE(parse_ps_job("job = = 1\n", "j.toml", &c, &err));
	EXPECT_EQ(err.rfind("j.toml:1: ", 0), 0u) << err;
	EXPECT_EQ(err.find('\n'), std::string::npos);
	EXPECT_FALSE(load_ps_job_file("/nonexistent/job.toml", &c, &err));
	EXPECT_EQ(err, "/nonexistent/job.toml: cannot open: No such file or directory");
	EXPECT_FALSE(load_ps_job_file("/dev/zero", &c, &err));
	EXPECT_EQ(err, "/dev/zero: is a device, not a regular file");

	/* Strict addresses, one worker per IP, memory within kPsMaxJobBytes. */
	const std::string two = "job = 4\nlevels = 1\nfan_in = [2]\n[[workers]]\nip = \"10.0.0.1\"\nbits = [0]\n";
	EXPECT_FALSE(parse_ps_job(two + "[[workers]]\nip = \"10.0.0.1\"\nbits = [1]\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: workers[1].ip: the same address as another worker");
	EXPECT_FALSE(parse_ps_job(two + "[[workers]]\nip = \"10.0.0.2\\u0000\"\nbits = [1]\n", "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: workers[1].ip: must be an IPv4 address \"a.b.c.d\"");
	EXPECT_FALSE(parse_ps_job(two + "[[workers]]\nip = \"10.0.0.2\"\nmac = \"-1:-1:-1:-1:-1:-1\"\nbits = [1]\n",
				  "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: workers[1].mac: must be a MAC address \"aa:bb:cc:dd:ee:ff\"");
	EXPECT_FALSE(parse_ps_job(two + "[[workers]]\nip = \"10.0.0.2\"\nmac = \"01:00:5e:00:00:01\"\nbits = [1]\n",
				  "j.toml", &c, &err));
	EXPECT_EQ(err, "j.toml: workers[1].mac: must be a host's MAC address, not zero, multicast or broadcast");
	EXPECT_FALSE(parse_ps_job("window = 16777216\n" + two, "j.toml", &c, &err));
	EXPECT_EQ(err.rfind("j.toml: window: job 4: window 16777216 ", 0), 0u) << err;
	EXPECT_TRUE(parse_ps_job("window = 65536\n" + two, "j.toml", &c, &err)) << err;
}
