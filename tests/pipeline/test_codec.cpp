/* SPDX-License-Identifier: BSD-3-Clause
 * The protocol codec (ina/codec.h) against the byte layout of ina/wire.h. */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ina/codec.h"
#include "ina/pipeline.h"

using namespace ina;

namespace {

InaHeader sample()
{
	InaHeader h;
	h.type = INA_TYPE_DATA;
	h.flags = INA_F_RESEND | INA_F_ECN;
	h.job_id = 0x1234;
	h.agg_node = 7;
	h.seq = 0xDEADBEEF;
	h.agg_index = 0x12345;
	h.remap_index = 0x01020304;
	h.elem_count = 3;
	h.level = 1;
	h.levels = 2;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		h.bitmap[i] = 0x11111111u * (i + 1);
		h.fan_in[i] = static_cast<uint8_t>(i + 5);
	}
	return h;
}

std::vector<uint8_t> frame(const InaHeader &h)
{
	std::vector<uint8_t> f(INA_FRAME_LEN(h.elem_count), 0xAA);
	Endpoint src{{2, 0, 0, 0, 0, 1}, 0x0A000001, steering_src_port(h.agg_index)};
	Endpoint dst{{2, 0, 0, 0, 0, 2}, 0x0A000002, INA_UDP_PORT};
	EXPECT_EQ(write_ina_frame(f.data(), src, dst, h, 2), f.size());
	return f;
}

} /* namespace */

TEST(Codec, EncodeWritesTheWireLayout)
{
	uint8_t b[INA_HDR_LEN];
	memset(b, 0xAA, sizeof(b));
	encode(sample(), b);
	/* Every byte, by hand from docs/protocol.md (big endian). */
	const uint8_t want[INA_HDR_LEN] = {
		1, 0, 0x00, 0x0A, 0x12, 0x34, 0x00, 0x07, 0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x01, 0x23,
		0x45, 0x01, 0x02, 0x03, 0x04, 0x00, 0x03, 1, 2, 0x11, 0x11, 0x11, 0x11, 0x22, 0x22,
		0x22, 0x22, 0x33, 0x33, 0x33, 0x33, 0x44, 0x44, 0x44, 0x44, 5, 6, 7, 8};
	EXPECT_EQ(0, memcmp(b, want, INA_HDR_LEN));
	InaHeader d;
	decode(b, &d);
	uint8_t again[INA_HDR_LEN];
	encode(d, again);
	EXPECT_EQ(0, memcmp(again, want, INA_HDR_LEN));
}

TEST(Codec, FrameRoundTrip)
{
	auto f = frame(sample());
	EXPECT_EQ(f.size(), INA_FRAME_LEN(3));
	EXPECT_EQ(ipv4_checksum(f.data() + sizeof(ina_eth_hdr)), 0);
	InaFrame r;
	ASSERT_EQ(parse_ina_frame(f.data(), uint32_t(f.size()), &r), FrameVerdict::kOk);
	EXPECT_EQ(r.hdr.seq, 0xDEADBEEFu);
	EXPECT_EQ(r.hdr.bitmap[3], 0x44444444u);
	EXPECT_EQ(r.hdr.fan_in[2], 7);
	EXPECT_EQ(r.payload, f.data() + INA_PAYLOAD_OFFSET);
	EXPECT_EQ(r.payload_len, 12u);
	EXPECT_EQ(r.ina_offset, INA_HDR_OFFSET);
	EXPECT_EQ(r.src_ip, 0x0A000001u);
	EXPECT_EQ(r.tos, 2);
	Endpoint s, d;
	uint32_t plen;
	ASSERT_TRUE(parse_frame_headers(f.data(), uint32_t(f.size()), &s, &d, &plen));
	EXPECT_EQ(s.port, 0xC000 | (0x12345 & 0x3FFF));
	EXPECT_EQ(plen, INA_HDR_LEN + 12);
	/* The switch's view of the same frame. */
	InaView v;
	ASSERT_TRUE(peek(f.data(), uint32_t(f.size()), &v));
	EXPECT_EQ(v.job, 0x1234);
	EXPECT_EQ(v.agg_index, 0x12345u);
}

