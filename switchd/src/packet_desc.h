/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What classify learned about a packet (PacketDesc), kept in the mbuf's
 * private area so that it travels with the mbuf, across a hand-off ring and
 * into a multicast copy too: no later stage parses the headers again.
 */
#ifndef INA_SWITCHD_PACKET_DESC_H
#define INA_SWITCHD_PACKET_DESC_H

#include <cstdint>

#include <rte_mbuf.h>

#include "ina/codec.h"

namespace switchd {

enum class PacketClass : uint8_t {
	kArp,  /* ARP */
	kL2,   /* neither ARP nor IPv4: bridged by MAC */
	kIpv4, /* IPv4, not INA */
	kIna,  /* a valid INA header: `ina` is filled in */
	kRoce, /* RoCEv2 (UDP 4791) while NetReduce rings are configured */
};

struct PacketDesc {
	PacketClass cls;
	uint16_t in_port; /* config index of the arrival port */
	uint32_t dst_ip;  /* kIpv4, kIna */
	uint32_t src_ip;  /* kIpv4, kIna */
	ina::InaView ina; /* kIna: the header, decoded once (ina/codec.h) */
};

/* What admission (admission.cpp) decided about a packet of a registered job:
 * admitted, or why not (docs/security.md, "Data plane"). */
enum class Admission : uint8_t {
	kAdmitted,
	kNotMember,    /* not a worker of the job, or not at its level and bit */
	kWrongPort,    /* a member's address on another member's port */
	kWrongMac,     /* a member's address with another MAC */
	kForgedResult, /* a parameter packet not from the job's PS */
};

/* Private area size of the packet and multicast header mbuf pools. */
constexpr uint16_t kPacketDescSpace = RTE_ALIGN_CEIL(sizeof(PacketDesc), RTE_MBUF_PRIV_ALIGN);

inline PacketDesc *desc(rte_mbuf *m) { return static_cast<PacketDesc *>(rte_mbuf_to_priv(m)); }
/* The packet's decoded INA header, null when it is not INA traffic. */
inline const ina::InaView *ina_view(const PacketDesc &d) { return d.cls == PacketClass::kIna ? &d.ina : nullptr; }

} /* namespace switchd */

#endif
