/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A switch of the simulated network: its data path is the project's switch
 * program, ina::process() over one AggregatorTable (pipeline/), as
 * switchd's aggregate stage calls it per packet. Every INA frame a port
 * receives is decoded once (ina::decode_view()), pre-marked with ECN when
 * the egress queue toward its destination is above the switch's threshold,
 * run through ina::process(), and sent where the verdict says: on by its
 * destination IP, replicated to the job's ports (a parameter packet), or
 * dropped. The forwarding and multicast tables come from the plan.
 *
 * Where several ports lead to an address on a shortest path (the plan
 * lists it behind each: a leaf-spine's or a fat-tree's uplinks, at every
 * tier) the port is picked by a hash of the frame's addresses and UDP
 * ports, salted with the switch's id so that the tiers choose apart
 * (ECMP: the worker sets the source port from the aggregator index, so a
 * job's fragments spread over the paths). A parameter packet is
 * replicated down toward the job's workers, and up through one uplink (by
 * the job's hash) only when it did not come from above. Frames that are
 * not INA (background flows) are forwarded by destination IP, counted.
 */
#ifndef INA_SIM_SWITCH_NODE_H
#define INA_SIM_SWITCH_NODE_H

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <ns3/net-device.h>
#include <ns3/ptr.h>

#include "ina/pipeline.h"
#include "plan.h"

namespace ina::sim {

struct SwitchCounters {
	uint64_t rx = 0, tx = 0;
	uint64_t ecn_premarks = 0;
	uint64_t no_route = 0;     /* unicast with no port toward its IP */
	uint64_t control = 0;      /* control messages: no control plane here */
	uint64_t queue_drops = 0;  /* egress queue full */
	uint64_t plain = 0;        /* frames that are not INA, forwarded by IP */
	uint32_t peak_occupied = 0;
};

class SwitchNode {
public:
	/* The table: the switch's aggregators of `elements` values; a job may
	 * hold the plan's job_share of them. gc_timeout_ns: as switchd's. */
	SwitchNode(const PlanSwitch &sw, const Plan &plan, uint32_t elements, uint64_t gc_timeout_ns);
	/* Port i's device, in the plan's port order; call once per port. */
	void attach(uint32_t port, ns3::Ptr<ns3::NetDevice> dev);

	const PlanSwitch &plan() const { return sw_; }
	const AggregatorTable &table() const { return *table_; }
	const PipelineCounters &pipeline() const { return counters_; }
	const SwitchCounters &counters() const { return c_; }
	/* Frames sent out of each port, in the plan's port order. */
	const std::vector<uint64_t> &port_tx() const { return port_tx_; }

private:
	bool receive(uint32_t port, ns3::Ptr<const ns3::Packet> p);
	void handle(uint32_t in_port, uint8_t *frame, uint32_t len);
	void forward(const uint8_t *frame, uint32_t len);
	void multicast(uint16_t job, uint32_t in_port, const uint8_t *frame, uint32_t len);
	void send(uint32_t port, const uint8_t *frame, uint32_t len);
	bool above_ecn_threshold(uint32_t port) const;
	int port_of(const uint8_t *frame, uint32_t len) const;

	PlanSwitch sw_;
	std::unique_ptr<AggregatorTable> table_;
	PipelineCounters counters_;
	SwitchCounters c_;
	uint32_t share_; /* process()'s share: kNoShareLimit at job_share 1 */
	std::vector<ns3::Ptr<ns3::NetDevice>> ports_;
	std::vector<uint64_t> port_tx_;
	std::map<uint32_t, std::vector<uint32_t>> route_;     /* IPv4 -> ports */
	std::map<uint16_t, std::vector<uint32_t>> job_ports_; /* job -> ports toward its workers */
	std::vector<uint8_t> buf_;
};

} /* namespace ina::sim */

#endif /* INA_SIM_SWITCH_NODE_H */