TEST(Codec, ParseVerdicts)
{
	InaFrame r;
	auto f = frame(sample());
	const uint32_t n = uint32_t(f.size());
	EXPECT_EQ(parse_ina_frame(f.data(), 30, &r), FrameVerdict::kNotIna);
	EXPECT_EQ(parse_ina_frame(f.data(), INA_HDR_OFFSET + 4, &r), FrameVerdict::kMalformedShort);
	EXPECT_EQ(parse_ina_frame(f.data(), n - 1, &r), FrameVerdict::kMalformedShort);
	InaHeader h = sample();
	h.version = 2;
	auto v = frame(h);
	EXPECT_EQ(parse_ina_frame(v.data(), n, &r), FrameVerdict::kMalformedVersion);
	h = sample();
	h.type = 9;
	auto t = frame(h);
	EXPECT_EQ(parse_ina_frame(t.data(), n, &r), FrameVerdict::kMalformedType);
	auto l = f;
	h = sample();
	h.elem_count = 2;
	encode(h, l.data() + INA_HDR_OFFSET);
	EXPECT_EQ(parse_ina_frame(l.data(), n, &r), FrameVerdict::kMalformedLength);
	auto p = f;
	Endpoint src{{2, 0, 0, 0, 0, 1}, 1, 1}, dst{{2, 0, 0, 0, 0, 2}, 2, 53};
	write_frame_headers(p.data(), src, dst, INA_HDR_LEN + 12);
	EXPECT_EQ(parse_ina_frame(p.data(), n, &r), FrameVerdict::kNotIna);
	/* A control message: its UDP length covers its own payload. */
	InaHeader c;
	c.type = INA_TYPE_CONTROL;
	c.job_id = 3;
	std::vector<uint8_t> cf(INA_PAYLOAD_OFFSET + 20, 0);
	write_frame_headers(cf.data(), src, Endpoint{{0}, 2, INA_UDP_PORT}, INA_HDR_LEN + 20);
	encode(c, cf.data() + INA_HDR_OFFSET);
	ASSERT_EQ(parse_ina_frame(cf.data(), uint32_t(cf.size()), &r), FrameVerdict::kOk);
	EXPECT_EQ(r.hdr.type, INA_TYPE_CONTROL);
	EXPECT_EQ(r.payload_len, 20u);
}

TEST(Codec, AddressesAndSteering)
{
	static_assert(steering_src_port(0x12345) == (0xC000 | 0x2345), "steering");
	static_assert(steering_src_port(0xFFFFFFFF) == 0xFFFF, "steering mask");
	EXPECT_EQ(job_group(0x0102), (239u << 24) | (18u << 16) | 0x0102u);
	uint8_t mac[6];
	job_group_mac(0x0102, mac);
	const uint8_t want[6] = {0x01, 0x00, 0x5e, 0x12, 0x01, 0x02};
	EXPECT_EQ(0, memcmp(mac, want, 6));
	uint32_t ip;
	EXPECT_TRUE(parse_ipv4("10.0.0.254", &ip));
	EXPECT_EQ(ip, 0x0A0000FEu);
	EXPECT_FALSE(parse_mac("01:02:03:04:05", mac));
}

/* The one address parser of every config file and command line: the whole
 * text is the address, or it is refused. */
TEST(Codec, AddressParsersAreStrict)
{
	uint8_t mac[6];
	ASSERT_TRUE(parse_mac("02:aB:0c:dd:Ee:ff", mac));
	const uint8_t want[6] = {0x02, 0xab, 0x0c, 0xdd, 0xee, 0xff};
	EXPECT_EQ(0, memcmp(mac, want, 6));
	for (const char *bad : {"-1:-1:-1:-1:-1:-1", "2:0:0:0:0:1", "02:00:00:00:00:01:", "02:00:00:00:00:01x",
				"02:00:00:00:00:0", " 02:00:00:00:00:01", "02-00-00-00-00-01", "0x2:00:00:00:00:01",
				"+2:00:00:00:00:01", "02:00:00:00:00:001", ""})
		EXPECT_FALSE(parse_mac(bad, mac)) << bad;
	EXPECT_FALSE(parse_mac(std::string_view("02:00:00:00:00:01\0", 18), mac));
	EXPECT_FALSE(parse_mac(std::string_view("02:00:00:00:00:0\0", 17), mac));

	uint32_t ip = 0;
	ASSERT_TRUE(parse_ipv4("10.0.0.254", &ip));
	EXPECT_EQ(ip, 0x0A0000FEu);
	for (const char *bad : {"10.0.0.1 ", " 10.0.0.1", "10.0.0.1x", "10.0.0", "10.0.0.256", "0x0a.0.0.1",
				"10.0.0.1/24", "", "1111111111111111111"})
		EXPECT_FALSE(parse_ipv4(bad, &ip)) << bad;
	EXPECT_FALSE(parse_ipv4(std::string_view("10.0.0.1\0junk", 13), &ip));

	const uint8_t host[6] = {0x02, 0, 0, 0, 0, 1}, zero[6] = {}, multicast[6] = {0x01, 0, 0x5e, 0, 0, 1},
		      broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	EXPECT_TRUE(is_unicast_mac(host));
	EXPECT_FALSE(is_unicast_mac(zero));
	EXPECT_FALSE(is_unicast_mac(multicast));
	EXPECT_FALSE(is_unicast_mac(broadcast));
}

