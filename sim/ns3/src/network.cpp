/* SPDX-License-Identifier: BSD-3-Clause */
#include "network.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <ns3/core-module.h>
#include <ns3/data-rate.h>
#include <ns3/error-model.h>
#include <ns3/queue-size.h>
#include <ns3/point-to-point-helper.h>

#include "ina/codec.h"

namespace ina::sim {

namespace {

/* Every device carries jumbo frames: the fragment size is the plan's. */
constexpr uint32_t kMtu = 9000;

uint32_t index_of(const std::vector<PlanSwitch> &v, const std::string &name)
{
	for (uint32_t i = 0; i < v.size(); i++)
		if (v[i].name == name)
			return i;
	return UINT32_MAX;
}

} /* namespace */

std::pair<ns3::Ptr<ns3::NetDevice>, ns3::Ptr<ns3::NetDevice>> Network::link(ns3::Ptr<ns3::Node> a,
									      ns3::Ptr<ns3::Node> b, double gbps,
									      uint32_t queue)
{
	ns3::PointToPointHelper p2p;
	p2p.SetDeviceAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(static_cast<uint64_t>(gbps * 1e9))));
	p2p.SetDeviceAttribute("Mtu", ns3::UintegerValue(kMtu));
	p2p.SetChannelAttribute("Delay", ns3::TimeValue(ns3::NanoSeconds(static_cast<int64_t>(opt_.delay_ns))));
	p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
		     ns3::QueueSizeValue(ns3::QueueSize(ns3::QueueSizeUnit::PACKETS, queue)));
	ns3::NetDeviceContainer d = p2p.Install(a, b);
	if (opt_.drop > 0) {
		for (uint32_t i = 0; i < 2; i++) {
			auto em = ns3::CreateObject<ns3::RateErrorModel>();
			em->SetAttribute("ErrorRate", ns3::DoubleValue(opt_.drop));
			em->SetAttribute("ErrorUnit", ns3::StringValue("ERROR_UNIT_PACKET"));
			d.Get(i)->SetAttribute("ReceiveErrorModel", ns3::PointerValue(em));
		}
	}
	return {d.Get(0), d.Get(1)};
}

bool Network::build_switches(std::string *error)
{
	for (const PlanSwitch &s : plan_.switches) {
		try {
			switches_.push_back(std::make_unique<SwitchNode>(s, plan_, elements_,
									 plan_.gc_timeout_ms * 1000000ull));
		} catch (const std::exception &e) {
			*error = "switch " + s.name + ": " + e.what();
			return false;
		}
		nodes_[s.name] = ns3::CreateObject<ns3::Node>();
	}
	return true;
}

/* A host's link: at its [[host]] rate_gbps where named (a straggler's
 * slower link, both ways), else the switch's; the host's own transmitter
 * at --host-rate-gbps where that is set (the lab's unshaped veth). */
void Network::link_host(uint32_t si, uint32_t pi, const PlanHost &h, double switch_gbps)
{
	const PlanSwitch &s = plan_.switches[si];
	const double gbps = s.ports[pi].rate_gbps > 0 ? s.ports[pi].rate_gbps : switch_gbps;
	nodes_[h.name] = ns3::CreateObject<ns3::Node>();
	auto d = link(nodes_[s.name], nodes_[h.name], gbps, s.queue_capacity);
	if (opt_.host_rate_gbps > 0)
		d.second->SetAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(
			static_cast<uint64_t>(opt_.host_rate_gbps * 1e9))));
	switches_[si]->attach(pi, d.first);
	host_devs_[h.name] = d.second;
	host_ports_[h.name] = std::make_unique<HostPort>(d.second);
}

bool Network::link_switches(std::string *error)
{
	for (uint32_t si = 0; si < plan_.switches.size(); si++) {
		const PlanSwitch &s = plan_.switches[si];
		const double gbps = s.rate_gbps > 0 ? s.rate_gbps : opt_.rate_gbps;
		for (uint32_t pi = 0; pi < s.ports.size(); pi++) {
			const PlanPort &p = s.ports[pi];
			if (!p.to_switch) {
				const PlanHost *h = plan_.host(p.peer);
				if (!h) {
					*error = "switch " + s.name + ": port toward unknown host " + p.peer;
					return false;
				}
				link_host(si, pi, *h, gbps);
				continue;
			}
			const uint32_t pj = index_of(plan_.switches, p.peer);
			if (pj == UINT32_MAX) {
				*error = "switch " + s.name + ": port toward unknown switch " + p.peer;
				return false;
			}
			if (pj < si)
				continue; /* linked from the other side */
			const PlanSwitch &peer = plan_.switches[pj];
			uint32_t back = UINT32_MAX;
			for (uint32_t k = 0; k < peer.ports.size(); k++)
				if (peer.ports[k].peer == s.name)
					back = k;
			if (back == UINT32_MAX) {
				*error = "switch " + peer.name + " has no port toward " + s.name;
				return false;
			}
			auto d = link(nodes_[s.name], nodes_[peer.name], gbps, s.queue_capacity);
			switches_[si]->attach(pi, d.first);
			switches_[pj]->attach(back, d.second);
		}
	}
	return true;
}

bool Network::build(const Plan &plan, const SimOptions &opt, std::string *error)
{
	plan_ = plan;
	opt_ = opt;
	elements_ = opt.elements ? opt.elements : plan.elements;
	ns3::RngSeedManager::SetSeed(opt.seed);
	if (!build_switches(error) || !link_switches(error))
		return false;
	for (const PlanBackground &f : plan_.background)
		t0_ns_ = std::max(t0_ns_, static_cast<uint64_t>(std::max(0.0, -f.start_s) * 1e9));
	for (const PlanJob &j : plan_.jobs)
		if (!build_job(j, error))
			return false;
	return build_background(error);
}

bool Network::all_done() const
{
	for (const auto &w : workers_)
		if (!w->done())
			return false;
	return true;
}

void Network::run()
{
	for (const JobHosts &jh : jobs_) {
		const auto at = ns3::NanoSeconds(static_cast<int64_t>(t0_ns_ + jh.job->start_delay_s * 1e9));
		for (WorkerApp *w : jh.workers)
			ns3::Simulator::Schedule(at, [this, w] {
				/* The run ends with the last worker's last result, not
				 * at the time limit: what is still on the wires then
				 * is late. */
				w->start([this] {
					if (all_done())
						ns3::Simulator::Stop();
				});
			});
	}
	ns3::Simulator::Stop(ns3::Seconds(opt_.max_time_s));
	const auto t0 = std::chrono::steady_clock::now();
	ns3::Simulator::Run();
	wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} /* namespace ina::sim */
