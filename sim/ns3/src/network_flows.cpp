/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The plan's background flows ([[background]]): a BackgroundFlow at the
 * sender, its receiver on the other host's port. The model sends
 * constant-rate UDP only: a TCP flow is refused, not approximated.
 */
#include <cstring>

#include "network.h"

namespace ina::sim {

namespace {

Endpoint endpoint(const PlanHost &h, uint16_t port)
{
	Endpoint e;
	memcpy(e.mac, h.mac, 6);
	e.ip = h.ip;
	e.port = port;
	return e;
}

} /* namespace */

bool Network::build_background(std::string *error)
{
	for (const PlanBackground &f : plan_.background) {
		const std::string where = "background flow " + f.name + ": ";
		if (f.protocol != "udp") {
			*error = where + "protocol " + f.protocol +
				 " is not modelled: ina-sim sends constant-rate UDP flows only (protocol = \"udp\" "
				 "with rate_mbps)";
			return false;
		}
		if (!(f.rate_mbps > 0)) {
			*error = where + "rate_mbps must be above 0";
			return false;
		}
		const PlanHost *from = plan_.host(f.from), *to = plan_.host(f.to);
		if (!from || !to || !host_ports_.count(f.from) || !host_ports_.count(f.to)) {
			*error = where + "hosts " + f.from + " and " + f.to + " must be in the plan";
			return false;
		}
		/* The source port as iperf3's client picks one: any but INA's. */
		auto flow = std::make_unique<BackgroundFlow>(f, endpoint(*from, static_cast<uint16_t>(40000 + flows_.size())),
							     endpoint(*to, f.port), host_devs_[f.from]);
		BackgroundFlow *p = flow.get();
		host_ports_[f.to]->add_flow(f.port, [p](const uint8_t *frame, uint32_t len) { p->receive(frame, len); });
		const double start = static_cast<double>(t0_ns_) + f.start_s * 1e9;
		const uint64_t stop = f.stop_s > 0 ? static_cast<uint64_t>(static_cast<double>(t0_ns_) + f.stop_s * 1e9) : 0;
		p->start(static_cast<uint64_t>(start), stop);
		flows_.push_back(std::move(flow));
	}
	return true;
}

} /* namespace ina::sim */
