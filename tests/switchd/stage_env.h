/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the stage tests share: DPDK started without hugepages or devices
 * (--no-huge --no-pci --no-shconf; its runtime directory removed at the end),
 * the three mbuf
 * pools ina-switchd makes (packets with a PacketDesc, multicast headers,
 * indirect mbufs), and a switch of three ports with one job:
 *
 *   port 0: worker 0 of job 7 (10.0.0.1, 02:00:00:00:00:01, bit 0)
 *   port 1: the PS (10.0.0.100, 02:00:00:00:00:02)
 *   port 2: worker 1 of job 7 (10.0.0.2, 02:00:00:00:00:03, bit 1)
 *
 * with every counter the stages write. Frames come from the vector files'
 * builder (10.0.0.1 -> 10.0.0.100), their source rewritten per sender.
 */
#ifndef INA_TESTS_SWITCHD_STAGE_ENV_H
#define INA_TESTS_SWITCHD_STAGE_ENV_H

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "jobs.h"
#include "stages.h"
#include "test_util.h"

namespace stagetest {

using inatest::Frame;

struct Pools {
	rte_mempool *pkt = nullptr, *hdr = nullptr, *ind = nullptr;
};

inline Pools &pools()
{
	static Pools p;
	return p;
}

/* DPDK for the whole test program (--no-huge --no-shconf: no hugepage or
 * runtime file left behind); exits when it cannot start. Call from main(). */
inline std::string dpdk_prefix(const char *name) { return std::string(name) + "-" + std::to_string(getpid()); }

inline void start_dpdk(const char *name)
{
	const std::string prefix = dpdk_prefix(name);
	const char *argv[] = {name, "--no-huge", "--no-pci", "--no-shconf", "-m", "128", "-l", "0",
			      "--log-level", "*:error", "--file-prefix", prefix.c_str()};
	if (rte_eal_init(sizeof(argv) / sizeof(argv[0]), const_cast<char **>(argv)) < 0) {
		std::fprintf(stderr, "%s: EAL: %s\n", name, rte_strerror(rte_errno));
		std::exit(1);
	}
	Pools &p = pools();
	p.pkt = rte_pktmbuf_pool_create("t_pkt", 1023, 0, switchd::kPacketDescSpace, RTE_MBUF_DEFAULT_BUF_SIZE,
					SOCKET_ID_ANY);
	p.hdr = rte_pktmbuf_pool_create("t_hdr", 255, 0, switchd::kPacketDescSpace, RTE_PKTMBUF_HEADROOM + 128,
					SOCKET_ID_ANY);
	p.ind = rte_pktmbuf_pool_create("t_ind", 255, 0, 0, 0, SOCKET_ID_ANY);
	if (!p.pkt || !p.hdr || !p.ind) {
		std::fprintf(stderr, "%s: mbuf pools: %s\n", name, rte_strerror(rte_errno));
		std::exit(1);
	}
}

/* DPDK stopped, and its runtime directory (the telemetry socket) gone. */
inline void stop_dpdk(const char *name)
{
	rte_eal_cleanup();
	std::error_code ec;
	std::filesystem::remove_all("/var/run/dpdk/" + dpdk_prefix(name), ec);
}

constexpr uint16_t kJob = 7;
constexpr uint32_t kSwitchIp = 0x0A0000FEu; /* 10.0.0.254 */
constexpr uint32_t kPsIp = 0x0A000064u;
constexpr uint32_t kW0Ip = 0x0A000001u, kW1Ip = 0x0A000002u;

inline switchd::Mac mac(uint8_t last) { return switchd::Mac{0x02, 0, 0, 0, 0, last}; }

/* The frame as sent by ip / mac (the builder's frames come from 10.0.0.1). */
inline Frame from(Frame f, uint32_t ip, uint8_t mac_last)
{
	f[11] = mac_last;
	ina_store32(f.data() + sizeof(struct ina_eth_hdr) + 12, ip);
	return f;
}
inline Frame to(Frame f, uint32_t ip)
{
	ina_store32(f.data() + sizeof(struct ina_eth_hdr) + 16, ip);
	return f;
}
inline Frame gradient(uint32_t seq, uint32_t index, unsigned worker, int32_t value = 1)
{
	Frame f = inavec::build_frame(inatest::gradient(kJob, seq, index, 1u << worker, 2, 62, value));
	return worker == 0 ? from(f, kW0Ip, 1) : from(f, kW1Ip, 3);
}
inline Frame parameter(uint32_t seq, uint32_t index)
{
	return to(from(inavec::build_frame(inatest::parameter(kJob, seq, index)), kPsIp, 2),
		  ina::job_group(kJob));
}

/* An mbuf holding f, as received on DPDK port `port`. */
inline rte_mbuf *mbuf(const Frame &f, uint16_t port)
{
	rte_mbuf *m = rte_pktmbuf_alloc(pools().pkt);
	EXPECT_NE(m, nullptr);
	if (!m)
		return nullptr;
	std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(f.size())), f.data(), f.size());
	m->port = port;
	return m;
}

