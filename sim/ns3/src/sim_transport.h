/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A Transport (ina/transport.h) over one ns-3 NetDevice: send() hands each
 * frame to the device as a packet; frames the device delivers wait in a
 * queue until recv() takes them. recv() never waits: the simulator's clock
 * only moves between events, so the host's application polls its library
 * when a frame arrives (deliver()).
 */
#ifndef INA_SIM_TRANSPORT_H
#define INA_SIM_TRANSPORT_H

#include <cstdint>
#include <deque>
#include <vector>

#include <ns3/net-device.h>
#include <ns3/ptr.h>

#include "ina/transport.h"

namespace ina::sim {

class SimTransport final : public Transport {
public:
	SimTransport(ns3::Ptr<ns3::NetDevice> dev, uint32_t ip, const uint8_t mac[6], uint32_t max_frame);
	uint32_t send(const FrameBuf *frames, uint32_t n) override;
	uint32_t recv(FrameBuf *frames, uint32_t n, uint32_t timeout_us) override;
	const char *name() const override { return "ns3"; }
	uint64_t rx_drops() const override { return rx_drops_; }
	uint32_t ip() const override { return ip_; }
	void mac(uint8_t out[6]) const override;
	uint32_t max_frame() const override { return max_frame_; }

	/* A frame the device received for this host. */
	void deliver(const uint8_t *frame, uint32_t len);
	/* Frames the device's queue refused (a full host NIC queue). */
	uint64_t tx_drops() const { return tx_drops_; }

private:
	ns3::Ptr<ns3::NetDevice> dev_;
	uint32_t ip_;
	uint8_t mac_[6];
	uint32_t max_frame_;
	std::deque<std::vector<uint8_t>> rx_;
	uint64_t rx_drops_ = 0, tx_drops_ = 0;
};

/* Sends one whole frame out of a device (PPP carries it as IPv4). */
bool send_frame(const ns3::Ptr<ns3::NetDevice> &dev, const uint8_t *frame, uint32_t len);

} /* namespace ina::sim */

#endif /* INA_SIM_TRANSPORT_H */
