/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The INA codec (ina/codec.h): the only code that writes or reads the bytes
 * of ina/wire.h's headers as a whole.
 */
#include "ina/codec.h"

#include <arpa/inet.h>
#include <cstdio>
#include <cstring>

namespace ina {

namespace {

constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint8_t kProtoUdp = 17;
constexpr uint16_t kDontFragment = 0x4000;
constexpr uint8_t kTtl = 64;


} /* namespace */

/* Offset of a field inside struct ina_hdr. */
#define INA_OFF(f) offsetof(struct ina_hdr, f)

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
	ina_store16(&eth->ether_type, kEtherTypeIpv4);

	uint8_t *ip = frame + sizeof(ina_eth_hdr);
	ip[0] = 0x45;
	ip[1] = tos;
	ina_store16(ip + 2, static_cast<uint16_t>(sizeof(ina_ipv4_hdr) + sizeof(ina_udp_hdr) + ina_len));
	ina_store16(ip + 4, 0);
	ina_store16(ip + 6, kDontFragment);
	ip[8] = kTtl;
	ip[9] = kProtoUdp;
	ina_store16(ip + 10, 0);
	ina_store32(ip + 12, src.ip);
	ina_store32(ip + 16, dst.ip);
	ina_store16(ip + 10, ipv4_checksum(ip));

	uint8_t *udp = ip + sizeof(ina_ipv4_hdr);
	ina_store16(udp, src.port);
	ina_store16(udp + 2, dst.port);
	ina_store16(udp + 4, static_cast<uint16_t>(sizeof(ina_udp_hdr) + ina_len));
	ina_store16(udp + 6, 0);
}

bool parse_frame_headers(const uint8_t *frame, uint32_t len, Endpoint *src, Endpoint *dst,
			 uint32_t *udp_payload_len)
{
	if (len < INA_L2L3L4_LEN)
		return false;
	if (ina_load16(frame + 12) != kEtherTypeIpv4)
		return false;
	const uint8_t *ip = frame + sizeof(ina_eth_hdr);
	if (ip[0] != 0x45 || ip[9] != kProtoUdp)
		return false;
	const uint8_t *udp = ip + sizeof(ina_ipv4_hdr);
	uint32_t udp_len = ina_load16(udp + 4);
	if (udp_len < sizeof(ina_udp_hdr) || sizeof(ina_eth_hdr) + sizeof(ina_ipv4_hdr) + udp_len > len)
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
		*udp_payload_len = udp_len - static_cast<uint32_t>(sizeof(ina_udp_hdr));
	return true;
}

void encode(const InaHeader &h, uint8_t *out)
{
	out[INA_OFF(version)] = h.version;
	out[INA_OFF(type)] = h.type;
	ina_store16(out + INA_OFF(flags), h.flags);
	ina_store16(out + INA_OFF(job_id), h.job_id);
	ina_store16(out + INA_OFF(agg_node), h.agg_node);
	ina_store32(out + INA_OFF(seq), h.seq);
	ina_store32(out + INA_OFF(agg_index), h.agg_index);
	ina_store32(out + INA_OFF(remap_index), h.remap_index);
	ina_store16(out + INA_OFF(elem_count), h.elem_count);
	out[INA_OFF(level)] = h.level;
	out[INA_OFF(levels)] = h.levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		ina_store32(out + INA_OFF(bitmap) + 4 * i, h.bitmap[i]);
		out[INA_OFF(fan_in) + i] = h.fan_in[i];
	}
}

void decode(const uint8_t *in, InaHeader *h)
{
	h->version = in[INA_OFF(version)];
	h->type = in[INA_OFF(type)];
	h->flags = ina_load16(in + INA_OFF(flags));
	h->job_id = ina_load16(in + INA_OFF(job_id));
	h->agg_node = ina_load16(in + INA_OFF(agg_node));
	h->seq = ina_load32(in + INA_OFF(seq));
	h->agg_index = ina_load32(in + INA_OFF(agg_index));
	h->remap_index = ina_load32(in + INA_OFF(remap_index));
	h->elem_count = ina_load16(in + INA_OFF(elem_count));
	h->level = in[INA_OFF(level)];
	h->levels = in[INA_OFF(levels)];
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		h->bitmap[i] = ina_load32(in + INA_OFF(bitmap) + 4 * i);
		h->fan_in[i] = in[INA_OFF(fan_in) + i];
	}
}

bool peek(const uint8_t *frame, uint32_t len, InaView *v)
{
	uint32_t off;
	return find_ina_header(frame, len, &off) && decode_view(frame, len, off, v);
}

uint32_t write_ina_frame(uint8_t *frame, const Endpoint &src, const Endpoint &dst, const InaHeader &h,
			 uint8_t tos)
{
	write_frame_headers(frame, src, dst, INA_HDR_LEN + 4u * h.elem_count, tos);
	encode(h, frame + INA_HDR_OFFSET);
	return INA_FRAME_LEN(h.elem_count);
}

