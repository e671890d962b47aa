/* SPDX-License-Identifier: BSD-3-Clause
 * The worker's roce transport (NetReduce) from the outside: its config keys,
 * validate() taking the ring instead of the PS, and Worker::open() failing
 * with one line on a host without an RDMA device. */
#include <gtest/gtest.h>

#include <infiniband/verbs.h>

#include "ina/worker.h"

using namespace ina;

namespace {

WorkerConfig roce_config()
{
	WorkerConfig c;
	std::string err;
	for (auto kv : std::vector<std::pair<const char *, const char *>>{{"transport", "roce"},
									  {"rank", "1"},
									  {"roce_ranks", "3"},
									  {"roce_ring", "9"},
									  {"roce_next", "10.0.0.3:19000"},
									  {"roce_listen", "10.0.0.2"},
									  {"roce_window", "16"},
									  {"roce_msg_bytes", "8192"},
									  {"roce_mtu", "2048"},
									  {"roce_timeout_us", "250"},
									  {"roce_gid_index", "3"},
									  {"roce_ib_port", "2"},
									  {"roce_setup_timeout_ms", "1500"}})
		EXPECT_TRUE(set_config_key(&c, kv.first, kv.second, &err)) << kv.first << ": " << err;
	return c;
}

} /* namespace */

TEST(RoceConfig, KeysFillTheRingConfig)
{
	WorkerConfig c = roce_config();
	EXPECT_EQ(c.transport.kind, "roce");
	EXPECT_EQ(c.roce.ranks, 3);
	EXPECT_EQ(c.roce.ring_id, 9);
	EXPECT_EQ(c.roce.successor_ip, 0x0A000003u);
	EXPECT_EQ(c.roce.successor_port, 19000);
	EXPECT_EQ(c.roce.listen_ip, 0x0A000002u);
	EXPECT_EQ(c.roce.listen_port, kRoceSetupPort) << "no port given: the default stays";
	EXPECT_EQ(c.roce.window.window, 16u);
	EXPECT_EQ(c.roce.window.msg_bytes, 8192u);
	EXPECT_EQ(c.roce.window.mtu, 2048u);
	EXPECT_EQ(c.roce.window.timeout_ns, 250000u);
	EXPECT_EQ(c.roce.gid_index, 3);
	EXPECT_EQ(c.roce.port, 2);
	EXPECT_EQ(c.roce.setup_timeout_ms, 1500u);
	/* No PS: validate() checks the ring instead. */
	std::string err;
	EXPECT_TRUE(c.ps.empty());
	EXPECT_TRUE(validate(c, &err)) << err;
}

TEST(RoceConfig, BadValuesRefused)
{
	WorkerConfig c;
	std::string err;
	EXPECT_FALSE(set_config_key(&c, "roce_next", "10.0.0.3:0", &err));
	EXPECT_EQ(err, "bad value '10.0.0.3:0' for worker config key 'roce_next'");
	EXPECT_FALSE(set_config_key(&c, "roce_next", "10.0.0.3:70000", &err));
	EXPECT_FALSE(set_config_key(&c, "roce_listen", "host:1", &err));
	EXPECT_FALSE(set_config_key(&c, "roce_ranks", "256", &err));
	EXPECT_FALSE(set_config_key(&c, "roce_gid_index", "-1", &err));
	EXPECT_FALSE(set_config_key(&c, "roce_timeout_us", "1e3", &err));

	struct Case {
		const char *key, *value, *want;
	} cases[] = {
		{"roce_window", "0", "roce window must be 1..4096 messages, got 0"},
		{"roce_msg_bytes", "3000", "roce message size 3000 is not a multiple of the MTU payload 2048"},
		{"roce_mtu", "1500", "roce MTU must be 256, 512, 1024, 2048 or 4096, got 1500"},
		{"roce_ranks", "40", "roce ring of 40 ranks, must be 1..32"},
		{"rank", "3", "roce rank 3 must be below the ring's 3 ranks"},
		{"rank", "33", "roce rank 33 must be below 32"},
	};
	for (const Case &k : cases) {
		WorkerConfig w = roce_config();
		ASSERT_TRUE(set_config_key(&w, k.key, k.value, &err)) << k.key;
		EXPECT_FALSE(validate(w, &err)) << k.key << "=" << k.value;
		EXPECT_EQ(err, k.want);
		EXPECT_FALSE(Worker::open(w, &err));
		EXPECT_EQ(err, k.want) << "open checks before it looks for a device";
	}
}

TEST(RoceConfig, OpenWithoutDeviceFailsWithOneLine)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	if (n > 0)
		GTEST_SKIP() << n << " RDMA device(s) present";
	WorkerConfig c = roce_config();
	std::string err;
	EXPECT_FALSE(Worker::open(c, &err));
	EXPECT_EQ(err, "roce transport: no RDMA device found (ibv_get_device_list returned 0 devices)");
}
