/* SPDX-License-Identifier: BSD-3-Clause */
#include "forwarding_table.h"

namespace switchd {

ForwardingTable::ForwardingTable(const SwitchConfig &cfg)
{
	for (size_t p = 0; p < cfg.ports.size(); p++) {
		for (const Neighbour &n : cfg.ports[p].neighbours) {
			NextHop h{static_cast<uint16_t>(p), n.mac};
			by_ip_.insert(n.ip, h);
			by_mac_.insert(mac_key(n.mac.data()), h);
		}
	}
}

} /* namespace switchd */