FrameVerdict parse_ina_frame(const uint8_t *frame, uint32_t len, InaFrame *out)
{
	INA_COUNT_PARSE();
	uint32_t off;
	if (!find_ina_header(frame, len, &off))
		return FrameVerdict::kNotIna;
	if (len < off + INA_HDR_LEN)
		return FrameVerdict::kMalformedShort;
	const uint8_t *h = frame + off;
	if (h[INA_OFF(version)] != INA_VERSION)
		return FrameVerdict::kMalformedVersion;
	const uint8_t type = h[INA_OFF(type)];
	if (type != INA_TYPE_DATA && type != INA_TYPE_CONTROL)
		return FrameVerdict::kMalformedType;
	const uint32_t udp_len = ina_load16(frame + off - sizeof(ina_udp_hdr) + 4);
	const uint32_t fixed = sizeof(ina_udp_hdr) + INA_HDR_LEN;
	const uint32_t elems = ina_load16(h + INA_OFF(elem_count));
	if (type == INA_TYPE_DATA ? udp_len != fixed + 4u * elems : udp_len < fixed)
		return FrameVerdict::kMalformedLength;
	if (len < off - sizeof(ina_udp_hdr) + udp_len)
		return FrameVerdict::kMalformedShort;
	decode(h, &out->hdr);
	out->payload = h + INA_HDR_LEN;
	out->payload_len = udp_len - fixed;
	out->ina_offset = off;
	const uint8_t *ip = frame + sizeof(ina_eth_hdr);
	out->src_ip = ina_load32(ip + 12);
	out->dst_ip = ina_load32(ip + 16);
	out->tos = ip[1];
	return FrameVerdict::kOk;
}

FrameVerdict control_frame_from_view(const uint8_t *frame, uint32_t len, const InaView &v, InaFrame *out)
{
	if (v.version != INA_VERSION)
		return FrameVerdict::kMalformedVersion;
	if (v.type != INA_TYPE_CONTROL)
		return FrameVerdict::kMalformedType;
	const uint32_t fixed = sizeof(ina_udp_hdr) + INA_HDR_LEN;
	if (v.udp_len < fixed)
		return FrameVerdict::kMalformedLength;
	if (len < v.ina_offset - sizeof(ina_udp_hdr) + v.udp_len)
		return FrameVerdict::kMalformedShort;
	out->hdr = InaHeader{};
	out->hdr.version = v.version;
	out->hdr.type = v.type;
	out->hdr.flags = v.flags;
	out->hdr.job_id = v.job;
	out->hdr.agg_node = v.agg_node;
	out->hdr.seq = v.seq;
	out->hdr.agg_index = v.agg_index;
	out->hdr.elem_count = v.elem_count;
	out->hdr.level = v.level;
	out->hdr.levels = v.levels;
	out->payload = frame + v.ina_offset + INA_HDR_LEN;
	out->payload_len = v.udp_len - fixed;
	out->ina_offset = v.ina_offset;
	const uint8_t *ip = frame + sizeof(ina_eth_hdr);
	out->src_ip = ina_load32(ip + 12);
	out->dst_ip = ina_load32(ip + 16);
	out->tos = ip[1];
	return FrameVerdict::kOk;
}

/* Offsets inside the control structs. */
#define CTRL_OFF(f) offsetof(struct ina_ctrl_hdr, f)
#define CTRL_W_OFF(f) offsetof(struct ina_ctrl_worker, f)
#define CTRL_A_OFF(f) offsetof(struct ina_ctrl_auth, f)

uint32_t encode_ctrl(const CtrlMessage &m, uint8_t *out, uint32_t cap)
{
	const uint32_t len = ctrl_payload_len(m.n_workers);
	if (cap < len)
		return 0;
	memset(out, 0, len);
	out[CTRL_OFF(op)] = m.op;
	out[CTRL_OFF(n_workers)] = m.n_workers;
	out[CTRL_OFF(levels)] = m.levels;
	out[CTRL_OFF(status)] = m.status;
	ina_store32(out + CTRL_OFF(ps_ip), m.ps_ip);
	memcpy(out + CTRL_OFF(ps_mac), m.ps_mac, 6);
	memcpy(out + CTRL_OFF(fan_in), m.fan_in, INA_MAX_LEVELS);
	ina_store16(out + CTRL_OFF(refresh_ms), m.refresh_ms);
	uint8_t *w = out + sizeof(ina_ctrl_hdr);
	for (uint32_t i = 0; i < m.n_workers; i++, w += sizeof(ina_ctrl_worker)) {
		ina_store32(w + CTRL_W_OFF(ip), m.workers[i].ip);
		memcpy(w + CTRL_W_OFF(mac), m.workers[i].mac, 6);
		memcpy(w + CTRL_W_OFF(bit), m.workers[i].bit, INA_MAX_LEVELS);
	}
	ina_store64(w + CTRL_A_OFF(counter), m.counter);
	memcpy(w + CTRL_A_OFF(mac), m.mac, INA_CTRL_MAC_LEN);
	return len;
}

