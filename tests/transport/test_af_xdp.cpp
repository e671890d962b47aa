/* SPDX-License-Identifier: BSD-3-Clause
 * The AF_XDP transport on a veth pair inside a namespace the test makes:
 * INA frames reach the socket, other traffic still reaches the kernel. */
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ina/codec.h"
#include "ina/transport.h"
#include "test_netns.h"
#include "test_util.h"

using namespace ina;
using namespace ina_test;

/* Each test has its own veth pair (inaNa <-> inaNb): AF_XDP on the b end,
 * AF_PACKET on the a end. */
class AfXdp : public ::testing::Test {
protected:
	static void SetUpTestSuite()
	{
		netns_error_ = enter_netns();
		/* A kernel without AF_XDP is a machine without the capability,
		 * not a failure of the transport. */
		int fd = socket(AF_XDP, SOCK_RAW, 0);
		if (fd < 0 && netns_error_.empty())
			netns_error_ = std::string("this kernel has no AF_XDP sockets: ") + strerror(errno);
		if (fd >= 0)
			close(fd);
	}
	void SetUp() override
	{
		if (!netns_error_.empty())
			GTEST_SKIP() << netns_error_;
		veth_ = std::make_unique<VethPair>();
		ASSERT_EQ(veth_->error(), "");
		TransportConfig cfg;
		cfg.kind = "af_xdp";
		cfg.device = veth_->b();
		std::string err;
		xdp_ = open_transport(cfg, &err);
		if (!xdp_ && err.find("not built") != std::string::npos)
			GTEST_SKIP() << err;
		ASSERT_TRUE(xdp_) << err;
		cfg.kind = "af_packet";
		cfg.device = veth_->a();
		pkt_ = open_transport(cfg, &err);
		ASSERT_TRUE(pkt_) << err;
	}
	void TearDown() override
	{
		xdp_.reset();
		pkt_.reset();
		veth_.reset();
	}
	static std::string netns_error_;
	std::unique_ptr<VethPair> veth_;
	std::unique_ptr<Transport> xdp_, pkt_;
};
std::string AfXdp::netns_error_;

/* max_frame(): the interface's MTU + 14 while that fits, then the UMEM
 * chunk less the kernel's 256-byte receive headroom (docs/protocol.md,
 * "Fragment size"). */
TEST_F(AfXdp, MaxFrameIsTheMtuWithinTheChunk)
{
	EXPECT_EQ(xdp_->max_frame(), 1514u);
	EXPECT_EQ(pkt_->max_frame(), 1514u);
	EXPECT_EQ(frame_elements(1514), 357u);
	xdp_.reset();
	pkt_.reset();
	const std::string mtu = std::string("ip link set ") + veth_->a() + " mtu 9000 && ip link set " + veth_->b() +
				" mtu 9000";
	ASSERT_EQ(std::system(mtu.c_str()), 0);
	TransportConfig cfg;
	cfg.kind = "af_xdp";
	cfg.device = veth_->b();
	std::string err;
	xdp_ = open_transport(cfg, &err);
	ASSERT_TRUE(xdp_) << err;
	EXPECT_EQ(xdp_->max_frame(), 3840u) << "the chunk, not the MTU";
	EXPECT_EQ(frame_elements(xdp_->max_frame()), 938u);
	cfg.kind = "af_packet";
	cfg.device = veth_->a();
	pkt_ = open_transport(cfg, &err);
	ASSERT_TRUE(pkt_) << err;
	EXPECT_EQ(pkt_->max_frame(), 9014u);
	EXPECT_EQ(frame_elements(pkt_->max_frame()), 2048u) << "at most INA_MAX_ELEMENTS";
	EXPECT_EQ(frame_elements(INA_PAYLOAD_OFFSET), 0u) << "not even one element";

	/* Measured, not assumed: with a 9000-byte MTU the socket receives a
	 * 938-element frame (3838 bytes) and drops a 939-element one. */
	Endpoint a{{0}, pkt_->ip(), INA_UDP_PORT}, b{{0}, xdp_->ip(), INA_UDP_PORT};
	pkt_->mac(a.mac);
	xdp_->mac(b.mac);
	std::vector<uint8_t> big(8192), in(8192);
	for (uint16_t n : {uint16_t(939), uint16_t(938)}) {
		FrameBuf f{big.data(), make_ina_frame(big.data(), a, b, 2, n, n), static_cast<uint32_t>(big.size())};
		ASSERT_EQ(pkt_->send(&f, 1), 1u);
	}
	std::vector<uint32_t> got;
	for (int i = 0; i < 50 && got.size() < 2; i++) {
		FrameBuf r{in.data(), 0, static_cast<uint32_t>(in.size())};
		if (xdp_->recv(&r, 1, 10000))
			got.push_back(frame_seq(r.data));
	}
	EXPECT_EQ(got, std::vector<uint32_t>{938}) << "the 939-element frame does not fit the chunk";
	EXPECT_GT(xdp_->rx_drops(), 0u) << "and is counted as lost below the caller";
}

