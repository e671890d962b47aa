/* SPDX-License-Identifier: BSD-3-Clause
 * ECN marking at the egress queue (switchd/src/egress.cpp): a gradient's INA
 * ECN flag is set (a parameter packet's is left as the PS wrote it), IP CE
 * is set with a valid IPv4 checksum, and a UDP
 * checksum the sender computed (a job the switch only routes) stays valid,
 * so that the receiver's kernel does not drop the marked packet. */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "egress.h"
#include "ina/codec.h"
#include "ina/wire.h"

namespace {

const ina::Endpoint kSrc{{2, 0, 0, 0, 0, 1}, 0x0A000001, INA_UDP_PORT};
const ina::Endpoint kDst{{2, 0, 0, 0, 0, 2}, 0x0A000002, INA_UDP_PORT};

/* RFC 768 checksum over the pseudo-header and the whole datagram, written
 * bit by bit from the definition (not the switch's incremental update). */
uint16_t udp_checksum(const uint8_t *frame, uint32_t len)
{
	const uint8_t *ip = frame + 14;
	const uint8_t *udp = ip + 20;
	uint32_t udp_len = len - 34;
	std::vector<uint8_t> buf(ip + 12, ip + 20); /* source and destination */
	buf.push_back(0);
	buf.push_back(17);
	buf.push_back(static_cast<uint8_t>(udp_len >> 8));
	buf.push_back(static_cast<uint8_t>(udp_len));
	buf.insert(buf.end(), udp, udp + udp_len);
	buf[12 + 6] = buf[12 + 7] = 0; /* the checksum field itself */
	if (buf.size() % 2)
		buf.push_back(0);
	uint32_t sum = 0;
	for (size_t i = 0; i < buf.size(); i += 2)
		sum += static_cast<uint32_t>(buf[i] << 8 | buf[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	uint16_t c = static_cast<uint16_t>(~sum);
	return c ? c : 0xFFFF;
}

uint32_t gradient(uint8_t *f, uint16_t flags, uint8_t tos)
{
	ina::InaHeader h;
	h.job_id = 7;
	h.seq = 1234;
	h.elem_count = 62;
	h.flags = flags;
	uint32_t len = ina::write_ina_frame(f, kSrc, kDst, h);
	for (uint32_t k = 0; k < 62; k++)
		ina_store32(f + INA_PAYLOAD_OFFSET + 4 * k, 0x01020304u * (k + 1));
	f[15] = tos;
	ina_store16(f + 24, 0);
	ina_store16(f + 24, ina::ipv4_checksum(f + 14));
	return len;
}

/* As switchd calls it: with the header classify decoded, null for a frame
 * that is not INA traffic. */
int mark(uint8_t *f, uint32_t len)
{
	ina::InaView v;
	return switchd::ecn_mark(f, len, ina::peek(f, len, &v) ? &v : nullptr);
}

uint16_t flags_of(const uint8_t *f)
{
	ina::InaHeader h;
	ina::decode(f + INA_HDR_OFFSET, &h);
	return h.flags;
}

} // namespace

TEST(EcnMark, SenderUdpChecksumStaysValid)
{
	/* Gradients' flags (no ACK bit), chosen so that the one's-complement
	 * update carries. */
	for (uint16_t flags : {0, 2, 0x00FE, 0xFF00 & ~INA_F_ECN, 0x7FFE & ~INA_F_ECN}) {
		uint8_t f[2048];
		uint32_t len = gradient(f, flags, 2 /* ECT(0) */);
		ina_store16(f + 40, udp_checksum(f, len));
		ASSERT_EQ(mark(f, len), 7);
		EXPECT_TRUE(flags_of(f) & INA_F_ECN);
		EXPECT_EQ(flags_of(f) & ~INA_F_ECN, flags & ~INA_F_ECN);
		EXPECT_EQ(f[15] & 3, 3) << "IP CE";
		EXPECT_EQ(ina::ipv4_checksum(f + 14), 0) << "IPv4 checksum after CE";
		EXPECT_EQ(ina_load16(f + 40), udp_checksum(f, len)) << "flags " << flags;
	}
}

TEST(EcnMark, ChecksumZeroStaysZeroAndMarkedTwiceIsOnce)
{
	uint8_t f[2048];
	uint32_t len = gradient(f, 0, 0);
	ASSERT_EQ(mark(f, len), 7);
	EXPECT_EQ(ina_load16(f + 40), 0) << "no checksum stays no checksum";
	EXPECT_TRUE(flags_of(f) & INA_F_ECN);

	len = gradient(f, INA_F_ECN, 2);
	ina_store16(f + 40, udp_checksum(f, len));
	uint16_t before = ina_load16(f + 40);
	ASSERT_EQ(mark(f, len), 7);
	EXPECT_EQ(ina_load16(f + 40), before) << "an already marked header changes no word";
}

TEST(EcnMark, OtherTrafficOnlyWhenEcnCapable)
{
	uint8_t f[2048];
	uint32_t len = gradient(f, 0, 0);
	ina_store16(f + 36, 5000); /* not the INA port: plain UDP */
	EXPECT_EQ(mark(f, len), -1) << "not ECN-capable: untouched";
	EXPECT_EQ(f[15] & 3, 0);
	f[15] = 1; /* ECT(1) */
	ina_store16(f + 24, 0);
	ina_store16(f + 24, ina::ipv4_checksum(f + 14));
	EXPECT_EQ(mark(f, len), 0);
	EXPECT_EQ(f[15] & 3, 3);
	EXPECT_EQ(ina::ipv4_checksum(f + 14), 0);
}

/* A parameter packet's INA ECN flag is the PS's word on the aggregate, the
 * same for every worker of the job (A2TP's job-wide windows read it): the
 * queue toward one worker marks only that copy's IP header. */
TEST(EcnMark, ParameterPacketGetsIpCeOnly)
{
	for (uint16_t flags : {uint16_t(INA_F_ACK), uint16_t(INA_F_ACK | INA_F_ECN)}) {
		uint8_t f[2048];
		uint32_t len = gradient(f, flags, 0);
		ASSERT_EQ(mark(f, len), 7);
		EXPECT_EQ(flags_of(f), flags) << "the PS's flags stay";
		EXPECT_EQ(f[15] & 3, 3) << "IP CE";
		EXPECT_EQ(ina::ipv4_checksum(f + 14), 0);
	}
}
