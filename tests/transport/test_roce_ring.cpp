/* SPDX-License-Identifier: BSD-3-Clause
 * The roce ring's parts that need no RDMA device: the message bytes (nr_hdr
 * of ina/roce.h in front of the values), the checks of a result message, the
 * connection set-up exchange between ring neighbours over real TCP on
 * loopback, the config checks, and the one-line error without a device. */
#include <gtest/gtest.h>

#include <infiniband/verbs.h>
#include <unistd.h>

#include <cstring>
#include <thread>
#include <vector>

#include "ina/roce.h"
#include "ina/roce_msg.h"
#include "ina/roce_ring.h"
#include "ina/transport.h"
#include "roce_setup.h"

using namespace ina;

namespace {

RoceRingParams params()
{
	RoceRingParams p;
	p.msg_bytes = 2048;
	p.msg_len = 2;
	p.ring_id = 7;
	p.rank = 3;
	p.dtype = NR_DTYPE_FLOAT32;
	return p;
}

/* 127.<pid hi>.<pid lo>.host: parallel runs never share an address. */
uint32_t local_ip(uint32_t host)
{
	uint32_t pid = static_cast<uint32_t>(getpid()) & 0xFFFF;
	return (127u << 24) | (pid << 8) | host;
}

RoceRingConfig ring_config(uint8_t rank, uint8_t ranks)
{
	RoceRingConfig c;
	c.ring_id = 5;
	c.rank = rank;
	c.ranks = ranks;
	c.listen_ip = local_ip(10 + rank);
	c.successor_ip = local_ip(10 + (rank + 1) % ranks);
	c.setup_timeout_ms = 5000;
	c.window.window = 8;
	c.window.msg_bytes = 4096;
	c.window.mtu = 1024;
	return c;
}

RoceConnInfo info(uint32_t qpn, uint8_t rank)
{
	RoceConnInfo c;
	c.qpn = qpn;
	c.psn = qpn ^ 0x5A5A5A;
	for (int i = 0; i < 16; i++)
		c.gid[i] = static_cast<uint8_t>(qpn + i);
	c.ring_id = 5;
	c.rank = rank;
	c.mtu = 1024;
	c.msg_bytes = 4096;
	return c;
}

} /* namespace */

TEST(RoceMsg, HeaderLayoutIsNrHdr)
{
	RoceRingParams p = params();
	EXPECT_EQ(roce_msg_values(p), (2048u - 16u) / 4u);
	std::vector<float> v(roce_msg_values(p));
	for (size_t i = 0; i < v.size(); i++)
		v[i] = static_cast<float>(i) * 0.5f;
	std::vector<uint8_t> m(p.msg_bytes, 0xEE);
	roce_msg_build(p, 0x01020304, v.data(), static_cast<uint32_t>(v.size()), m.data());
	/* Big-endian header fields at the offsets of struct nr_hdr. */
	const uint8_t want[16] = {0x4E, 0x52, 0x45, 0x44, 1, 2, 3, 4, 0, 2, 0, 7, 3, NR_DTYPE_FLOAT32, 0, 0};
	EXPECT_EQ(memcmp(m.data(), want, 16), 0);
	/* Values in host order right behind it. */
	float got;
	memcpy(&got, m.data() + NR_HDR_LEN + 4 * 9, 4);
	EXPECT_EQ(got, 4.5f);
	uint32_t id = 0;
	EXPECT_EQ(roce_msg_check(p, m.data(), p.msg_bytes, &id), RoceMsgError::kOk);
	EXPECT_EQ(id, 0x01020304u);
}

TEST(RoceMsg, LastMessageIsPaddedWithZeros)
{
	RoceRingParams p = params();
	const float v[3] = {1, 2, 3};
	std::vector<uint8_t> m(p.msg_bytes, 0xEE);
	roce_msg_build(p, 9, v, 3, m.data());
	for (size_t i = NR_HDR_LEN + 12; i < m.size(); i++)
		ASSERT_EQ(m[i], 0) << i;
	/* A tensor of n values: messages and their spans. */
	const size_t per = roce_msg_values(p);
	const size_t n = per * 2 + 5;
	EXPECT_EQ(roce_msg_count(p, n), 3u);
	EXPECT_EQ(roce_msg_count(p, per), 1u);
	size_t f;
	uint32_t c;
	roce_msg_span(p, n, 1, &f, &c);
	EXPECT_EQ(f, per);
	EXPECT_EQ(c, per);
	roce_msg_span(p, n, 2, &f, &c);
	EXPECT_EQ(f, 2 * per);
	EXPECT_EQ(c, 5u);
}

