/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The rings the control thread's ACKs leave by (control.h): one per port,
 * drained by lcore 0's egress queue of that port.
 */
#include "control.h"

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ring.h>
#include <spdlog/spdlog.h>

namespace switchd {

std::string setup_control_tx(App &app)
{
	for (size_t p = 0; p < app.cfg.ports.size(); p++) {
		const std::string name = "ina_ctl_tx" + std::to_string(p);
		rte_ring *r = rte_ring_create(name.c_str(), 64, rte_eth_dev_socket_id(app.port_id[p]),
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!r)
			return "cannot create the control TX ring: " + std::string(rte_strerror(rte_errno));
		app.control_tx.push_back(r);
		app.lcores[0]->egress[p].set_inbox(r);
	}
	const SwitchConfig &cfg = app.cfg;
	if (!cfg.control_key.empty())
		spdlog::info("control messages: HMAC-SHA256 with the key of {}, counters within {} s",
			     cfg.control_key_file, cfg.control_window_s);
	else if (!cfg.control_auth)
		spdlog::warn("control messages: control_auth = false, so any host on the network can "
			     "register, replace or remove jobs (docs/security.md)");
	else
		spdlog::warn("control messages: no control_key_file, every control message is dropped "
			     "(counted as control_auth_drops); jobs come from the config only");
	if (!cfg.control_key_warning.empty())
		spdlog::warn("{}", cfg.control_key_warning);
	return "";
}

} /* namespace switchd */
