/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The neighbour table: which port and MAC address reach an IPv4 address, and
 * which port a MAC address sits behind. Built from the config at start and
 * never changed, so lcores read it without synchronisation.
 */
#ifndef INA_SWITCHD_FORWARDING_TABLE_H
#define INA_SWITCHD_FORWARDING_TABLE_H

#include <cstdint>

#include "config.h"
#include "flat_map.h"

namespace switchd {

struct NextHop {
	uint16_t port; /* index into the config's ports */
	Mac mac;
};

class ForwardingTable {
public:
	explicit ForwardingTable(const SwitchConfig &cfg);
	/* Host byte order IPv4. */
	const NextHop *by_ip(uint32_t ip) const { return by_ip_.find(ip); }
	const NextHop *by_mac(const uint8_t *mac) const { return by_mac_.find(mac_key(mac)); }

	static uint64_t mac_key(const uint8_t *m)
	{
		return (uint64_t)m[0] << 40 | (uint64_t)m[1] << 32 | (uint64_t)m[2] << 24 |
		       (uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
	}

private:
	FlatMap<NextHop> by_ip_;
	FlatMap<NextHop> by_mac_;
};

} /* namespace switchd */

#endif