TEST(RoceMsg, ResultChecks)
{
	RoceRingParams p = params();
	std::vector<uint8_t> m(p.msg_bytes);
	const float v[1] = {1};
	uint32_t id;
	struct Case {
		const char *name;
		size_t off;
		uint8_t byte;
		RoceMsgError want;
	} cases[] = {
		{"magic", 0, 0x00, RoceMsgError::kMagic},
		{"msg_len", 9, 3, RoceMsgError::kMsgLen},
		{"ring", 11, 8, RoceMsgError::kRing},
		{"dtype", 13, NR_DTYPE_INT32, RoceMsgError::kDtype},
	};
	for (const Case &k : cases) {
		roce_msg_build(p, 1, v, 1, m.data());
		m[k.off] = k.byte;
		EXPECT_EQ(roce_msg_check(p, m.data(), p.msg_bytes, &id), k.want) << k.name;
	}
	roce_msg_build(p, 1, v, 1, m.data());
	EXPECT_EQ(roce_msg_check(p, m.data(), p.msg_bytes - 4, &id), RoceMsgError::kLength);
	/* The rank is the sender's, not checked: results come back with the
	 * switch's choice of header. */
	m[12] = 9;
	EXPECT_EQ(roce_msg_check(p, m.data(), p.msg_bytes, &id), RoceMsgError::kOk);
	EXPECT_STREQ(roce_msg_error_name(RoceMsgError::kMagic), "no InetTag");
}

TEST(RoceMsg, ConnInfoRoundTrip)
{
	RoceConnInfo c = info(0xABCDEF, 4);
	uint8_t b[kRoceConnInfoLen];
	roce_conn_info_write(c, b);
	RoceConnInfo d;
	ASSERT_TRUE(roce_conn_info_read(b, &d));
	EXPECT_EQ(d.qpn, c.qpn);
	EXPECT_EQ(d.psn, c.psn);
	EXPECT_EQ(memcmp(d.gid, c.gid, 16), 0);
	EXPECT_EQ(d.ring_id, 5);
	EXPECT_EQ(d.rank, 4);
	EXPECT_EQ(d.mtu, 1024);
	EXPECT_EQ(d.msg_bytes, 4096u);
	b[0] = 'X';
	EXPECT_FALSE(roce_conn_info_read(b, &d));
	roce_conn_info_write(c, b);
	b[4] = 2; /* another version */
	EXPECT_FALSE(roce_conn_info_read(b, &d));
	roce_conn_info_write(c, b);
	b[8] = 1; /* QPN beyond 24 bits */
	EXPECT_FALSE(roce_conn_info_read(b, &d));
}

TEST(RoceSetup, ThreeRanksExchangeOverTcp)
{
	const uint8_t k = 3;
	std::vector<RoceConnInfo> succ(k), pred(k);
	std::vector<std::string> err(k);
	std::vector<int> ok(k, 0);
	std::vector<std::thread> th;
	for (uint8_t r = 0; r < k; r++)
		th.emplace_back([&, r] {
			ok[r] = roce_exchange(ring_config(r, k), info(0x100 + r, r), info(0x200 + r, r), &succ[r],
					      &pred[r], &err[r]);
		});
	for (auto &t : th)
		t.join();
	for (uint8_t r = 0; r < k; r++) {
		ASSERT_TRUE(ok[r]) << int(r) << ": " << err[r];
		/* Our send QP talks to the successor's receive QP, and our
		 * receive QP to the predecessor's send QP. */
		EXPECT_EQ(succ[r].qpn, 0x200u + (r + 1) % k);
		EXPECT_EQ(succ[r].psn, (0x200u + (r + 1) % k) ^ 0x5A5A5A);
		EXPECT_EQ(pred[r].qpn, 0x100u + (r + k - 1) % k);
		EXPECT_EQ(pred[r].gid[0], static_cast<uint8_t>(0x100 + (r + k - 1) % k));
	}
}

