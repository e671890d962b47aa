/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A host's network interface in the simulated network: every frame its
 * link delivers goes to one handler, chosen by UDP destination port: a
 * background flow's receiver (its port), else the host's application (the
 * worker or the PS), as a host's kernel and its AF_XDP filter split INA's
 * port from the rest in the lab. A frame nobody takes is counted.
 */
#ifndef INA_SIM_HOST_PORT_H
#define INA_SIM_HOST_PORT_H

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include <ns3/net-device.h>
#include <ns3/ptr.h>

namespace ina::sim {

class HostPort {
public:
	using Handler = std::function<void(const uint8_t *frame, uint32_t len)>;

	explicit HostPort(ns3::Ptr<ns3::NetDevice> dev);
	ns3::Ptr<ns3::NetDevice> device() const { return dev_; }
	/* The application: frames no flow takes. */
	void set_app(Handler h) { app_ = std::move(h); }
	/* UDP frames to `udp_port`: a background flow's receiver. */
	void add_flow(uint16_t udp_port, Handler h) { flows_[udp_port] = std::move(h); }
	uint64_t unclaimed() const { return unclaimed_; }

private:
	bool receive(ns3::Ptr<const ns3::Packet> p);

	ns3::Ptr<ns3::NetDevice> dev_;
	Handler app_;
	std::map<uint16_t, Handler> flows_;
	std::vector<uint8_t> buf_;
	uint64_t unclaimed_ = 0;
};

} /* namespace ina::sim */

#endif /* INA_SIM_HOST_PORT_H */
