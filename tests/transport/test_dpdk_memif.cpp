/* SPDX-License-Identifier: BSD-3-Clause
 * The DPDK transport over a memif pair inside one process (server and
 * client on the same socket), with frames longer than memif's default
 * 2048-byte buffers: every frame sent arrives once, intact. The transport
 * gives memif vdevs buffers that hold the largest frame (ina/vdev.h). */
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <new>
#include <filesystem>
#include <thread>

#include "ina/codec.h"
#include "ina/transport.h"
#include "ina/vdev.h"
#include "ina/wire.h"

using namespace ina;

namespace {

std::string g_dir = "/tmp/tp-memif-" + std::to_string(getpid());

struct Cleanup {
	~Cleanup()
	{
		std::error_code ec;
		std::filesystem::remove_all(g_dir, ec);
		for (const char *who : {"rx", "tx"})
			std::filesystem::remove_all(std::string("/var/run/dpdk/tp-memif-") + who + "-" +
							    std::to_string(getpid()),
						    ec);
	}
} g_cleanup;

constexpr uint16_t kElements = 768; /* 3158-byte frames */

uint32_t make_frame(std::vector<uint8_t> *f, const Endpoint &src, const Endpoint &dst, uint32_t seq)
{
	InaHeader h;
	h.job_id = 9;
	h.seq = seq;
	h.elem_count = kElements;
	uint32_t len = write_ina_frame(f->data(), src, dst, h);
	for (uint16_t k = 0; k < kElements; k++)
		ina_store32(f->data() + INA_PAYLOAD_OFFSET + 4u * k, seq * 7919u + k);
	return len;
}

TEST(VdevArgs, MemifGetsBuffersForTheLargestFrame)
{
	EXPECT_EQ(complete_vdev_args("net_memif0,role=client,socket=/x", 1110), "net_memif0,role=client,socket=/x,bsize=2048");
	EXPECT_EQ(complete_vdev_args("net_memif0", 3158), "net_memif0,bsize=4096");
	EXPECT_EQ(complete_vdev_args("net_memif1,socket=/x", INA_FRAME_LEN(INA_MAX_ELEMENTS)), "net_memif1,socket=/x,bsize=16384");
	EXPECT_EQ(complete_vdev_args("net_memif0,bsize=1024", 3158), "net_memif0,bsize=1024"); /* the user's choice */
	EXPECT_EQ(complete_vdev_args("net_af_packet0,iface=x", 3158), "net_af_packet0,iface=x");
	EXPECT_EQ(complete_eal_vdevs("--no-huge --vdev net_memif0,role=server -m 64 --vdev=net_memif1 --vdev net_tap0", 3000),
		  "--no-huge --vdev net_memif0,role=server,bsize=4096 -m 64 --vdev=net_memif1,bsize=4096 --vdev net_tap0");
}

/* What the receiving process saw. */
struct RxCounts {
	uint32_t got = 0, bad = 0, twice = 0;
	char error[200] = {};
};

constexpr uint32_t kN = 4000;

std::string eal_args(const std::string &who, const std::string &vdev)
{
	return "--no-huge -m 256 --no-pci --log-level=lib.eal:error --file-prefix tp-memif-" + who + "-" +
	       std::to_string(getpid()) + " --vdev " + vdev;
}

/* The server's process: receives until kN frames came and 300 ms passed
 * without another (extra frames would arrive then), or 15 s. */
RxCounts receive_all(const std::string &sock, std::atomic<bool> *ready)
{
	RxCounts c;
	TransportConfig cfg;
	cfg.kind = "dpdk";
	cfg.eal_args = eal_args("rx", "net_memif0,role=server,socket=" + sock);
	cfg.device = "net_memif0";
	cfg.ip = (10u << 24) | (78u << 16) | 2u;
	std::string err;
	auto b = open_transport(cfg, &err);
	if (!b) {
		snprintf(c.error, sizeof(c.error), "%s", err.c_str());
		return c;
	}
	ready->store(true);
	std::vector<std::vector<uint8_t>> rxmem(32, std::vector<uint8_t>(INA_FRAME_LEN(INA_MAX_ELEMENTS)));
	std::vector<FrameBuf> rx(32);
	std::vector<uint8_t> seen(kN, 0);
	auto start = std::chrono::steady_clock::now(), last = start;
	for (;;) {
		auto now = std::chrono::steady_clock::now();
		if (now - start > std::chrono::seconds(15) ||
		    (c.got >= kN && now - last > std::chrono::milliseconds(300)))
			break;
		for (uint32_t i = 0; i < rx.size(); i++)
			rx[i] = FrameBuf{rxmem[i].data(), 0, static_cast<uint32_t>(rxmem[i].size())};
		uint32_t n = b->recv(rx.data(), static_cast<uint32_t>(rx.size()), 1000);
		if (n)
			last = std::chrono::steady_clock::now();
		for (uint32_t i = 0; i < n; i++) {
			InaHeader h;
			if (rx[i].len == INA_FRAME_LEN(kElements))
				decode(rx[i].data + INA_HDR_OFFSET, &h);
			if (rx[i].len != INA_FRAME_LEN(kElements) || h.job_id != 9 || h.seq >= kN) {
				c.bad++;
				continue;
			}
			for (uint16_t k = 0; k < kElements; k++)
				if (ina_load32(rx[i].data + INA_PAYLOAD_OFFSET + 4u * k) != h.seq * 7919u + k) {
					c.bad++;
					break;
				}
			c.twice += seen[h.seq]++ > 0;
			c.got++;
			/* Echoed, as a PS answers: frames cross in both directions.
			 * The ring is full while the sender is off its CPU: wait
			 * for it (a bounded time, not a spin count, which a
			 * loaded machine outlasts). */
			auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
			while (b->send(&rx[i], 1) == 0 && std::chrono::steady_clock::now() < give_up)
				;
		}
	}
	return c;
}

/* Receives what is there; counts the frames. */
uint32_t drain_echoes(Transport &t, std::vector<std::vector<uint8_t>> *mem, std::vector<FrameBuf> *rx)
{
	for (uint32_t i = 0; i < rx->size(); i++)
		(*rx)[i] = FrameBuf{(*mem)[i].data(), 0, static_cast<uint32_t>((*mem)[i].size())};
	return t.recv(rx->data(), static_cast<uint32_t>(rx->size()), 0);
}

} /* namespace */