inline const uint8_t *bytes(rte_mbuf *m) { return rte_pktmbuf_mtod(m, const uint8_t *); }

/* The switch: configuration, tables, counters and egress queues, and each
 * stage's context over them. */
struct Switch {
	switchd::SwitchConfig cfg;
	std::unique_ptr<switchd::ForwardingTable> fwd;
	std::unique_ptr<switchd::JobTable> jobs;
	switchd::GoatTable goat;
	std::vector<int16_t> port_index{0, 1, 2};
	std::vector<switchd::Mac> port_mac{mac(0xA0), mac(0xA1), mac(0xA2)};
	std::vector<uint8_t> multiseg{1, 1, 1};
	ina::PipelineConfig pcfg;
	std::unique_ptr<ina::AggregatorTable> table;
	ina::PipelineCounters pipeline;
	switchd::LcoreCounters ctr;
	switchd::PortCounters port_ctr[3];
	std::vector<switchd::JobCounters> job_ctr = std::vector<switchd::JobCounters>(65536);
	std::vector<switchd::EgressQueue> queues = std::vector<switchd::EgressQueue>(3);
	uint64_t rng = 0x9e3779b97f4a7c15ULL;

	/* egress: each port's; capacity, ECN threshold. */
	explicit Switch(uint32_t queue_capacity = 64, uint32_t ecn_threshold = 0)
	{
		cfg.ip = kSwitchIp;
		cfg.aggregators = 64;
		const std::pair<uint32_t, uint8_t> hosts[] = {{kW0Ip, 1}, {kPsIp, 2}, {kW1Ip, 3}};
		for (const auto &[ip, last] : hosts) {
			switchd::PortConfig p;
			p.egress.queue_capacity = queue_capacity;
			p.egress.ecn_threshold = ecn_threshold;
			p.neighbours.push_back(switchd::Neighbour{ip, mac(last)});
			cfg.ports.push_back(p);
		}
		fwd = std::make_unique<switchd::ForwardingTable>(cfg);
		switchd::JobConfig j;
		j.id = kJob;
		j.ps_ip = kPsIp;
		j.ps_mac = mac(2);
		j.levels = 1;
		j.fan_in[0] = 2;
		j.max_aggregators = cfg.aggregators; /* no fair-share cap */
		switchd::JobWorker w0, w1;
		w0.ip = kW0Ip;
		w0.mac = mac(1);
		w0.bit.fill(0xFF);
		w0.bit[0] = 0;
		w1.ip = kW1Ip;
		w1.mac = mac(3);
		w1.bit.fill(0xFF);
		w1.bit[0] = 1;
		j.workers = {w0, w1};
		jobs = switchd::JobTable().with(switchd::build_job(j, *fwd, cfg.aggregators, 1, 0, false));
		pcfg.aggregators = cfg.aggregators;
		table = std::make_unique<ina::AggregatorTable>(pcfg, ina::simd_best());
		for (uint16_t p = 0; p < 3; p++)
			queues[p].init(p, 0, cfg.ports[p].egress, 1, 32, 1600, &port_ctr[p]);
	}
	~Switch()
	{
		for (auto &q : queues)
			q.flush();
	}
	const switchd::Job &job() const { return *jobs->find(kJob); }

	switchd::ClassifyCtx classify() { return {port_index.data(), 3, false, kSwitchIp, &ctr, &pipeline}; }
	switchd::AdmissionCtx admission()
	{
		return {jobs.get(), &goat, fwd.get(), queues.data(), cfg.ports[1].egress.ecn_threshold > 0,
			kSwitchIp, 1, &ctr, port_ctr, job_ctr.data()};
	}
	switchd::PipelineCtx pipeline_ctx(uint64_t now = 1)
	{
		return {table.get(), &pipeline, 0, now, &ctr, job_ctr.data()};
	}
	switchd::ForwardCtx forward() { return {fwd.get(), port_mac.data(), kSwitchIp, &ctr}; }
	switchd::ReplicateCtx replicate()
	{
		return {pools().pkt, pools().hdr, pools().ind, multiseg.data(), 3, &ctr};
	}
	switchd::EgressCtx egress() { return {queues.data(), &rng, job_ctr.data()}; }
	uint64_t job(switchd::JobCtr c) const { return job_ctr[kJob][c]; }
};

} /* namespace stagetest */

#endif
