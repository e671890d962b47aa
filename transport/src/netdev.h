/* SPDX-License-Identifier: BSD-3-Clause
 * Kernel interface lookup (index, MAC, first IPv4 address). */
#ifndef INA_TRANSPORT_NETDEV_H
#define INA_TRANSPORT_NETDEV_H

#include <cstdint>
#include <string>

#include "ina/transport.h"

namespace ina {

struct Netdev {
	int ifindex = 0;
	uint8_t mac[6] = {};
	uint32_t ip = 0; /* host order; 0 if the interface has none */
	uint32_t mtu = 0;
};

/* Fills *out for interface `name`; false with a one-line *error if there is
 * no such interface. */
bool netdev_lookup(const std::string &name, Netdev *out, std::string *error);

/* The interface a packet transport (`kind`, for the message) runs on:
 * cfg.device looked up, its address replaced by cfg.ip when that is set. */
bool netdev_for_transport(const TransportConfig &cfg, const char *kind, Netdev *out,
			  std::string *error);

/* The MTU of the interface that holds IPv4 address `ip` (host order), or
 * else of one whose subnet has it; 0 if none. */
uint32_t netdev_mtu_of_ip(uint32_t ip);

/* A frame of an interface with this MTU: the IP packet and the Ethernet
 * header (no VLAN tag: the transports send none). */
constexpr uint32_t kEthHeaderLen = 14;
/* Ethernet's MTU, where no interface tells (an address no interface holds). */
constexpr uint32_t kStandardMtu = 1500;

/* Packets the kernel dropped on this socket's receive side (its buffer was
 * full), SO_MEMINFO's SK_MEMINFO_DROPS; 0 where the kernel cannot say. */
uint64_t socket_rx_drops(int fd);

} /* namespace ina */

#endif
