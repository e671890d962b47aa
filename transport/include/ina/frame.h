/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Building and reading the Ethernet/IPv4/UDP headers in front of an INA
 * header (layout in ina/wire.h). Shared by the transports, the worker library
 * and the PS so that every end host writes the same bytes.
 */
#ifndef INA_FRAME_H
#define INA_FRAME_H

#include <cstdint>

namespace ina {

/* One end of a frame: MAC, IPv4 address and UDP port, host order. */
struct Endpoint {
	uint8_t mac[6];
	uint32_t ip;
	uint16_t port;
};

/* Internet checksum of an IPv4 header (20 bytes, checksum field included
 * as stored); 0 when the stored checksum is correct. */
uint16_t ipv4_checksum(const void *ip_hdr);

/* Writes Ethernet, IPv4 (checksum computed, DF, TTL 64) and UDP (checksum 0)
 * headers at frame[0..42) for `ina_len` bytes of INA header and payload that
 * follow. `tos` is the IPv4 TOS byte (its low two bits are the ECN field). */
void write_frame_headers(uint8_t *frame, const Endpoint &src, const Endpoint &dst,
			 uint32_t ina_len, uint8_t tos = 0);

/* True if frame[0..len) holds IPv4 (no options) + UDP with the whole UDP
 * datagram inside the frame; fills the addresses (host order) if non-null. */
bool parse_frame_headers(const uint8_t *frame, uint32_t len, Endpoint *src, Endpoint *dst,
			 uint32_t *udp_payload_len);

/* The multicast group of a job, 239.18.(job >> 8).(job & 255), host order. */
constexpr uint32_t job_group(uint16_t job)
{
	return (239u << 24) | (18u << 16) | job;
}

/* The Ethernet address of an IPv4 multicast group (01:00:5e + low 23 bits). */
void group_mac(uint32_t group, uint8_t out[6]);

/* "a.b.c.d" <-> host-order address; parse returns false on bad input. */
bool parse_ipv4(const char *text, uint32_t *out);
/* "aa:bb:cc:dd:ee:ff"; returns false on bad input. */
bool parse_mac(const char *text, uint8_t out[6]);

} /* namespace ina */

#endif /* INA_FRAME_H */
