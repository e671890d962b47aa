/* SPDX-License-Identifier: BSD-3-Clause
 * The flow steering rule of the rdma transport: which frames the NIC hands
 * to the raw packet QP. A pure function, so it is tested without a device. */
#ifndef INA_TRANSPORT_RDMA_FLOW_H
#define INA_TRANSPORT_RDMA_FLOW_H

#include <infiniband/verbs.h>

#include <cstdint>

namespace ina {

/* ibv_flow_attr followed by its specs, as ibv_create_flow() wants them. */
struct __attribute__((packed, aligned(8))) RawFlowRule {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_ipv4 ipv4;
	struct ibv_flow_spec_tcp_udp udp;
};

/* IPv4/UDP frames to INA_UDP_PORT on `port`. With `dst_mac`, only frames
 * to that MAC; without (nullptr), any destination MAC, so the job's
 * multicast parameter packets are taken too. With `dst_ip` != 0 (host
 * order), only that IPv4 destination. */
void build_ina_flow(uint8_t port, const uint8_t *dst_mac, uint32_t dst_ip, RawFlowRule *out);

} /* namespace ina */

#endif