TEST(RoceSetup, OneRankRingIsItsOwnNeighbour)
{
	RoceConnInfo succ, pred;
	std::string err;
	ASSERT_TRUE(roce_exchange(ring_config(0, 1), info(0x11, 0), info(0x22, 0), &succ, &pred, &err)) << err;
	EXPECT_EQ(succ.qpn, 0x22u);
	EXPECT_EQ(pred.qpn, 0x11u);
}

TEST(RoceSetup, WrongNeighbourIsAClearError)
{
	/* Rank 1 of a two-rank ring claims to be on another ring. */
	RoceConnInfo succ[2], pred[2];
	std::string err[2];
	int ok[2];
	std::thread t([&] {
		RoceConnInfo i = info(0x301, 1), j = info(0x401, 1);
		i.ring_id = j.ring_id = 6;
		RoceRingConfig c = ring_config(1, 2);
		c.setup_timeout_ms = 2000;
		ok[1] = roce_exchange(c, i, j, &succ[1], &pred[1], &err[1]);
	});
	RoceRingConfig c = ring_config(0, 2);
	c.setup_timeout_ms = 2000;
	ok[0] = roce_exchange(c, info(0x300, 0), info(0x400, 0), &succ[0], &pred[0], &err[0]);
	t.join();
	EXPECT_FALSE(ok[0]);
	EXPECT_EQ(err[0], "roce transport: predecessor is on ring 6, not 5");
}

TEST(RoceSetup, NoSuccessorTimesOut)
{
	RoceRingConfig c = ring_config(0, 2);
	c.setup_timeout_ms = 300;
	RoceConnInfo succ, pred;
	std::string err;
	auto t0 = std::chrono::steady_clock::now();
	EXPECT_FALSE(roce_exchange(c, info(1, 0), info(2, 0), &succ, &pred, &err));
	auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
	EXPECT_NE(err.find("roce transport: cannot reach the ring successor's set-up port 127."), std::string::npos)
		<< err;
	EXPECT_GE(ms, 250);
	EXPECT_LT(ms, 3000);
}

TEST(RoceRingConfig, BadConfigRejected)
{
	std::string err;
	RoceRingConfig c = ring_config(0, 2);
	EXPECT_TRUE(roce_ring_check(c, &err)) << err;
	c.ranks = 33;
	EXPECT_FALSE(roce_ring_check(c, &err));
	EXPECT_EQ(err, "roce ring of 33 ranks, must be 1..32");
	c = ring_config(0, 2);
	c.rank = 2;
	EXPECT_FALSE(roce_ring_check(c, &err));
	EXPECT_EQ(err, "roce rank 2 must be below the ring's 2 ranks");
	c = ring_config(0, 2);
	c.successor_ip = 0;
	EXPECT_FALSE(roce_ring_check(c, &err));
	EXPECT_NE(err.find("successor's address"), std::string::npos);
	c = ring_config(0, 2);
	c.window.msg_bytes = 1000;
	EXPECT_FALSE(roce_ring_check(c, &err));
	EXPECT_EQ(err, "roce message size 1000 is not a multiple of the MTU payload 1024");
	c = ring_config(0, 2);
	c.window.window = 0;
	EXPECT_FALSE(roce_ring_check(c, &err));
	EXPECT_EQ(err, "roce window must be 1..4096 messages, got 0");
}

TEST(RoceRing, OpenWithoutDeviceFailsClearly)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	RoceRingConfig cfg = ring_config(0, 1);
	std::string err;
	auto r = open_roce_ring(cfg, &err);
	if (n > 0) {
		if (!r) {
			EXPECT_EQ(err.find('\n'), std::string::npos) << err;
		}
		GTEST_SKIP() << n << " RDMA device(s) present";
	}
	EXPECT_FALSE(r);
	EXPECT_EQ(err, "roce transport: no RDMA device found (ibv_get_device_list returned 0 devices)");
	/* A bad config is reported before the device is looked for. */
	cfg.window.window = 0;
	EXPECT_FALSE(open_roce_ring(cfg, &err));
	EXPECT_EQ(err, "roce window must be 1..4096 messages, got 0");
}

TEST(RoceRing, NotAFrameTransport)
{
	TransportConfig cfg;
	cfg.kind = "roce";
	std::string err;
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_EQ(err.find("roce is not a frame transport"), 0u) << err;
}
