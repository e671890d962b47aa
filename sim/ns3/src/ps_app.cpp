/* SPDX-License-Identifier: BSD-3-Clause */
#include "ps_app.h"

#include <ns3/packet.h>
#include <ns3/simulator.h>

#include "sim_transport.h"

namespace ina::sim {

namespace {

constexpr int64_t kTickUs = 1000;

uint64_t now_ns()
{
	return static_cast<uint64_t>(ns3::Simulator::Now().GetNanoSeconds());
}

} /* namespace */

PsApp::PsApp(const Endpoint &self, ns3::Ptr<ns3::NetDevice> dev) : ps_(self), dev_(std::move(dev)) {}

void PsApp::start(std::function<bool()> running)
{
	running_ = std::move(running);
	ns3::Simulator::Schedule(ns3::MicroSeconds(kTickUs), [this] { tick(); });
}

void PsApp::receive(const uint8_t *frame, uint32_t len)
{
	const uint64_t now = now_ns();
	ps_.handle(frame, len, now, tx_);
	flush();
	ps_.tick(now, tx_);
	flush();
}

void PsApp::tick()
{
	ps_.tick(now_ns(), tx_);
	flush();
	if (running_())
		ns3::Simulator::Schedule(ns3::MicroSeconds(kTickUs), [this] { tick(); });
}

void PsApp::flush()
{
	for (uint32_t i = 0; i < tx_.size(); i++)
		if (!send_frame(dev_, tx_.data(i), tx_.len(i)))
			tx_drops_++;
	tx_.clear();
}

} /* namespace ina::sim */
