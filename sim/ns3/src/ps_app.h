/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The PS host of the simulated network: the parameter server's own logic
 * (ina::ParameterServer, ps/), which has no I/O of its own, driven as
 * ina-ps's receive turn drives it: each received frame goes to handle(),
 * then tick(), and the frames they queued leave through the host's device.
 * tick() also runs every millisecond between frames, as ina-ps's 1 ms
 * receive timeout makes it run. One shard: ina-ps --threads 1.
 */
#ifndef INA_SIM_PS_APP_H
#define INA_SIM_PS_APP_H

#include <cstdint>
#include <functional>
#include <memory>

#include <ns3/event-id.h>
#include <ns3/net-device.h>

#include "ina/ps.h"

namespace ina::sim {

class PsApp {
public:
	PsApp(const Endpoint &self, ns3::Ptr<ns3::NetDevice> dev);
	ParameterServer &ps() { return ps_; }
	/* A frame the host's port received for the PS (HostPort). */
	void receive(const uint8_t *frame, uint32_t len);
	/* Ticks every millisecond while `running()` says so. */
	void start(std::function<bool()> running);
	uint64_t tx_drops() const { return tx_drops_; }

private:
	void tick();
	void flush();

	ParameterServer ps_;
	TxQueue tx_;
	ns3::Ptr<ns3::NetDevice> dev_;
	std::function<bool()> running_;
	uint64_t tx_drops_ = 0;
};

} /* namespace ina::sim */

#endif /* INA_SIM_PS_APP_H */
