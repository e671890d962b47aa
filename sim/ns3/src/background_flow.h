/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A background flow of the simulated network (a topology's [[background]],
 * docs/lab.md): UDP datagrams at a constant rate from one host to another
 * between its start and stop times, as `iperf3 -u -b RATE` sends them in
 * the lab. Its frames are plain IPv4/UDP: the switches forward them by
 * destination IP through the same queues as the jobs' packets (ECMP by
 * the flow's addresses and ports). It does not react to loss or ECN;
 * TCP is not modelled.
 */
#ifndef INA_SIM_BACKGROUND_FLOW_H
#define INA_SIM_BACKGROUND_FLOW_H

#include <cstdint>
#include <vector>

#include <ns3/net-device.h>
#include <ns3/ptr.h>

#include "ina/codec.h"
#include "plan.h"

namespace ina::sim {

struct FlowCounters {
	uint64_t frames_sent = 0, bytes_sent = 0;         /* UDP payload bytes, as iperf3 counts */
	uint64_t frames_received = 0, bytes_received = 0;
	uint64_t host_tx_drops = 0;                       /* the sender's own queue was full */
	uint64_t first_rx_ns = 0, last_rx_ns = 0;
};

class BackgroundFlow {
public:
	/* `payload`: UDP payload bytes per datagram (1472: 1500-byte IPv4). */
	BackgroundFlow(const PlanBackground &f, const Endpoint &from, const Endpoint &to,
		       ns3::Ptr<ns3::NetDevice> dev, uint32_t payload = 1472);
	/* Sends from `start_ns` until `stop_ns` (0: until the simulation ends). */
	void start(uint64_t start_ns, uint64_t stop_ns);
	/* A datagram of the flow arrived at its receiver. */
	void receive(const uint8_t *frame, uint32_t len);

	const PlanBackground &plan() const { return f_; }
	const FlowCounters &counters() const { return c_; }

private:
	void send_one();

	PlanBackground f_;
	ns3::Ptr<ns3::NetDevice> dev_;
	std::vector<uint8_t> frame_;
	uint32_t payload_;
	uint64_t interval_ps_ = 0; /* between two datagrams, picoseconds */
	uint64_t stop_ns_ = 0;
	uint64_t next_ps_ = 0;     /* when the next one leaves */
	FlowCounters c_;
};

} /* namespace ina::sim */

#endif /* INA_SIM_BACKGROUND_FLOW_H */
