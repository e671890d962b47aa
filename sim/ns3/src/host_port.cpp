/* SPDX-License-Identifier: BSD-3-Clause */
#include "host_port.h"

#include <ns3/packet.h>

#include "ina/codec.h"

namespace ina::sim {

HostPort::HostPort(ns3::Ptr<ns3::NetDevice> dev) : dev_(std::move(dev)), buf_(65536)
{
	dev_->SetReceiveCallback(ns3::MakeBoundCallback(
		+[](HostPort *h, ns3::Ptr<ns3::NetDevice>, ns3::Ptr<const ns3::Packet> p, uint16_t,
		    const ns3::Address &) { return h->receive(p); },
		this));
}

bool HostPort::receive(ns3::Ptr<const ns3::Packet> p)
{
	const uint32_t len = p->GetSize();
	if (len > buf_.size()) {
		unclaimed_++;
		return true;
	}
	p->CopyData(buf_.data(), len);
	if (!flows_.empty()) {
		Endpoint src, dst;
		uint32_t payload = 0;
		if (parse_frame_headers(buf_.data(), len, &src, &dst, &payload)) {
			auto it = flows_.find(dst.port);
			if (it != flows_.end()) {
				it->second(buf_.data(), len);
				return true;
			}
		}
	}
	if (app_)
		app_(buf_.data(), len);
	else
		unclaimed_++;
	return true;
}

} /* namespace ina::sim */
