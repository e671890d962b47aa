/* SPDX-License-Identifier: BSD-3-Clause
 * The UDP socket transport over loopback: whole frames in, whole frames out. */
#include <gtest/gtest.h>

#include <unistd.h>

#include "ina/codec.h"
#include "ina/transport.h"
#include "test_util.h"

using namespace ina;
using namespace ina_test;

namespace {

/* Loopback addresses unique to this process, so parallel runs never share a
 * port: 127.<pid hi>.<pid lo>.{1,2}. */
uint32_t local_ip(uint32_t host)
{
	uint32_t pid = static_cast<uint32_t>(getpid()) & 0xFFFF;
	return (127u << 24) | (pid << 8) | host;
}

std::unique_ptr<Transport> open_udp_at(uint32_t ip, std::vector<uint32_t> groups = {}, bool gso = false)
{
	TransportConfig cfg;
	cfg.kind = "udp";
	cfg.ip = ip;
	cfg.groups = groups;
	cfg.udp_gso = gso;
	std::string err;
	auto t = open_transport(cfg, &err);
	EXPECT_TRUE(t) << err;
	return t;
}

} // namespace

TEST(TransportUdp, WholeFramesBothWays)
{
	auto a = open_udp_at(local_ip(1));
	auto b = open_udp_at(local_ip(2));
	ASSERT_TRUE(a && b);
	EXPECT_STREQ(a->name(), "udp");
	EXPECT_EQ(a->ip(), local_ip(1));

	Endpoint src{{2, 0, 0, 0, 0, 1}, local_ip(1), INA_UDP_PORT};
	Endpoint dst{{2, 0, 0, 0, 0, 2}, local_ip(2), INA_UDP_PORT};
	Buf out[8];
	FrameBuf fbs[8];
	for (int i = 0; i < 8; i++) {
		out[i].fb.len = make_ina_frame(out[i].mem.data(), src, dst, 7, 100 + i, 62);
		fbs[i] = out[i].fb;
	}
	ASSERT_EQ(a->send(fbs, 8), 8u);

	Buf in[8];
	FrameBuf rx[8];
	for (int i = 0; i < 8; i++)
		rx[i] = in[i].fb;
	uint32_t got = 0;
	for (int tries = 0; tries < 50 && got < 8; tries++)
		got += b->recv(rx + got, 8 - got, 20000);
	ASSERT_EQ(got, 8u);
	for (int i = 0; i < 8; i++) {
		ASSERT_EQ(rx[i].len, INA_FRAME_LEN(62));
		Endpoint s, d;
		uint32_t plen;
		ASSERT_TRUE(parse_frame_headers(rx[i].data, rx[i].len, &s, &d, &plen));
		EXPECT_EQ(s.ip, local_ip(1));
		EXPECT_EQ(s.port, INA_UDP_PORT);
		EXPECT_EQ(d.ip, local_ip(2));
		EXPECT_EQ(d.port, INA_UDP_PORT);
		EXPECT_EQ(plen, INA_HDR_LEN + 62 * 4);
		/* The synthesized IPv4 header carries a valid checksum. */
		EXPECT_EQ(ipv4_checksum(rx[i].data + 14), 0);
		/* INA header and payload byte for byte. */
		EXPECT_EQ(0, memcmp(rx[i].data + INA_HDR_OFFSET, out[i].mem.data() + INA_HDR_OFFSET,
				    rx[i].len - INA_HDR_OFFSET));
	}
	/* Nothing more is waiting. */
	EXPECT_EQ(b->recv(rx, 8, 0), 0u);
}

/* One send() of runs that the transport packs into UDP GSO messages (same
 * destination, same size; with udp_gso), broken by a second destination, another size
 * and a malformed frame: every datagram arrives once, whole, in order. With
 * udp_gso the receivers take UDP GRO too: loopback keeps each GSO message
 * whole up to their sockets, and recv() cuts it back into frames (into
 * fewer buffers per call than a message holds, so runs span calls). */
class TransportUdpGso : public ::testing::TestWithParam<bool> {};

