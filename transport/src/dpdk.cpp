/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The DPDK transport: one ethdev port, one RX and one TX queue, frames
 * copied between mbufs and the caller's buffers. The EAL is initialised
 * from TransportConfig::eal_args by the first dpdk transport of the process
 * (the EAL cannot be initialised twice); `device` names the port
 * ("net_af_packet0", a PCI address, ...), or is empty for the only port.
 * Poll mode: recv() with a timeout polls the queue until it expires.
 */
#include <atomic>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "ina/vdev.h"
#include "ina/wire.h"
#include "transports.h"

namespace ina {
namespace {

std::mutex g_eal_mutex;
bool g_eal_ready = false;
std::string g_eal_error; /* the EAL cannot be initialised again after a failure */

bool eal_init(const std::string &args, std::string *error)
{
	std::lock_guard<std::mutex> lock(g_eal_mutex);
	if (g_eal_ready)
		return true;
	if (!g_eal_error.empty()) {
		*error = g_eal_error;
		return false;
	}
	std::vector<std::string> words{"ina-transport"};
	/* memif buffers that hold the largest frame in one descriptor (ina/vdev.h). */
	std::istringstream is(complete_eal_vdevs(args, INA_FRAME_LEN(INA_MAX_ELEMENTS)));
	for (std::string w; is >> w;)
		words.push_back(w);
	std::vector<char *> argv;
	for (auto &w : words)
		argv.push_back(&w[0]);
	argv.push_back(nullptr);
	int r = rte_eal_init(static_cast<int>(words.size()), argv.data());
	if (r < 0) {
		g_eal_error = std::string("dpdk transport: EAL init failed (") + rte_strerror(rte_errno) +
			      "); without hugepages pass eal_args \"--no-huge -m 512 --no-shconf ...\"";
		*error = g_eal_error;
		return false;
	}
	g_eal_ready = true;
	return true;
}

class DpdkTransport final : public Transport {
public:
	~DpdkTransport() override
	{
		if (started_) {
			rte_eth_dev_stop(port_);
			rte_eth_dev_close(port_);
		}
		if (pool_)
			rte_mempool_free(pool_);
	}

	bool open(const TransportConfig &cfg, std::string *error)
	{
		if (!eal_init(cfg.eal_args, error))
			return false;
		if (cfg.device.empty()) {
			if (rte_eth_dev_count_avail() != 1) {
				*error = "dpdk transport: " + std::to_string(rte_eth_dev_count_avail()) +
					 " ports available; name one (device)";
				return false;
			}
			uint16_t p;
			RTE_ETH_FOREACH_DEV(p) { port_ = p; }
		} else if (rte_eth_dev_get_port_by_name(cfg.device.c_str(), &port_) != 0) {
			*error = "dpdk transport: no DPDK port named " + cfg.device +
				 " (add it with --vdev or a PCI allow-list in eal_args)";
			return false;
		}
		ip_ = cfg.ip;
		std::string pool_name = "ina_tp_" + std::to_string(port_);
		int socket = rte_eth_dev_socket_id(port_);
		/* Room for the largest INA frame, behind AF_XDP's headroom when
		 * the port is an af_xdp vdev. */
		const uint32_t room = RTE_PKTMBUF_HEADROOM + 256 + INA_FRAME_LEN(INA_MAX_ELEMENTS);
		pool_ = rte_pktmbuf_pool_create(pool_name.c_str(), 4095, 128, 0, static_cast<uint16_t>(room),
						socket < 0 ? SOCKET_ID_ANY : socket);
		if (!pool_) {
			*error = std::string("dpdk transport: mbuf pool: ") + rte_strerror(rte_errno);
			return false;
		}
		struct rte_eth_conf conf;
		memset(&conf, 0, sizeof(conf));
		/* The MTU of the largest INA frame, where the driver allows it:
		 * a port left at its default 1500 would cap the job's fragments
		 * (max_frame) below what its mbufs and the link carry. */
		struct rte_eth_dev_info info;
		if (rte_eth_dev_info_get(port_, &info) == 0) {
			/* memif states Ethernet's 1514 bytes as its largest frame,
			 * but the bsize ina/vdev.h gives it carries the largest
			 * INA frame in one descriptor. */
			memif_ = info.driver_name && strcmp(info.driver_name, "net_memif") == 0;
			/* ethdev's own bound: the frame (MTU + its overhead) within max_rx_pktlen. */
			const uint32_t overhead = info.max_mtu != UINT16_MAX && info.max_rx_pktlen > info.max_mtu
				? info.max_rx_pktlen - info.max_mtu
				: RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
			uint32_t mtu = INA_FRAME_LEN(INA_MAX_ELEMENTS) - RTE_ETHER_HDR_LEN;
			if (mtu > info.max_mtu)
				mtu = info.max_mtu;
			if (info.max_rx_pktlen > overhead && mtu > info.max_rx_pktlen - overhead)
				mtu = info.max_rx_pktlen - overhead;
			if (mtu > RTE_ETHER_MTU)
				conf.rxmode.mtu = mtu;
		}
		int r = rte_eth_dev_configure(port_, 1, 1, &conf);
		uint16_t nb_rx = 1024, nb_tx = 1024;
		if (r == 0)
			r = rte_eth_dev_adjust_nb_rx_tx_desc(port_, &nb_rx, &nb_tx);
		if (r == 0)
			r = rte_eth_rx_queue_setup(port_, 0, nb_rx, socket < 0 ? SOCKET_ID_ANY : socket, nullptr, pool_);
		if (r == 0)
			r = rte_eth_tx_queue_setup(port_, 0, nb_tx, socket < 0 ? SOCKET_ID_ANY : socket, nullptr);
		if (r == 0)
			r = rte_eth_dev_start(port_);
		if (r != 0) {
			*error = "dpdk transport: cannot set up port " + cfg.device + ": " + rte_strerror(-r);
			return false;
		}
		started_ = true;
		/* Multicast parameter packets carry the group's MAC. */
		rte_eth_promiscuous_enable(port_);
		struct rte_ether_addr a;
		rte_eth_macaddr_get(port_, &a);
		memcpy(mac_, a.addr_bytes, 6);
		return true;
	}

