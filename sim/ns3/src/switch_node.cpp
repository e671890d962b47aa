/* SPDX-License-Identifier: BSD-3-Clause */
#include "switch_node.h"

#include <algorithm>
#include <cmath>

#include <ns3/packet.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue.h>
#include <ns3/simulator.h>

#include "ina/codec.h"
#include "sim_transport.h"

namespace ina::sim {

namespace {

constexpr uint32_t kEthHdr = 14;

uint32_t dst_ip_of(const uint8_t *frame, uint32_t len)
{
	if (len < kEthHdr + 20)
		return 0;
	return ina_load32(frame + kEthHdr + 16);
}

/* The ports whose side of the tree holds one of the job's workers. */
std::vector<uint32_t> ports_toward(const PlanSwitch &sw, const PlanJob &job)
{
	std::vector<uint32_t> out;
	for (uint32_t i = 0; i < sw.ports.size(); i++) {
		const PlanPort &p = sw.ports[i];
		for (const PlanWorker &w : job.workers)
			if (std::find(p.neighbour_names.begin(), p.neighbour_names.end(), w.host) !=
			    p.neighbour_names.end()) {
				out.push_back(i);
				break;
			}
	}
	return out;
}

} /* namespace */

SwitchNode::SwitchNode(const PlanSwitch &sw, const Plan &plan, uint32_t elements, uint64_t gc_timeout_ns)
    : sw_(sw), ports_(sw.ports.size()), port_tx_(sw.ports.size())
{
	PipelineConfig pc;
	pc.aggregators = sw.aggregators;
	pc.elements = static_cast<uint16_t>(elements);
	pc.switch_id = sw.id;
	pc.gc_timeout = gc_timeout_ns;
	table_ = std::make_unique<AggregatorTable>(pc);
	share_ = plan.job_share >= 1.0 ? kNoShareLimit
				       : static_cast<uint32_t>(std::ceil(plan.job_share * sw.aggregators));
	for (uint32_t i = 0; i < sw.ports.size(); i++)
		for (uint32_t ip : sw.ports[i].neighbour_ips)
			route_[ip].push_back(i);
	for (const PlanJob &j : plan.jobs)
		job_ports_[j.id] = ports_toward(sw, j);
	buf_.resize(65536);
}

void SwitchNode::attach(uint32_t port, ns3::Ptr<ns3::NetDevice> dev)
{
	ports_[port] = dev;
	dev->SetReceiveCallback(ns3::MakeBoundCallback(
		+[](SwitchNode *s, uint32_t p, ns3::Ptr<ns3::NetDevice>, ns3::Ptr<const ns3::Packet> pkt, uint16_t,
		    const ns3::Address &) { return s->receive(p, pkt); },
		this, port));
}

bool SwitchNode::receive(uint32_t port, ns3::Ptr<const ns3::Packet> p)
{
	const uint32_t len = p->GetSize();
	if (len > buf_.size())
		return true;
	p->CopyData(buf_.data(), len);
	c_.rx++;
	handle(port, buf_.data(), len);
	return true;
}

int SwitchNode::port_of(const uint8_t *frame, uint32_t len) const
{
	auto it = route_.find(dst_ip_of(frame, len));
	if (it == route_.end())
		return -1;
	const std::vector<uint32_t> &ports = it->second;
	if (ports.size() == 1)
		return static_cast<int>(ports[0]);
	/* ECMP: source and destination IPv4, UDP ports, and the switch's id:
	 * with the same hash at every tier, a flow's choice at one tier
	 * would fix its choice at the next (polarisation), leaving paths
	 * unused. */
	uint64_t h = 0;
	if (len >= kEthHdr + 20 + 4)
		h = (uint64_t{ina_load32(frame + kEthHdr + 12)} << 32) ^ ina_load32(frame + kEthHdr + 20);
	h = (h ^ it->first ^ (uint64_t{sw_.id} << 48)) * 0x9E3779B97F4A7C15ull;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	return static_cast<int>(ports[(h >> 32) % ports.size()]);
}

bool SwitchNode::above_ecn_threshold(uint32_t port) const
{
	if (!sw_.ecn_threshold)
		return false;
	auto dev = ns3::DynamicCast<ns3::PointToPointNetDevice>(ports_[port]);
	return dev && dev->GetQueue()->GetNPackets() > sw_.ecn_threshold;
}

void SwitchNode::handle(uint32_t in_port, uint8_t *frame, uint32_t len)
{
	uint32_t off;
	InaView v;
	if (!find_ina_header(frame, len, &off) || !decode_view(frame, len, off, &v)) {
		c_.plain++;
		return forward(frame, len); /* not INA, or not a frame the view takes: plain routing */
	}
	if (v.type == INA_TYPE_CONTROL) {
		c_.control++;
		return;
	}
	if (!(v.flags & INA_F_ACK) && v.type == INA_TYPE_DATA) {
		/* As switchd's aggregate stage: congestion on the way to the PS
		 * is told to the aggregator before it sees the packet. */
		const int out = port_of(frame, len);
		if (out >= 0 && above_ecn_threshold(static_cast<uint32_t>(out)) && !(v.flags & INA_F_ECN)) {
			add_flags(frame + off, INA_F_ECN);
			v.flags |= INA_F_ECN;
			c_.ecn_premarks++;
		}
	}
	const uint64_t now = static_cast<uint64_t>(ns3::Simulator::Now().GetNanoSeconds());
	const Result r = process(*table_, counters_, frame, len, v, now, share_);
	c_.peak_occupied = std::max(c_.peak_occupied, table_->occupied());
	switch (r.verdict) {
	case Verdict::kDrop:
	case Verdict::kControl:
		return;
	case Verdict::kDownstream:
	case Verdict::kPass:
		return forward(frame, len);
	case Verdict::kMulticast:
		return multicast(v.job, in_port, frame, len);
	}
}

void SwitchNode::forward(const uint8_t *frame, uint32_t len)
{
	const int port = port_of(frame, len);
	if (port < 0) {
		c_.no_route++;
		return;
	}
	send(static_cast<uint32_t>(port), frame, len);
}

void SwitchNode::multicast(uint16_t job, uint32_t in_port, const uint8_t *frame, uint32_t len)
{
	auto it = job_ports_.find(job);
	if (it == job_ports_.end())
		return;
	const bool from_above = sw_.ports[in_port].up;
	std::vector<uint32_t> up;
	for (uint32_t port : it->second) {
		if (sw_.ports[port].up)
			up.push_back(port);
		else if (port != in_port)
			send(port, frame, len);
	}
	/* One copy up, through the job's spine; none back up from above. */
	if (!from_above && !up.empty())
		send(up[(job * 0x9E3779B1u >> 16) % up.size()], frame, len);
}

void SwitchNode::send(uint32_t port, const uint8_t *frame, uint32_t len)
{
	if (send_frame(ports_[port], frame, len)) {
		c_.tx++;
		port_tx_[port]++;
	} else {
		c_.queue_drops++;
	}
}

} /* namespace ina::sim */
