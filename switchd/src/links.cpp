/* SPDX-License-Identifier: BSD-3-Clause */
#include "links.h"

#include <rte_ethdev.h>
#include <spdlog/spdlog.h>

namespace switchd {

/* A port counts as up after two consecutive checks saw it up (a memif
 * peer that has just connected has finished setting up its rings), as
 * down at once. */
void check_links(App &app, std::vector<uint8_t> &seen_up)
{
	for (size_t p = 0; p < app.port_id.size(); p++) {
		struct rte_eth_link link = {};
		rte_eth_link_get_nowait(app.port_id[p], &link);
		const bool up_now = link.link_status == RTE_ETH_LINK_UP;
		const bool was = app.port_up[p].load(std::memory_order_relaxed);
		if (!up_now) {
			seen_up[p] = 0;
			if (was) {
				app.port_up[p].store(0, std::memory_order_relaxed);
				spdlog::warn("port {}: link down", app.cfg.ports[p].name);
			}
		} else if (!was && ++seen_up[p] >= 2) {
			app.port_up[p].store(1, std::memory_order_relaxed);
			spdlog::info("port {}: link up", app.cfg.ports[p].name);
		}
	}
}

} /* namespace switchd */
