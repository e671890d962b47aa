/* SPDX-License-Identifier: BSD-3-Clause
 * The AF_PACKET transport on a veth pair inside a namespace the test makes. */
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ina/codec.h"
#include "ina/transport.h"
#include "test_netns.h"
#include "test_util.h"

using namespace ina;
using namespace ina_test;

class AfPacket : public ::testing::Test {
protected:
	static void SetUpTestSuite() { netns_error_ = enter_netns(); }
	/* Each test has its own veth pair: end_a() <-> end_b(). */
	void SetUp() override
	{
		if (!netns_error_.empty())
			GTEST_SKIP() << netns_error_;
		veth_ = std::make_unique<VethPair>();
		ASSERT_EQ(veth_->error(), "");
	}
	void TearDown() override { veth_.reset(); }
	const char *end_a() const { return veth_->a(); }
	const char *end_b() const { return veth_->b(); }
	std::unique_ptr<VethPair> veth_;
	static std::unique_ptr<Transport> open_on(const char *dev, const char *kind = "af_packet")
	{
		TransportConfig cfg;
		cfg.kind = kind;
		cfg.device = dev;
		std::string err;
		auto t = open_transport(cfg, &err);
		EXPECT_TRUE(t) << err;
		return t;
	}
	static std::string netns_error_;
};
std::string AfPacket::netns_error_;

TEST_F(AfPacket, FramesCrossTheVethUnchanged)
{
	auto a = open_on(end_a());
	auto b = open_on(end_b());
	ASSERT_TRUE(a && b);
	EXPECT_STREQ(a->name(), "af_packet");
	uint8_t mac[6];
	a->mac(mac);
	EXPECT_EQ(mac[5], 0x01);
	uint32_t ip10_77_0_1 = (10u << 24) | (77u << 16) | 1u;
	EXPECT_EQ(a->ip(), ip10_77_0_1);

	Endpoint src{{0}, a->ip(), INA_UDP_PORT};
	a->mac(src.mac);
	Endpoint dst{{0}, b->ip(), INA_UDP_PORT};
	b->mac(dst.mac);
	constexpr int kN = 200;
	std::vector<Buf> out(kN);
	std::vector<FrameBuf> fbs;
	for (int i = 0; i < kN; i++) {
		out[i].fb.len = make_ina_frame(out[i].mem.data(), src, dst, 3, i, 62);
		fbs.push_back(out[i].fb);
	}
	ASSERT_EQ(a->send(fbs.data(), kN), static_cast<uint32_t>(kN));

	std::vector<Buf> in(kN);
	std::vector<FrameBuf> rx;
	for (auto &b2 : in)
		rx.push_back(b2.fb);
	uint32_t got = 0;
	for (int tries = 0; tries < 100 && got < kN; tries++)
		got += b->recv(rx.data() + got, kN - got, 20000);
	ASSERT_EQ(got, static_cast<uint32_t>(kN));
	for (int i = 0; i < kN; i++) {
		ASSERT_EQ(rx[i].len, out[i].fb.len);
		EXPECT_EQ(0, memcmp(rx[i].data, out[i].mem.data(), rx[i].len)) << i;
	}
	/* The sender does not see its own frames. */
	Buf echo;
	EXPECT_EQ(a->recv(&echo.fb, 1, 20000), 0u);
}

TEST_F(AfPacket, OnlyInaFramesAreDelivered)
{
	auto b = open_on(end_b());
	ASSERT_TRUE(b);
	/* Plain UDP from the kernel stack of end_a() to another port must
	 * not show up; an INA frame to the job's multicast MAC must. */
	auto a = open_on(end_a());
	ASSERT_TRUE(a);
	Endpoint src{{0}, a->ip(), 5555};
	a->mac(src.mac);
	Endpoint dst{{0}, b->ip(), 5556};
	b->mac(dst.mac);
	Buf other;
	other.fb.len = make_ina_frame(other.mem.data(), src, dst, 1, 1, 4);
	Buf mcast;
	Endpoint gdst{{0}, job_group(5), INA_UDP_PORT};
	group_mac(gdst.ip, gdst.mac);
	src.port = INA_UDP_PORT;
	mcast.fb.len = make_ina_frame(mcast.mem.data(), src, gdst, 5, 77, 4);
	FrameBuf two[2] = {other.fb, mcast.fb};
	ASSERT_EQ(a->send(two, 2), 2u);
	std::vector<uint32_t> seqs;
	recv_seqs(*b, &seqs, 2, 300);
	ASSERT_EQ(seqs.size(), 1u);
	EXPECT_EQ(seqs[0], 77u);
}

TEST_F(AfPacket, AutoPicksAFramePath)
{
	auto t = open_on(end_a(), "auto");
	ASSERT_TRUE(t);
	/* af_xdp when it is built and the kernel allows it, else af_packet. */
	std::string name = t->name();
	EXPECT_TRUE(name == "af_xdp" || name == "af_packet") << name;
}

TEST_F(AfPacket, MissingInterfaceIsOneLine)
{
	TransportConfig cfg;
	cfg.kind = "af_packet";
	std::string err;
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_EQ(err, "af_packet transport needs an interface (device)");
	cfg.device = "nope0";
	EXPECT_FALSE(open_transport(cfg, &err));
	EXPECT_EQ(err, "no such interface: nope0");
}
