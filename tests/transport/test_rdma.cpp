/* SPDX-License-Identifier: BSD-3-Clause
 * The rdma transport without a device: open fails with one clear line, and
 * the flow steering rule is laid out the way ibv_create_flow() reads it
 * (specs back to back after ibv_flow_attr, each `size` long). */
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include <cstddef>

#include "ina/transport.h"
#include "ina/wire.h"
#include "rdma_flow.h"

using namespace ina;

TEST(TransportRdma, OpenWithoutDeviceFailsClearly)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	TransportConfig cfg;
	cfg.kind = "rdma";
	std::string err;
	auto t = open_transport(cfg, &err);
	if (n > 0) {
		/* A machine with a device: it opens, or says why in one line. */
		if (!t) {
			EXPECT_EQ(err.find('\n'), std::string::npos) << err;
		}
		GTEST_SKIP() << n << " RDMA device(s) present";
	}
	EXPECT_FALSE(t);
	EXPECT_EQ(err, "no RDMA device found (ibv_get_device_list returned 0 devices)");
	cfg.device = "mlx5_9";
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_EQ(err, "no RDMA device found (ibv_get_device_list returned 0 devices)");
}

TEST(TransportRdma, FlowRuleTakesInaFramesOfAnyMac)
{
	RawFlowRule r;
	build_ina_flow(1, nullptr, 0, &r);
	EXPECT_EQ(r.attr.type, IBV_FLOW_ATTR_NORMAL);
	EXPECT_EQ(r.attr.num_of_specs, 3);
	EXPECT_EQ(r.attr.port, 1);
	EXPECT_EQ(r.attr.size, sizeof(struct ibv_flow_attr) + sizeof(struct ibv_flow_spec_eth) +
				       sizeof(struct ibv_flow_spec_ipv4) + sizeof(struct ibv_flow_spec_tcp_udp));
	/* Back to back: each spec starts where the previous one's size ends. */
	EXPECT_EQ(offsetof(RawFlowRule, eth), sizeof(struct ibv_flow_attr));
	EXPECT_EQ(offsetof(RawFlowRule, ipv4), offsetof(RawFlowRule, eth) + r.eth.size);
	EXPECT_EQ(offsetof(RawFlowRule, udp), offsetof(RawFlowRule, ipv4) + r.ipv4.size);
	EXPECT_EQ(r.attr.size, offsetof(RawFlowRule, udp) + r.udp.size);

	EXPECT_EQ(r.eth.type, IBV_FLOW_SPEC_ETH);
	EXPECT_EQ(r.eth.val.ether_type, htons(0x0800));
	EXPECT_EQ(r.eth.mask.ether_type, 0xFFFF);
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(r.eth.mask.dst_mac[i], 0) << "multicast ACKs must match";
	EXPECT_EQ(r.ipv4.type, IBV_FLOW_SPEC_IPV4);
	EXPECT_EQ(r.ipv4.mask.dst_ip, 0u);
	EXPECT_EQ(r.udp.type, IBV_FLOW_SPEC_UDP);
	EXPECT_EQ(r.udp.val.dst_port, htons(INA_UDP_PORT));
	EXPECT_EQ(r.udp.mask.dst_port, 0xFFFF);
	EXPECT_EQ(r.udp.mask.src_port, 0);
}

TEST(TransportRdma, FlowRuleNarrowedToMacAndAddress)
{
	const uint8_t mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
	RawFlowRule r;
	build_ina_flow(2, mac, 0x0A000105, &r);
	EXPECT_EQ(r.attr.port, 2);
	for (int i = 0; i < 6; i++) {
		EXPECT_EQ(r.eth.val.dst_mac[i], mac[i]);
		EXPECT_EQ(r.eth.mask.dst_mac[i], 0xFF);
		EXPECT_EQ(r.eth.mask.src_mac[i], 0);
	}
	EXPECT_EQ(r.ipv4.val.dst_ip, htonl(0x0A000105));
	EXPECT_EQ(r.ipv4.mask.dst_ip, 0xFFFFFFFFu);
	EXPECT_EQ(r.ipv4.mask.src_ip, 0u);
}