/* Two processes, as a worker and its PS: DPDK 22.11's memif delivered
 * frames the client never sent (and crashed the server) when 3 KiB frames
 * spanned two 2 KiB descriptors; the server saw several times as many. */
TEST(TransportDpdkMemif, JumboFramesBetweenProcessesArriveOnceAndIntact)
{
	std::filesystem::create_directories(g_dir);
	const std::string sock = g_dir + "/m.sock";
	auto *shared = static_cast<RxCounts *>(
		mmap(nullptr, sizeof(RxCounts) + 64, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	ASSERT_NE(shared, MAP_FAILED);
	auto *ready = new (reinterpret_cast<char *>(shared) + sizeof(RxCounts)) std::atomic<bool>(false);
	pid_t child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		*shared = receive_all(sock, ready);
		_exit(0);
	}
	while (!ready->load()) {
		int st;
		if (waitpid(child, &st, WNOHANG) == child)
			break;
		usleep(10000);
	}
	TransportConfig cfg;
	cfg.kind = "dpdk";
	cfg.eal_args = eal_args("tx", "net_memif0,role=client,socket=" + sock);
	cfg.device = "net_memif0";
	cfg.ip = (10u << 24) | (78u << 16) | 1u;
	std::string err;
	auto a = ready->load() ? open_transport(cfg, &err) : nullptr;
	uint32_t sent = 0, echoed = 0;
	if (a) {
		Endpoint ea{{0}, a->ip(), INA_UDP_PORT}, eb{{0}, (10u << 24) | (78u << 16) | 2u, INA_UDP_PORT};
		a->mac(ea.mac);
		constexpr uint32_t kBurst = 32;
		std::vector<std::vector<uint8_t>> txmem(kBurst, std::vector<uint8_t>(INA_FRAME_LEN(kElements)));
		std::vector<FrameBuf> tx(kBurst);
		std::vector<std::vector<uint8_t>> rxmem(32, std::vector<uint8_t>(INA_FRAME_LEN(INA_MAX_ELEMENTS)));
		std::vector<FrameBuf> rx(32);
		auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
		/* Bursts, as a worker sends; the link comes up asynchronously
		 * and a full ring takes fewer: retry until every frame went. */
		while (sent < kN && std::chrono::steady_clock::now() < until) {
			uint32_t burst = std::min<uint32_t>(kBurst, kN - sent);
			for (uint32_t i = 0; i < burst; i++)
				tx[i] = FrameBuf{txmem[i].data(), make_frame(&txmem[i], ea, eb, sent + i),
						 static_cast<uint32_t>(txmem[i].size())};
			sent += a->send(tx.data(), burst);
			echoed += drain_echoes(*a, &rxmem, &rx);
		}
		while (echoed < kN && std::chrono::steady_clock::now() < until) {
			uint32_t n = drain_echoes(*a, &rxmem, &rx);
			echoed += n;
			if (!n)
				usleep(100);
		}
	}
	int status = 0;
	waitpid(child, &status, 0);
	RxCounts c = *shared;
	munmap(shared, sizeof(RxCounts) + 64);
	ASSERT_TRUE(a) << (ready->load() ? err : std::string("receiver: ") + c.error);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "receiver died, status " << status;
	EXPECT_EQ(c.error[0], 0) << c.error;
	EXPECT_EQ(sent, kN);
	EXPECT_EQ(c.got, kN); /* none lost, none extra */
	EXPECT_EQ(c.twice, 0u);
	EXPECT_EQ(c.bad, 0u);
	EXPECT_EQ(echoed, kN);
}
