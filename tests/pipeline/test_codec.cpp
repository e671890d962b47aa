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
