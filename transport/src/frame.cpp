/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/frame.h"

#include <arpa/inet.h>
#include <cstdio>
#include <cstring>

#include "ina/wire.h"

namespace ina {

uint16_t ipv4_checksum(const void *ip_hdr)
{
	const uint8_t *p = static_cast<const uint8_t *>(ip_hdr);
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t(p[i]) << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return static_cast<uint16_t>(~sum);
}

void write_frame_headers(uint8_t *frame, const Endpoint &src, const Endpoint &dst,
			 uint32_t ina_len, uint8_t tos)
{
	auto *eth = reinterpret_cast<ina_eth_hdr *>(frame);
	memcpy(eth->dst, dst.mac, 6);
	memcpy(eth->src, src.mac, 6);
	ina_store16(&eth->ether_type, 0x0800);

	uint8_t *ip = frame + sizeof(ina_eth_hdr);
	ip[0] = 0x45;
	ip[1] = tos;
	ina_store16(ip + 2, static_cast<uint16_t>(20 + 8 + ina_len));
	ina_store16(ip + 4, 0);
	ina_store16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 17;
	ina_store16(ip + 10, 0);
	ina_store32(ip + 12, src.ip);
	ina_store32(ip + 16, dst.ip);
	ina_store16(ip + 10, ipv4_checksum(ip));

	uint8_t *udp = ip + 20;
	ina_store16(udp, src.port);
	ina_store16(udp + 2, dst.port);
	ina_store16(udp + 4, static_cast<uint16_t>(8 + ina_len));
	ina_store16(udp + 6, 0);
}

bool parse_frame_headers(const uint8_t *frame, uint32_t len, Endpoint *src, Endpoint *dst,
			 uint32_t *udp_payload_len)
{
	if (len < INA_L2L3L4_LEN)
		return false;
	if (ina_load16(frame + 12) != 0x0800)
		return false;
	const uint8_t *ip = frame + 14;
	if (ip[0] != 0x45 || ip[9] != 17)
		return false;
	const uint8_t *udp = ip + 20;
	uint32_t udp_len = ina_load16(udp + 4);
	if (udp_len < 8 || 14 + 20 + udp_len > len)
		return false;
	if (src) {
		memcpy(src->mac, frame + 6, 6);
		src->ip = ina_load32(ip + 12);
		src->port = ina_load16(udp);
	}
	if (dst) {
		memcpy(dst->mac, frame, 6);
		dst->ip = ina_load32(ip + 16);
		dst->port = ina_load16(udp + 2);
	}
	if (udp_payload_len)
		*udp_payload_len = udp_len - 8;
	return true;
}

void group_mac(uint32_t group, uint8_t out[6])
{
	out[0] = 0x01;
	out[1] = 0x00;
	out[2] = 0x5e;
	out[3] = (group >> 16) & 0x7F;
	out[4] = (group >> 8) & 0xFF;
	out[5] = group & 0xFF;
}

bool parse_ipv4(const char *text, uint32_t *out)
{
	struct in_addr a;
	if (inet_pton(AF_INET, text, &a) != 1)
		return false;
	*out = ntohl(a.s_addr);
	return true;
}

bool parse_mac(const char *text, uint8_t out[6])
{
	unsigned v[6];
	char tail;
	if (sscanf(text, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
		return false;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 0xFF)
			return false;
		out[i] = static_cast<uint8_t>(v[i]);
	}
	return true;
}

} /* namespace ina */