	uint32_t send(const FrameBuf *frames, uint32_t n) override
	{
		uint32_t done = 0;
		while (done < n) {
			uint32_t batch = n - done < kTransportBatch ? n - done : kTransportBatch;
			if (rte_pktmbuf_alloc_bulk(pool_, tx_mbufs_, batch) != 0)
				return done;
			for (uint32_t i = 0; i < batch; i++) {
				const FrameBuf &f = frames[done + i];
				char *d = rte_pktmbuf_append(tx_mbufs_[i], static_cast<uint16_t>(f.len));
				if (!d) {
					/* Larger than an mbuf: never sent, as a short
					 * send() tells the caller. */
					rte_pktmbuf_free_bulk(tx_mbufs_ + i, batch - i);
					batch = i;
					break;
				}
				memcpy(d, f.data, f.len);
			}
			if (batch == 0)
				return done;
			uint16_t sent = rte_eth_tx_burst(port_, 0, tx_mbufs_, static_cast<uint16_t>(batch));
			if (sent < batch)
				rte_pktmbuf_free_bulk(tx_mbufs_ + sent, batch - sent);
			done += sent;
			if (sent < batch)
				break;
		}
		return done;
	}

	uint32_t recv(FrameBuf *frames, uint32_t n, uint32_t timeout_us) override
	{
		return poll_recv(timeout_us, [&] { return drain(frames, n); });
	}

	uint64_t rx_drops() const override
	{
		struct rte_eth_stats st = {};
		rte_eth_stats_get(port_, &st);
		return st.imissed + st.rx_nombuf + truncated_rx_.load(std::memory_order_relaxed);
	}
	const char *name() const override { return "dpdk"; }
	/* The port's MTU (the driver's default where nobody raised it),
	 * within the mbufs' room. */
	uint32_t max_frame() const override
	{
		uint16_t mtu = 0;
		const uint32_t room = INA_FRAME_LEN(INA_MAX_ELEMENTS);
		if (memif_ || rte_eth_dev_get_mtu(port_, &mtu) != 0 || mtu == 0)
			return room;
		return uint32_t(mtu) + RTE_ETHER_HDR_LEN < room ? uint32_t(mtu) + RTE_ETHER_HDR_LEN : room;
	}
	uint32_t ip() const override { return ip_; }
	void mac(uint8_t out[6]) const override { memcpy(out, mac_, 6); }

private:
	bool memif_ = false;
	uint32_t drain(FrameBuf *frames, uint32_t n)
	{
		uint32_t want = n < kTransportBatch ? n : kTransportBatch;
		uint16_t got = rte_eth_rx_burst(port_, 0, rx_mbufs_, static_cast<uint16_t>(want));
		uint32_t out = 0;
		for (uint16_t i = 0; i < got; i++) {
			struct rte_mbuf *m = rx_mbufs_[i];
			uint32_t len = rte_pktmbuf_pkt_len(m);
			if (len <= frames[out].capacity) {
				const void *p = rte_pktmbuf_read(m, 0, len, frames[out].data);
				if (p != frames[out].data)
					memcpy(frames[out].data, p, len);
				frames[out].len = len;
				out++;
			} else {
				truncated_rx_.fetch_add(1, std::memory_order_relaxed);
			}
		}
		if (got)
			rte_pktmbuf_free_bulk(rx_mbufs_, got);
		return out;
	}

	uint16_t port_ = 0;
	bool started_ = false;
	struct rte_mempool *pool_ = nullptr;
	uint32_t ip_ = 0;
	uint8_t mac_[6] = {};
	std::atomic<uint64_t> truncated_rx_{0}; /* frames longer than the caller's buffer */
	struct rte_mbuf *rx_mbufs_[kTransportBatch];
	struct rte_mbuf *tx_mbufs_[kTransportBatch];
};

} /* namespace */

std::unique_ptr<Transport> open_dpdk(const TransportConfig &cfg, std::string *error)
{
	auto t = std::make_unique<DpdkTransport>();
	if (!t->open(cfg, error))
		return nullptr;
	return t;
}

} /* namespace ina */
