/* SPDX-License-Identifier: BSD-3-Clause */
#include "ports.h"

#include <algorithm>

#include <rte_ethdev.h>
#include <rte_flow.h>
#include <spdlog/spdlog.h>

namespace switchd {

const char *steering_name(Steering s)
{
	switch (s) {
	case Steering::kSingle:
		return "single lcore (no steering needed)";
	case Steering::kNic:
		return "NIC steering: rte_flow on the UDP source port, queue k to lcore k";
	case Steering::kQueue:
		return "queue k to lcore k, no rte_flow: the sender's queue choice steers, "
		       "misdirected INA packets are handed off";
	case Steering::kHandoff:
		return "fewer RX queues than lcores: queues dealt round robin, INA packets handed off "
		       "to their owner";
	}
	return "?";
}

std::string find_ports(App &app)
{
	app.port_index.assign(RTE_MAX_ETHPORTS, -1);
	for (size_t i = 0; i < app.cfg.ports.size(); i++) {
		const PortConfig &p = app.cfg.ports[i];
		uint16_t id;
		if (rte_eth_dev_get_port_by_name(p.name.c_str(), &id) != 0) {
			std::string hint = p.is_vdev
				? "the vdev failed to probe: check its arguments (e.g. the interface exists)"
				: "bind the NIC to a DPDK driver with dpdk-devbind.py and allow it with -a";
			std::string avail;
			uint16_t pid;
			RTE_ETH_FOREACH_DEV(pid)
			{
				char name[RTE_ETH_NAME_MAX_LEN];
				if (rte_eth_dev_get_name_by_port(pid, name) == 0)
					avail += std::string(avail.empty() ? "" : ", ") + name;
			}
			return "port '" + p.name + "' does not exist (" + hint +
			       "); DPDK ports found: " + (avail.empty() ? "none" : avail);
		}
		app.port_id.push_back(id);
		app.port_index[id] = static_cast<int16_t>(i);
	}
	return "";
}

namespace {

/* One rule per lcore k: INA traffic whose UDP source port has k in its low
 * bits goes to RX queue k. Workers set the source port with
 * ina::steering_src_port(agg_index) (ina/codec.h), so a fragment lands on the
 * lcore that owns agg_index % n directly (n a power of two, at most
 * ina::kSteeringIndexMask + 1). */
bool install_flows(uint16_t port_id, unsigned n, std::string *why)
{
	for (unsigned k = 0; k < n; k++) {
		struct rte_flow_attr attr = {};
		attr.ingress = 1;
		struct rte_flow_item_udp udp_spec = {}, udp_mask = {};
		udp_spec.hdr.dst_port = rte_cpu_to_be_16(INA_UDP_PORT);
		udp_spec.hdr.src_port = rte_cpu_to_be_16(static_cast<uint16_t>(k));
		udp_mask.hdr.dst_port = 0xFFFF;
		udp_mask.hdr.src_port = rte_cpu_to_be_16(static_cast<uint16_t>(n - 1));
		struct rte_flow_item pattern[4] = {};
		pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
		pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
		pattern[2].type = RTE_FLOW_ITEM_TYPE_UDP;
		pattern[2].spec = &udp_spec;
		pattern[2].mask = &udp_mask;
		pattern[3].type = RTE_FLOW_ITEM_TYPE_END;
		struct rte_flow_action_queue queue = {};
		queue.index = static_cast<uint16_t>(k);
		struct rte_flow_action actions[2] = {};
		actions[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
		actions[0].conf = &queue;
		actions[1].type = RTE_FLOW_ACTION_TYPE_END;
		struct rte_flow_error err = {};
		if (!rte_flow_create(port_id, &attr, pattern, actions, &err)) {
			*why = err.message ? err.message : "rte_flow_create failed";
			rte_flow_flush(port_id, &err);
			return false;
		}
	}
	return true;
}

} /* namespace */

namespace {

/* Device limits and capabilities of one port, before it is configured. */
std::string probe_port(App &app, size_t i, unsigned n, uint16_t *nrxq)
{
	const std::string &name = app.cfg.ports[i].name;
	struct rte_eth_dev_info info;
	if (rte_eth_dev_info_get(app.port_id[i], &info) != 0)
		return "port '" + name + "': cannot read device info";
	/* Parameter copies share their payload through chained mbufs; ports
	 * that cannot send chains get flat copies. net_ring hands mbufs over as
	 * they are. */
	const bool chains = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) ||
			    std::string(info.driver_name ? info.driver_name : "") == "net_ring";
	app.port_multiseg.push_back(chains);
	if (!chains)
		spdlog::info("port {} ({}) cannot send chained mbufs: parameter copies to it carry their "
			     "own payload", name, info.driver_name);
	if (info.max_tx_queues < n)
		return "port '" + name + "' has " + std::to_string(info.max_tx_queues) + " TX queues, " +
		       std::to_string(n) + " lcores need one each (for af_packet add qpairs=" +
		       std::to_string(n) + " to its vdev arguments, or use fewer lcores)";
	*nrxq = static_cast<uint16_t>(std::min<unsigned>(n, info.max_rx_queues));
	/* Several vdevs (af_packet, memif, tap) report 1518 bytes whatever
	 * their buffers carry, so a smaller limit is a warning; a frame that
	 * arrives cut short is a counted malformed drop. */
	const uint32_t frame = INA_FRAME_LEN(app.cfg.elements);
	app.port_mtu.push_back(0);
	if (frame <= RTE_ETHER_MAX_LEN - RTE_ETHER_CRC_LEN)
		return "";
	if (info.max_rx_pktlen >= frame)
		app.port_mtu.back() = static_cast<uint16_t>(frame - RTE_ETHER_HDR_LEN);
	else
		spdlog::warn("port {} ({}) reports frames of at most {} bytes; fragments of {} elements make "
			     "{}-byte frames: its buffers and link must carry them (docs/switchd.md)",
			     name, info.driver_name, info.max_rx_pktlen, app.cfg.elements, frame);
	return "";
}

std::string start_port(App &app, size_t i, uint16_t nrxq, unsigned n)
{
	const uint16_t id = app.port_id[i];
	const std::string &name = app.cfg.ports[i].name;
	struct rte_eth_conf conf = {};
	if (app.port_multiseg[i])
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	/* Fragments larger than a standard frame need the port's MTU raised
	 * (the link's, too: docs/switchd.md). */
	if (app.port_mtu[i])
		conf.rxmode.mtu = app.port_mtu[i];
	int rc = rte_eth_dev_configure(id, nrxq, static_cast<uint16_t>(n), &conf);
	if (rc != 0)
		return "port '" + name + "': configure failed: " + rte_strerror(-rc);
	uint16_t nb_rxd = app.cfg.rx_descriptors, nb_txd = app.cfg.tx_descriptors;
	rte_eth_dev_adjust_nb_rx_tx_desc(id, &nb_rxd, &nb_txd);
	const int socket = rte_eth_dev_socket_id(id);
	for (uint16_t q = 0; q < nrxq; q++) {
		rc = rte_eth_rx_queue_setup(id, q, nb_rxd, socket, nullptr, app.pool);
		if (rc != 0)
			return "port '" + name + "': RX queue setup failed: " + rte_strerror(-rc);
	}
	for (uint16_t q = 0; q < n; q++) {
		rc = rte_eth_tx_queue_setup(id, q, nb_txd, socket, nullptr);
		if (rc != 0)
			return "port '" + name + "': TX queue setup failed: " + rte_strerror(-rc);
	}
	rte_eth_promiscuous_enable(id);
	rc = rte_eth_dev_start(id);
	if (rc != 0)
		return "port '" + name + "': start failed: " + rte_strerror(-rc);
	struct rte_ether_addr mac;
	rte_eth_macaddr_get(id, &mac);
	Mac m;
	memcpy(m.data(), mac.addr_bytes, 6);
	if (app.cfg.mac != Mac{})
		m = app.cfg.mac;
	app.port_mac.push_back(m);
	return "";
}

/* How packets of port i reach their owner, and why not better. */
Steering port_steering(App &app, size_t i, uint16_t nrxq, unsigned n, std::string *why)
{
	if (n == 1)
		return Steering::kSingle;
	if (nrxq < n) {
		*why = std::to_string(nrxq) + " RX queue(s)";
		return Steering::kHandoff;
	}
	if ((n & (n - 1)) != 0) {
		*why = "lcore count not a power of two, no rte_flow rules";
		return Steering::kQueue;
	}
	if (app.cfg.steering != "auto") {
		*why = "steering = \"" + app.cfg.steering + "\" in the config";
		return Steering::kQueue;
	}
	if (!install_flows(app.port_id[i], n, why))
		return Steering::kQueue;
	return Steering::kNic;
}

} /* namespace */

/*
 * Every port gets one TX queue per lcore and up to one RX queue per lcore.
 * With as many RX queues as lcores, lcore k polls queue k of the port, and
 * the port steers in hardware if it takes the rte_flow rules; with fewer,
 * its queues are dealt round robin. In every mode an lcore hands an INA
 * packet it does not own to the owner, so steering only decides how rare
 * hand-offs are, never whether results are right.
 */
std::string setup_ports(App &app)
{
	const unsigned n = static_cast<unsigned>(app.lcores.size());
	std::vector<uint16_t> nrxq(app.port_id.size(), 1);
	for (size_t i = 0; i < app.port_id.size(); i++) {
		std::string err = probe_port(app, i, n, &nrxq[i]);
		if (err.empty())
			err = start_port(app, i, nrxq[i], n);
		if (!err.empty())
			return err;
	}
	unsigned next = 0;
	for (size_t i = 0; i < app.port_id.size(); i++) {
		std::string why;
		const Steering s = port_steering(app, i, nrxq[i], n, &why);
		app.port_steering.push_back(s);
		spdlog::info("port {} steering: {}{}", app.cfg.ports[i].name, steering_name(s),
			     why.empty() ? "" : " (" + why + ")");
		for (uint16_t q = 0; q < nrxq[i]; q++) {
			const unsigned lc = nrxq[i] == n ? q : (next++ % n);
			app.lcores[lc]->rx.push_back(RxQueueRef{static_cast<uint16_t>(i), app.port_id[i], q});
		}
	}
	return "";
}

void stop_ports(App &app)
{
	for (uint16_t id : app.port_id) {
		rte_eth_dev_stop(id);
		rte_eth_dev_close(id);
	}
}

} /* namespace switchd */
