/* SPDX-License-Identifier: BSD-3-Clause */
#include "background_flow.h"

#include <cstring>

#include <ns3/simulator.h>

#include "sim_transport.h"

namespace ina::sim {

namespace {

constexpr uint32_t kHeaders = 42; /* Ethernet, IPv4, UDP */

uint64_t now_ns()
{
	return static_cast<uint64_t>(ns3::Simulator::Now().GetNanoSeconds());
}

} /* namespace */

BackgroundFlow::BackgroundFlow(const PlanBackground &f, const Endpoint &from, const Endpoint &to,
			       ns3::Ptr<ns3::NetDevice> dev, uint32_t payload)
    : f_(f), dev_(std::move(dev)), frame_(kHeaders + payload, 0), payload_(payload)
{
	write_frame_headers(frame_.data(), from, to, payload);
	/* The rate counts UDP payload, as iperf3's -b does. */
	interval_ps_ = static_cast<uint64_t>(payload * 8.0 / (f.rate_mbps * 1e6) * 1e12);
	if (!interval_ps_)
		interval_ps_ = 1;
}

void BackgroundFlow::start(uint64_t start_ns, uint64_t stop_ns)
{
	stop_ns_ = stop_ns;
	next_ps_ = start_ns * 1000;
	ns3::Simulator::Schedule(ns3::NanoSeconds(static_cast<int64_t>(start_ns - now_ns())),
				 [this] { send_one(); });
}

/* One datagram, then the next at the flow's rate (kept in picoseconds, so
 * the rate does not drift by rounding each gap to a nanosecond). */
void BackgroundFlow::send_one()
{
	const uint64_t now = now_ns();
	if (stop_ns_ && now >= stop_ns_)
		return;
	const uint64_t seq = c_.frames_sent;
	memcpy(frame_.data() + kHeaders, &seq, sizeof(seq) <= payload_ ? sizeof(seq) : payload_);
	if (send_frame(dev_, frame_.data(), static_cast<uint32_t>(frame_.size()))) {
		c_.frames_sent++;
		c_.bytes_sent += payload_;
	} else {
		c_.host_tx_drops++;
	}
	next_ps_ += interval_ps_;
	const uint64_t at = next_ps_ / 1000;
	ns3::Simulator::Schedule(ns3::NanoSeconds(static_cast<int64_t>(at > now ? at - now : 0)),
				 [this] { send_one(); });
}

void BackgroundFlow::receive(const uint8_t *, uint32_t len)
{
	const uint64_t now = now_ns();
	if (!c_.frames_received)
		c_.first_rx_ns = now;
	c_.last_rx_ns = now;
	c_.frames_received++;
	c_.bytes_received += len > kHeaders ? len - kHeaders : 0;
}

} /* namespace ina::sim */