const char *ctrl_verdict_name(CtrlVerdict v)
{
	switch (v) {
	case CtrlVerdict::kOk:
		return "ok";
	case CtrlVerdict::kShort:
		return "shorter than its header, workers and authentication trailer";
	case CtrlVerdict::kLong:
		return "bytes after the authentication trailer";
	case CtrlVerdict::kOp:
		return "unknown op";
	case CtrlVerdict::kWorkers:
		return "an ACK, job query or job info with workers";
	}
	return "?";
}

CtrlVerdict decode_ctrl(const uint8_t *in, uint32_t len, CtrlMessage *out)
{
	if (len < sizeof(ina_ctrl_hdr))
		return CtrlVerdict::kShort;
	const uint8_t op = in[CTRL_OFF(op)];
	const bool no_workers = op == INA_CTRL_ACK || op == INA_CTRL_JOB_QUERY || op == INA_CTRL_JOB_INFO;
	if (op != INA_CTRL_REGISTER && op != INA_CTRL_UNREGISTER && !no_workers)
		return CtrlVerdict::kOp;
	const uint8_t n = in[CTRL_OFF(n_workers)];
	if (no_workers && n != 0)
		return CtrlVerdict::kWorkers;
	if (len < ctrl_payload_len(n))
		return CtrlVerdict::kShort;
	if (len > ctrl_payload_len(n))
		return CtrlVerdict::kLong;
	out->op = op;
	out->n_workers = n;
	out->levels = in[CTRL_OFF(levels)];
	out->status = in[CTRL_OFF(status)];
	out->ps_ip = ina_load32(in + CTRL_OFF(ps_ip));
	memcpy(out->ps_mac, in + CTRL_OFF(ps_mac), 6);
	memcpy(out->fan_in, in + CTRL_OFF(fan_in), INA_MAX_LEVELS);
	out->refresh_ms = ina_load16(in + CTRL_OFF(refresh_ms));
	const uint8_t *w = in + sizeof(ina_ctrl_hdr);
	for (uint32_t i = 0; i < n; i++, w += sizeof(ina_ctrl_worker)) {
		out->workers[i].ip = ina_load32(w + CTRL_W_OFF(ip));
		memcpy(out->workers[i].mac, w + CTRL_W_OFF(mac), 6);
		memcpy(out->workers[i].bit, w + CTRL_W_OFF(bit), INA_MAX_LEVELS);
	}
	out->counter = ina_load64(w + CTRL_A_OFF(counter));
	memcpy(out->mac, w + CTRL_A_OFF(mac), INA_CTRL_MAC_LEN);
	return CtrlVerdict::kOk;
}

uint32_t write_ctrl_frame(uint8_t *frame, uint32_t cap, const Endpoint &src, const Endpoint &dst,
			  uint16_t job, const CtrlMessage &m)
{
	const uint32_t payload = ctrl_payload_len(m.n_workers);
	if (cap < INA_PAYLOAD_OFFSET + payload)
		return 0;
	write_frame_headers(frame, src, dst, INA_HDR_LEN + payload);
	InaHeader h;
	h.type = INA_TYPE_CONTROL;
	h.flags = ina_flags_with_epoch(0, m.epoch);
	h.job_id = job;
	h.remap_index = 0;
	h.elem_count = m.elements;
	encode(h, frame + INA_HDR_OFFSET);
	encode_ctrl(m, frame + INA_PAYLOAD_OFFSET, payload);
	return INA_PAYLOAD_OFFSET + payload;
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

bool parse_ipv4(std::string_view text, uint32_t *out)
{
	/* inet_pton wants a C string: one that ends where the view ends. */
	char buf[INET_ADDRSTRLEN];
	if (text.empty() || text.size() >= sizeof(buf) || text.find('\0') != std::string_view::npos)
		return false;
	memcpy(buf, text.data(), text.size());
	buf[text.size()] = '\0';
	struct in_addr a;
	if (inet_pton(AF_INET, buf, &a) != 1)
		return false;
	*out = ntohl(a.s_addr);
	return true;
}

std::string ipv4_text(uint32_t ip)
{
	char buf[INET_ADDRSTRLEN];
	struct in_addr a;
	a.s_addr = htonl(ip);
	inet_ntop(AF_INET, &a, buf, sizeof(buf));
	return buf;
}

bool parse_mac(std::string_view text, uint8_t out[6])
{
	auto hex = [](char c) -> int {
		if (c >= '0' && c <= '9')
			return c - '0';
		if (c >= 'a' && c <= 'f')
			return c - 'a' + 10;
		if (c >= 'A' && c <= 'F')
			return c - 'A' + 10;
		return -1;
	};
	if (text.size() != 17)
		return false;
	uint8_t m[6];
	for (int i = 0; i < 6; i++) {
		const int hi = hex(text[3 * i]), lo = hex(text[3 * i + 1]);
		if (hi < 0 || lo < 0 || (i < 5 && text[3 * i + 2] != ':'))
			return false;
		m[i] = static_cast<uint8_t>(hi << 4 | lo);
	}
	memcpy(out, m, 6);
	return true;
}

bool is_unicast_mac(const uint8_t mac[6])
{
	static const uint8_t zero[6] = {};
	return (mac[0] & 0x01) == 0 && memcmp(mac, zero, 6) != 0;
}

} /* namespace ina */