namespace {

CtrlMessage sample_ctrl(uint8_t n_workers)
{
	CtrlMessage m;
	m.op = INA_CTRL_REGISTER;
	m.levels = 2;
	m.ps_ip = 0x0A000064;
	const uint8_t ps_mac[6] = {2, 0, 0, 0, 0, 0x64};
	memcpy(m.ps_mac, ps_mac, 6);
	m.fan_in[0] = 3;
	m.fan_in[1] = 2;
	m.n_workers = n_workers;
	for (uint8_t i = 0; i < n_workers; i++) {
		m.workers[i].ip = 0x0A000001u + i;
		const uint8_t mac[6] = {2, 0, 0, 0, 1, i};
		memcpy(m.workers[i].mac, mac, 6);
		m.workers[i].bit[0] = i % 3;
		m.workers[i].bit[1] = static_cast<uint8_t>(i / 3);
	}
	m.refresh_ms = 500;
	m.counter = 0x0102030405060708ull;
	for (uint32_t i = 0; i < INA_CTRL_MAC_LEN; i++)
		m.mac[i] = static_cast<uint8_t>(0xA0 + i);
	return m;
}

} /* namespace */

TEST(CodecControl, EncodeWritesTheWireLayout)
{
	const CtrlMessage m = sample_ctrl(2);
	uint8_t b[256];
	memset(b, 0xEE, sizeof(b));
	ASSERT_EQ(encode_ctrl(m, b, sizeof(b)), 20u + 2 * 16 + 40);
	EXPECT_EQ(ctrl_payload_len(2), 92u);
	EXPECT_EQ(b[offsetof(ina_ctrl_hdr, op)], INA_CTRL_REGISTER);
	EXPECT_EQ(b[offsetof(ina_ctrl_hdr, n_workers)], 2);
	EXPECT_EQ(b[offsetof(ina_ctrl_hdr, levels)], 2);
	EXPECT_EQ(b[offsetof(ina_ctrl_hdr, status)], 0);
	EXPECT_EQ(ina_load32(b + offsetof(ina_ctrl_hdr, ps_ip)), 0x0A000064u);
	EXPECT_EQ(b[offsetof(ina_ctrl_hdr, ps_mac) + 5], 0x64);
	EXPECT_EQ(b[offsetof(ina_ctrl_hdr, fan_in) + 0], 3);
	EXPECT_EQ(b[offsetof(ina_ctrl_hdr, fan_in) + 1], 2);
	EXPECT_EQ(ina_load16(b + offsetof(ina_ctrl_hdr, refresh_ms)), 500);
	const uint8_t *w1 = b + 20 + 16;
	EXPECT_EQ(ina_load32(w1 + offsetof(ina_ctrl_worker, ip)), 0x0A000002u);
	EXPECT_EQ(w1[offsetof(ina_ctrl_worker, mac) + 5], 1);
	EXPECT_EQ(w1[offsetof(ina_ctrl_worker, bit) + 0], 1);
	EXPECT_EQ(w1[offsetof(ina_ctrl_worker, bit) + 2], 0xFF);
	EXPECT_EQ(ina_load16(w1 + offsetof(ina_ctrl_worker, reserved)), 0);
	const uint8_t *auth = b + 20 + 32;
	/* Big endian counter, then the MAC. */
	const uint8_t counter[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	EXPECT_EQ(memcmp(auth + offsetof(ina_ctrl_auth, counter), counter, 8), 0);
	EXPECT_EQ(auth[offsetof(ina_ctrl_auth, mac)], 0xA0);
	EXPECT_EQ(auth[offsetof(ina_ctrl_auth, mac) + 31], 0xA0 + 31);
	EXPECT_EQ(b[92], 0xEE) << "nothing written past the message";
	EXPECT_EQ(encode_ctrl(m, b, 91), 0u) << "a buffer one byte short is refused";
}

TEST(CodecControl, RoundTrip)
{
	for (uint8_t n : {0, 1, 7, 255}) {
		CtrlMessage m = sample_ctrl(n);
		if (n == 0)
			m.op = INA_CTRL_UNREGISTER;
		std::vector<uint8_t> b(ctrl_payload_len(n));
		ASSERT_EQ(encode_ctrl(m, b.data(), static_cast<uint32_t>(b.size())), b.size());
		CtrlMessage d;
		ASSERT_EQ(decode_ctrl(b.data(), static_cast<uint32_t>(b.size()), &d), CtrlVerdict::kOk) << int(n);
		EXPECT_EQ(d.op, m.op);
		EXPECT_EQ(d.n_workers, n);
		EXPECT_EQ(d.levels, m.levels);
		EXPECT_EQ(d.ps_ip, m.ps_ip);
		EXPECT_EQ(memcmp(d.ps_mac, m.ps_mac, 6), 0);
		EXPECT_EQ(memcmp(d.fan_in, m.fan_in, INA_MAX_LEVELS), 0);
		EXPECT_EQ(d.refresh_ms, m.refresh_ms);
		for (uint32_t i = 0; i < n; i++) {
			EXPECT_EQ(d.workers[i].ip, m.workers[i].ip);
			EXPECT_EQ(memcmp(d.workers[i].mac, m.workers[i].mac, 6), 0);
			EXPECT_EQ(memcmp(d.workers[i].bit, m.workers[i].bit, INA_MAX_LEVELS), 0);
		}
		EXPECT_EQ(d.counter, m.counter);
		EXPECT_EQ(memcmp(d.mac, m.mac, INA_CTRL_MAC_LEN), 0);
	}
	CtrlMessage ack;
	ack.op = INA_CTRL_ACK;
	ack.status = INA_CTRL_DENIED;
	ack.counter = 42;
	uint8_t b[64];
	ASSERT_EQ(encode_ctrl(ack, b, sizeof(b)), 60u);
	CtrlMessage d;
	ASSERT_EQ(decode_ctrl(b, 60, &d), CtrlVerdict::kOk);
	EXPECT_EQ(d.op, INA_CTRL_ACK);
	EXPECT_EQ(d.status, INA_CTRL_DENIED);
	EXPECT_EQ(d.counter, 42u);
}

TEST(CodecControl, EveryTruncationAndExtensionRejected)
{
	const CtrlMessage m = sample_ctrl(3);
	std::vector<uint8_t> b(ctrl_payload_len(3) + 1, 0);
	const uint32_t len = encode_ctrl(m, b.data(), static_cast<uint32_t>(b.size()));
	CtrlMessage d;
	for (uint32_t l = 0; l < len; l++)
		EXPECT_EQ(decode_ctrl(b.data(), l, &d), CtrlVerdict::kShort) << "length " << l;
	EXPECT_EQ(decode_ctrl(b.data(), len + 1, &d), CtrlVerdict::kLong);
	/* n_workers claiming one more worker than the bytes hold. */
	b[offsetof(ina_ctrl_hdr, n_workers)] = 4;
	EXPECT_EQ(decode_ctrl(b.data(), len, &d), CtrlVerdict::kShort);
	b[offsetof(ina_ctrl_hdr, n_workers)] = 3;
	for (uint8_t op : {0, 4, 7, 255}) {
		b[offsetof(ina_ctrl_hdr, op)] = op;
		EXPECT_EQ(decode_ctrl(b.data(), len, &d), CtrlVerdict::kOp) << int(op);
	}
	for (uint8_t op : {INA_CTRL_ACK, INA_CTRL_JOB_QUERY, INA_CTRL_JOB_INFO}) {
		b[offsetof(ina_ctrl_hdr, op)] = op;
		EXPECT_EQ(decode_ctrl(b.data(), len, &d), CtrlVerdict::kWorkers) << int(op);
	}
	EXPECT_STRNE(ctrl_verdict_name(CtrlVerdict::kShort), ctrl_verdict_name(CtrlVerdict::kLong));
}

TEST(CodecControl, WholeFrameParsesAsControl)
{
	const CtrlMessage m = sample_ctrl(2);
	Endpoint src{{2, 0, 0, 0, 0, 0x64}, 0x0A000064, INA_UDP_PORT};
	Endpoint dst{{2, 0, 0, 0, 0, 0xFE}, 0x0A0000FE, INA_UDP_PORT};
	uint8_t frame[kCtrlMaxFrameLen];
	const uint32_t len = write_ctrl_frame(frame, sizeof(frame), src, dst, 21, m);
	ASSERT_EQ(len, INA_PAYLOAD_OFFSET + ctrl_payload_len(2));
	EXPECT_EQ(write_ctrl_frame(frame, len - 1, src, dst, 21, m), 0u);
	InaFrame f;
	ASSERT_EQ(parse_ina_frame(frame, len, &f), FrameVerdict::kOk);
	EXPECT_EQ(f.hdr.type, INA_TYPE_CONTROL);
	EXPECT_EQ(f.hdr.job_id, 21);
	EXPECT_EQ(f.hdr.elem_count, 0);
	EXPECT_EQ(f.hdr.remap_index, 0u);
	EXPECT_EQ(f.payload_len, ctrl_payload_len(2));
	EXPECT_EQ(f.src_ip, src.ip);
	EXPECT_EQ(f.dst_ip, dst.ip);
	EXPECT_EQ(ctrl_signed_len(f), INA_HDR_LEN + ctrl_payload_len(2) - INA_CTRL_MAC_LEN);
	CtrlMessage d;
	ASSERT_EQ(decode_ctrl(f.payload, f.payload_len, &d), CtrlVerdict::kOk);
	EXPECT_EQ(d.workers[1].ip, m.workers[1].ip);
}

/* The fragment size rides in the INA header's elem_count of a control
 * frame (an ACK's switch cap, a JOB_INFO's job size), next to the epoch. */
TEST(CodecControl, ElementsAndEpochInTheHeader)
{
	Endpoint src{{2, 0, 0, 0, 0, 0x64}, 0x0A000064, INA_UDP_PORT};
	Endpoint dst{{2, 0, 0, 0, 0, 0xFE}, 0x0A0000FE, INA_UDP_PORT};
	for (uint8_t op : {INA_CTRL_ACK, INA_CTRL_JOB_QUERY, INA_CTRL_JOB_INFO}) {
		CtrlMessage m;
		m.op = op;
		m.status = INA_CTRL_INVALID;
		m.elements = 858;
		m.epoch = 9;
		m.ps_ip = dst.ip;
		m.counter = 0x0102030405060708ull;
		uint8_t frame[kCtrlMaxFrameLen];
		const uint32_t len = write_ctrl_frame(frame, sizeof(frame), src, dst, 300, m);
		ASSERT_EQ(len, INA_PAYLOAD_OFFSET + ctrl_payload_len(0)) << int(op);
		/* Big endian at the header's elem_count offset. */
		EXPECT_EQ(frame[INA_HDR_OFFSET + offsetof(ina_hdr, elem_count)], 858 >> 8);
		EXPECT_EQ(frame[INA_HDR_OFFSET + offsetof(ina_hdr, elem_count) + 1], 858 & 255);
		InaFrame f;
		ASSERT_EQ(parse_ina_frame(frame, len, &f), FrameVerdict::kOk) << "a control frame's length "
										 "does not follow elem_count";
		EXPECT_EQ(f.hdr.elem_count, 858);
		EXPECT_EQ(ina_flags_epoch(f.hdr.flags), 9);
		EXPECT_EQ(f.hdr.job_id, 300);
		CtrlMessage d;
		ASSERT_EQ(decode_ctrl(f.payload, f.payload_len, &d), CtrlVerdict::kOk) << int(op);
		EXPECT_EQ(d.op, op);
		EXPECT_EQ(d.status, INA_CTRL_INVALID);
		EXPECT_EQ(d.ps_ip, dst.ip);
		EXPECT_EQ(d.counter, m.counter);
	}
}
