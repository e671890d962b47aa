/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NetReduce's codec (ina/nr_codec.h) against its layout: every field of the
 * message header and of the connection information at its byte offset, big
 * endian, and each read of what the write wrote. The RoCE transport and the
 * switch's RoCE stage use only this codec, so these bytes are theirs.
 */
#include <gtest/gtest.h>

#include <cstring>

#include "ina/nr_codec.h"

using namespace ina;

TEST(NrCodec, HeaderBytesAtTheirOffsets)
{
	NrHeader h;
	h.msg_id = 0x01020304;
	h.msg_len = 0x0506;
	h.ring_id = 0x0708;
	h.rank = 0x09;
	h.dtype = NR_DTYPE_FLOAT32;
	uint8_t b[NR_HDR_LEN + 1];
	memset(b, 0xEE, sizeof(b));
	nr_hdr_write(h, b);
	const uint8_t want[NR_HDR_LEN] = {'N', 'R', 'E', 'D', 1, 2, 3, 4, 5, 6, 7, 8, 9, NR_DTYPE_FLOAT32, 0, 0};
	EXPECT_EQ(memcmp(b, want, NR_HDR_LEN), 0);
	EXPECT_EQ(b[NR_HDR_LEN], 0xEE) << "wrote past the header";
	EXPECT_EQ(offsetof(struct nr_hdr, msg_id), 4u);
	EXPECT_EQ(offsetof(struct nr_hdr, rank), 12u);
	EXPECT_EQ(NR_HDR_LEN, 16u);
}

TEST(NrCodec, HeaderReadsWhatWasWritten)
{
	const uint8_t in[NR_HDR_LEN] = {'N', 'R', 'E', 'D', 0xFF, 0, 0, 1, 0, 4, 0x12, 0x34, 31, NR_DTYPE_INT32, 0, 0};
	const NrHeader h = nr_hdr_read(in);
	EXPECT_EQ(h.magic, NR_MAGIC);
	EXPECT_EQ(h.msg_id, 0xFF000001u);
	EXPECT_EQ(h.msg_len, 4);
	EXPECT_EQ(h.ring_id, 0x1234);
	EXPECT_EQ(h.rank, 31);
	EXPECT_EQ(h.dtype, NR_DTYPE_INT32);
	uint8_t out[NR_HDR_LEN];
	nr_hdr_write(h, out);
	EXPECT_EQ(memcmp(in, out, NR_HDR_LEN), 0);
	const uint8_t untagged[NR_HDR_LEN] = {'N', 'R', 'E', 'X'};
	EXPECT_NE(nr_hdr_read(untagged).magic, NR_MAGIC);
}

TEST(NrCodec, ConnInfoBytesAtTheirOffsets)
{
	RoceConnInfo c;
	c.qpn = 0xABCDEF;
	c.psn = 0x123456;
	for (int i = 0; i < 16; i++)
		c.gid[i] = static_cast<uint8_t>(0xA0 + i);
	c.ring_id = 0x0102;
	c.rank = 7;
	c.mtu = 4096;
	c.msg_bytes = 0x00010000;
	uint8_t b[kRoceConnInfoLen];
	memset(b, 0xEE, sizeof(b));
	roce_conn_info_write(c, b);
	const uint8_t head[16] = {'N', 'R', 'Q', 'P', 1, 7, 0x01, 0x02, 0, 0xAB, 0xCD, 0xEF, 0, 0x12, 0x34, 0x56};
	EXPECT_EQ(memcmp(b, head, 16), 0);
	EXPECT_EQ(memcmp(b + 16, c.gid, 16), 0);
	const uint8_t tail[8] = {0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0, 0};
	EXPECT_EQ(memcmp(b + 32, tail, 8), 0);
	EXPECT_EQ(kRoceConnInfoLen, 40u);

	RoceConnInfo d;
	ASSERT_TRUE(roce_conn_info_read(b, &d));
	EXPECT_EQ(d.qpn, c.qpn);
	EXPECT_EQ(d.psn, c.psn);
	EXPECT_EQ(memcmp(d.gid, c.gid, 16), 0);
	EXPECT_EQ(d.ring_id, c.ring_id);
	EXPECT_EQ(d.rank, c.rank);
	EXPECT_EQ(d.mtu, c.mtu);
	EXPECT_EQ(d.msg_bytes, c.msg_bytes);
}

TEST(NrCodec, ConnInfoRefusesWhatItDidNotWrite)
{
	RoceConnInfo c;
	c.qpn = 1;
	uint8_t b[kRoceConnInfoLen];
	RoceConnInfo d;
	roce_conn_info_write(c, b);
	b[3] = 'X'; /* another magic */
	EXPECT_FALSE(roce_conn_info_read(b, &d));
	roce_conn_info_write(c, b);
	b[4] = 2; /* another version */
	EXPECT_FALSE(roce_conn_info_read(b, &d));
	roce_conn_info_write(c, b);
	b[12] = 1; /* a PSN beyond 24 bits */
	EXPECT_FALSE(roce_conn_info_read(b, &d));
	c.qpn = 0x1FFFFFF; /* masked to 24 bits on the way out */
	roce_conn_info_write(c, b);
	ASSERT_TRUE(roce_conn_info_read(b, &d));
	EXPECT_EQ(d.qpn, 0xFFFFFFu);
}
