/* SPDX-License-Identifier: BSD-3-Clause */
#include "rdma_flow.h"

#include <arpa/inet.h>
#include <cstddef>
#include <cstring>

#include "ina/wire.h"

namespace ina {

void build_ina_flow(uint8_t port, const uint8_t *dst_mac, uint32_t dst_ip, RawFlowRule *out)
{
	memset(out, 0, sizeof(*out));
	out->attr.type = IBV_FLOW_ATTR_NORMAL;
	/* Exactly the attr and its specs: the kernel rejects trailing bytes
	 * (the struct itself is padded to 8). */
	out->attr.size = offsetof(RawFlowRule, udp) + sizeof(out->udp);
	out->attr.priority = 0;
	out->attr.num_of_specs = 3;
	out->attr.port = port;

	out->eth.type = IBV_FLOW_SPEC_ETH;
	out->eth.size = sizeof(out->eth);
	out->eth.val.ether_type = htons(0x0800);
	out->eth.mask.ether_type = 0xFFFF;
	if (dst_mac) {
		memcpy(out->eth.val.dst_mac, dst_mac, 6);
		memset(out->eth.mask.dst_mac, 0xFF, 6);
	}

	out->ipv4.type = IBV_FLOW_SPEC_IPV4;
	out->ipv4.size = sizeof(out->ipv4);
	if (dst_ip) {
		out->ipv4.val.dst_ip = htonl(dst_ip);
		out->ipv4.mask.dst_ip = 0xFFFFFFFFu;
	}

	out->udp.type = IBV_FLOW_SPEC_UDP;
	out->udp.size = sizeof(out->udp);
	out->udp.val.dst_port = htons(INA_UDP_PORT);
	out->udp.mask.dst_port = 0xFFFF;
}

} /* namespace ina */
