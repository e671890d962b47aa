/* SPDX-License-Identifier: BSD-3-Clause
 * The transport implementations, opened by open_transport(). Each returns
 * nullptr with a one-line *error when it cannot be used here. */
#ifndef INA_TRANSPORT_TRANSPORTS_H
#define INA_TRANSPORT_TRANSPORTS_H

#include <poll.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ina/transport.h"

namespace ina {

/* Frames per send/recv system call; callers may pass more, they are split. */
constexpr uint32_t kTransportBatch = 64;

std::unique_ptr<Transport> open_udp(const TransportConfig &cfg, std::string *error);
/* `queues` udp sockets on one ip:port (SO_REUSEPORT), steered by cfg.steer. */
std::vector<std::unique_ptr<Transport>> open_udp_queues(const TransportConfig &cfg, uint32_t queues,
							 std::string *error);
std::unique_ptr<Transport> open_af_packet(const TransportConfig &cfg, std::string *error);
std::unique_ptr<Transport> open_af_xdp(const TransportConfig &cfg, std::string *error);
std::unique_ptr<Transport> open_dpdk(const TransportConfig &cfg, std::string *error);
std::unique_ptr<Transport> open_rdma(const TransportConfig &cfg, std::string *error);

/* Opens an UDP socket bound to ip:INA_UDP_PORT that drops everything it
 * receives, so that the kernel does not answer INA frames taken by a packet
 * transport with ICMP port-unreachable. Best effort: -1 if it cannot. */
int open_udp_absorber(uint32_t ip);

/* recv() for the polled transports (dpdk, rdma): `drain` takes what is
 * there; while nothing is, wait up to timeout_us, leaving the core to
 * others between polls. */
template <typename Drain> uint32_t poll_recv(uint32_t timeout_us, Drain drain)
{
	uint32_t got = drain();
	if (got || timeout_us == 0)
		return got;
	auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(timeout_us);
	while (std::chrono::steady_clock::now() < until) {
		if ((got = drain()) != 0)
			return got;
		std::this_thread::sleep_for(std::chrono::microseconds(20));
	}
	return 0;
}

/* recv() for the transports with file descriptors (udp, af_packet, af_xdp):
 * `drain` takes what is there; when nothing is, sleep in ppoll() on fds for
 * up to timeout_us and drain once more. */
template <typename Drain> uint32_t fd_recv(struct pollfd *fds, uint32_t nfds, uint32_t timeout_us, Drain drain)
{
	uint32_t got = drain();
	if (got || timeout_us == 0)
		return got;
	for (uint32_t i = 0; i < nfds; i++)
		fds[i].events = POLLIN;
	struct timespec ts;
	ts.tv_sec = timeout_us / 1000000;
	ts.tv_nsec = (timeout_us % 1000000) * 1000L;
	if (ppoll(fds, nfds, &ts, nullptr) <= 0)
		return 0;
	return drain();
}

} /* namespace ina */

#endif
