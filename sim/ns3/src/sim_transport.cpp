/* SPDX-License-Identifier: BSD-3-Clause */
#include "sim_transport.h"

#include <algorithm>
#include <cstring>

#include <ns3/packet.h>

namespace ina::sim {

namespace {
/* The receive queue of a host: a kernel socket's worth of frames. */
constexpr size_t kRxQueueFrames = 65536;
/* PointToPointNetDevice maps only IPv4 and IPv6 to its PPP header; the
 * frames keep their own Ethernet header inside. */
constexpr uint16_t kPppIpv4 = 0x0800;
} /* namespace */

bool send_frame(const ns3::Ptr<ns3::NetDevice> &dev, const uint8_t *frame, uint32_t len)
{
	ns3::Ptr<ns3::Packet> p = ns3::Create<ns3::Packet>(frame, len);
	return dev->Send(p, dev->GetBroadcast(), kPppIpv4);
}

SimTransport::SimTransport(ns3::Ptr<ns3::NetDevice> dev, uint32_t ip, const uint8_t mac[6], uint32_t max_frame)
    : dev_(std::move(dev)), ip_(ip), max_frame_(max_frame)
{
	memcpy(mac_, mac, 6);
}

uint32_t SimTransport::send(const FrameBuf *frames, uint32_t n)
{
	/* The device queues or drops; a drop is a loss on the wire, which
	 * the library's recovery handles as it would a NIC's. */
	for (uint32_t i = 0; i < n; i++)
		if (!send_frame(dev_, frames[i].data, frames[i].len))
			tx_drops_++;
	return n;
}

uint32_t SimTransport::recv(FrameBuf *frames, uint32_t n, uint32_t)
{
	uint32_t got = 0;
	while (got < n && !rx_.empty()) {
		std::vector<uint8_t> &f = rx_.front();
		if (f.size() <= frames[got].capacity) {
			memcpy(frames[got].data, f.data(), f.size());
			frames[got].len = static_cast<uint32_t>(f.size());
			got++;
		} else {
			rx_drops_++;
		}
		rx_.pop_front();
	}
	return got;
}

void SimTransport::mac(uint8_t out[6]) const
{
	memcpy(out, mac_, 6);
}

void SimTransport::deliver(const uint8_t *frame, uint32_t len)
{
	if (rx_.size() >= kRxQueueFrames) {
		rx_drops_++;
		return;
	}
	rx_.emplace_back(frame, frame + len);
}

} /* namespace ina::sim */