TEST_P(TransportUdpGso, BatchesOfManyDatagramsArriveWhole)
{
	auto a = open_udp_at(local_ip(8), {}, GetParam());
	auto b = open_udp_at(local_ip(9), {}, GetParam());
	auto c = open_udp_at(local_ip(10), {}, GetParam());
	ASSERT_TRUE(a && b && c);
	Endpoint src{{0}, local_ip(8), INA_UDP_PORT};
	Endpoint to_b{{0}, local_ip(9), INA_UDP_PORT}, to_c{{0}, local_ip(10), INA_UDP_PORT};
	constexpr uint32_t kN = 200;
	std::vector<Buf> out(kN);
	std::vector<FrameBuf> fbs(kN);
	std::vector<uint32_t> want_b, want_c;
	for (uint32_t i = 0; i < kN; i++) {
		bool for_c = (i / 40) % 2 == 1;        /* runs of 40 per destination */
		uint16_t n = (i % 40 == 17) ? 30 : 62; /* a shorter frame inside a run */
		out[i].fb.len = make_ina_frame(out[i].mem.data(), src, for_c ? to_c : to_b, 7, i, n);
		if (i == 99) {
			out[i].fb.len = 20; /* malformed: consumed, never sent */
		} else {
			(for_c ? want_c : want_b).push_back(i);
		}
		fbs[i] = out[i].fb;
	}
	uint32_t sent = 0;
	for (int tries = 0; tries < 100 && sent < kN; tries++)
		sent += a->send(fbs.data() + sent, kN - sent);
	ASSERT_EQ(sent, kN);
	for (auto [t, want] : {std::pair{b.get(), &want_b}, std::pair{c.get(), &want_c}}) {
		std::vector<Buf> in(7);
		std::vector<uint32_t> seqs;
		auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
		while (seqs.size() < want->size() && std::chrono::steady_clock::now() < until) {
			std::vector<FrameBuf> rx;
			for (auto &x : in)
				rx.push_back(x.fb);
			uint32_t got = t->recv(rx.data(), static_cast<uint32_t>(rx.size()), 20000);
			for (uint32_t k = 0; k < got; k++) {
				uint32_t seq = frame_seq(rx[k].data);
				ASSERT_LT(seq, kN);
				ASSERT_EQ(rx[k].len, out[seq].fb.len);
				EXPECT_EQ(0, memcmp(rx[k].data + INA_HDR_OFFSET, out[seq].mem.data() + INA_HDR_OFFSET,
						    rx[k].len - INA_HDR_OFFSET));
				seqs.push_back(seq);
			}
		}
		EXPECT_EQ(seqs, *want);
	}
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutGso, TransportUdpGso, ::testing::Bool());

TEST(TransportUdp, MulticastGroupReachesEveryMember)
{
	uint32_t group = job_group(0x0102);
	EXPECT_EQ(group, (239u << 24) | (18u << 16) | (1u << 8) | 2u);
	auto ps = open_udp_at(local_ip(3));
	auto w1 = open_udp_at(local_ip(4), {group});
	auto w2 = open_udp_at(local_ip(5), {group});
	ASSERT_TRUE(ps && w1 && w2);

	Endpoint src{{0}, local_ip(3), INA_UDP_PORT};
	Endpoint dst{{0}, group, INA_UDP_PORT};
	group_mac(group, dst.mac);
	Buf f;
	f.fb.len = make_ina_frame(f.mem.data(), src, dst, 0x0102, 9, 4);
	ASSERT_EQ(ps->send(&f.fb, 1), 1u);
	for (auto *w : {w1.get(), w2.get()}) {
		std::vector<uint32_t> seqs;
		ASSERT_EQ(recv_seqs(*w, &seqs, 1, 2000), 1u);
		EXPECT_EQ(seqs[0], 9u);
	}
}

TEST(TransportUdp, MalformedFrameIsConsumedNotSent)
{
	auto a = open_udp_at(local_ip(6));
	auto b = open_udp_at(local_ip(7));
	ASSERT_TRUE(a && b);
	Buf bad;
	bad.fb.len = 20; /* shorter than the headers */
	EXPECT_EQ(a->send(&bad.fb, 1), 1u);
	Buf in;
	EXPECT_EQ(b->recv(&in.fb, 1, 50000), 0u);
}

TEST(TransportUdp, ClearErrors)
{
	std::string err;
	TransportConfig cfg;
	cfg.kind = "udp";
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_NE(err.find("needs a local IPv4 address"), std::string::npos) << err;

	cfg.device = "ina-no-such-if";
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_EQ(err, "no such interface: ina-no-such-if");

	cfg.kind = "carrier-pigeon";
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_NE(err.find("unknown transport kind 'carrier-pigeon'"), std::string::npos) << err;

	cfg.kind = "udp";
	cfg.device.clear();
	cfg.ip = local_ip(8);
	cfg.drop = 1.5;
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_NE(err.find("within [0, 1]"), std::string::npos) << err;

	/* The same address twice: the second bind fails and says so. */
	cfg.drop = 0;
	auto first = open_transport(cfg, &err);
	ASSERT_TRUE(first) << err;
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_NE(err.find("cannot bind"), std::string::npos) << err;

	/* No error line appears on a single line with newlines. */
	EXPECT_EQ(err.find('\n'), std::string::npos);
}

TEST(TransportUdp, AutoFallsBackToUdpWithoutInterface)
{
	TransportConfig cfg;
	cfg.kind = "auto";
	cfg.ip = local_ip(9);
	std::string err;
	auto t = open_transport(cfg, &err);
	ASSERT_TRUE(t) << err;
	EXPECT_STREQ(t->name(), "udp");
}
