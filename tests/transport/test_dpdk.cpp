/* SPDX-License-Identifier: BSD-3-Clause
 * The DPDK transport over net_af_packet on a veth pair inside a namespace
 * the test makes (no hugepages needed: --no-huge --no-shconf). */
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "ina/codec.h"
#include "ina/transport.h"
#include "test_netns.h"
#include "test_util.h"

using namespace ina;
using namespace ina_test;

/* The EAL's runtime directory of this process, removed at exit. */
struct RuntimeDirCleanup {
	~RuntimeDirCleanup()
	{
		std::error_code ec;
		std::filesystem::remove_all("/var/run/dpdk/tp-dpdk-" + std::to_string(getpid()), ec);
	}
} g_cleanup;

TEST(TransportDpdk, FramesBothWaysAndClearErrors)
{
	std::string why = enter_netns();
	if (!why.empty())
		GTEST_SKIP() << why;
	VethPair veth;
	ASSERT_EQ(veth.error(), "");
	TransportConfig cfg;
	cfg.kind = "dpdk";
	cfg.eal_args = "--no-huge -m 256 --no-shconf --no-pci --log-level=lib.eal:error --file-prefix tp-dpdk-" +
		       std::to_string(getpid()) + " --vdev net_af_packet0,iface=" + veth.a();
	cfg.device = "net_no_such_port";
	cfg.ip = (10u << 24) | (77u << 16) | 1u;
	std::string err;
	EXPECT_FALSE(open_transport(cfg, &err));
	if (err.find("not built") != std::string::npos)
		GTEST_SKIP() << err;
	EXPECT_EQ(err, "dpdk transport: no DPDK port named net_no_such_port (add it with --vdev or a "
		       "PCI allow-list in eal_args)");

	cfg.device = "net_af_packet0";
	auto d = open_transport(cfg, &err);
	ASSERT_TRUE(d) << err;
	EXPECT_STREQ(d->name(), "dpdk");
	EXPECT_EQ(d->ip(), cfg.ip);
	uint8_t mac[6];
	d->mac(mac);
	EXPECT_EQ(mac[5], 0x01); /* the first end's MAC */

	TransportConfig kc;
	kc.kind = "af_packet";
	kc.device = veth.b();
	auto k = open_transport(kc, &err);
	ASSERT_TRUE(k) << err;

	Endpoint a{{0}, d->ip(), INA_UDP_PORT}, b{{0}, k->ip(), INA_UDP_PORT};
	d->mac(a.mac);
	k->mac(b.mac);
	constexpr uint32_t kN = 300;
	std::vector<Buf> out(kN);
	std::vector<FrameBuf> fbs;
	for (uint32_t i = 0; i < kN; i++) {
		out[i].fb.len = make_ina_frame(out[i].mem.data(), a, b, 4, i, 62);
		fbs.push_back(out[i].fb);
	}
	std::vector<uint32_t> got;
	for (uint32_t i = 0; i < kN; i += 50) {
		uint32_t sent = 0;
		for (int t = 0; t < 100 && sent < 50; t++)
			sent += d->send(fbs.data() + i + sent, 50 - sent);
		ASSERT_EQ(sent, 50u);
		recv_seqs(*k, &got, 50, 2000);
	}
	ASSERT_EQ(got.size(), kN);
	for (uint32_t i = 0; i < kN; i++)
		EXPECT_EQ(got[i], i);

	/* kernel -> DPDK, including a multicast parameter packet. */
	Endpoint g{{0}, job_group(4), INA_UDP_PORT};
	group_mac(g.ip, g.mac);
	Buf m;
	m.fb.len = make_ina_frame(m.mem.data(), b, g, 4, 4242, 62);
	ASSERT_EQ(k->send(&m.fb, 1), 1u);
	std::vector<uint32_t> back;
	recv_seqs(*d, &back, 1, 2000);
	ASSERT_EQ(back.size(), 1u);
	EXPECT_EQ(back[0], 4242u);
}