TEST_F(AfXdp, FramesBothWays)
{
	EXPECT_STREQ(xdp_->name(), "af_xdp");
	Endpoint a{{0}, pkt_->ip(), INA_UDP_PORT}, b{{0}, xdp_->ip(), INA_UDP_PORT};
	pkt_->mac(a.mac);
	xdp_->mac(b.mac);
	constexpr uint32_t kN = 500;
	std::vector<Buf> out(kN);
	std::vector<FrameBuf> fbs;
	for (uint32_t i = 0; i < kN; i++) {
		out[i].fb.len = make_ina_frame(out[i].mem.data(), a, b, 2, i, 62);
		fbs.push_back(out[i].fb);
	}
	/* af_packet -> af_xdp, in bursts the socket buffer holds. */
	std::vector<uint32_t> seqs;
	for (uint32_t i = 0; i < kN; i += 100) {
		ASSERT_EQ(pkt_->send(fbs.data() + i, 100), 100u);
		recv_seqs(*xdp_, &seqs, 100, 2000);
	}
	ASSERT_EQ(seqs.size(), kN);
	for (uint32_t i = 0; i < kN; i++)
		EXPECT_EQ(seqs[i], i);

	/* af_xdp -> af_packet: byte-exact. */
	for (uint32_t i = 0; i < kN; i++) {
		out[i].fb.len = make_ina_frame(out[i].mem.data(), b, a, 2, 1000 + i, 62);
		fbs[i] = out[i].fb;
	}
	uint32_t sent = 0;
	std::vector<uint32_t> back;
	for (int tries = 0; tries < 1000 && sent < kN; tries++) {
		uint32_t n = xdp_->send(fbs.data() + sent, std::min<uint32_t>(64, kN - sent));
		sent += n;
		recv_seqs(*pkt_, &back, n, n ? 2000 : 1);
	}
	recv_seqs(*pkt_, &back, kN - uint32_t(back.size()), 2000);
	ASSERT_EQ(sent, kN);
	ASSERT_EQ(back.size(), kN);
	EXPECT_EQ(back.front(), 1000u);
	EXPECT_EQ(back.back(), 1000u + kN - 1);
}

TEST_F(AfXdp, OtherTrafficStillReachesTheKernel)
{
	/* A kernel UDP socket on the AF_XDP end's address, port 5556. */
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(fd, 0);
	struct sockaddr_in sa = {};
	sa.sin_family = AF_INET;
	sa.sin_port = htons(5556);
	sa.sin_addr.s_addr = htonl(xdp_->ip());
	ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)), 0);
	struct timeval tv = {1, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/* From an address that is not local here (else: martian). */
	Endpoint a{{0}, (10u << 24) | (77u << 16) | 9u, 5555}, b{{0}, xdp_->ip(), 5556};
	pkt_->mac(a.mac);
	xdp_->mac(b.mac);
	Buf f;
	f.fb.len = make_ina_frame(f.mem.data(), a, b, 2, 5, 4);
	ASSERT_EQ(pkt_->send(&f.fb, 1), 1u);
	char buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	EXPECT_EQ(n, ssize_t(INA_HDR_LEN + 16));
	close(fd);
	/* ... and not the AF_XDP socket. */
	Buf in;
	EXPECT_EQ(xdp_->recv(&in.fb, 1, 50000), 0u);
}

TEST_F(AfXdp, SecondSocketOnTheSameInterfaceSaysWhy)
{
	TransportConfig cfg;
	cfg.kind = "af_xdp";
	cfg.device = veth_->b();
	std::string err;
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_NE(err.find(std::string("already attached to ") + veth_->b()), std::string::npos) << err;
	/* auto falls back to af_packet there. */
	cfg.kind = "auto";
	auto t = open_transport(cfg, &err);
	ASSERT_TRUE(t) << err;
	EXPECT_STREQ(t->name(), "af_packet");
}
