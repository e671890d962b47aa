/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Each stage of ina-switchd's chain (switchd/src/stages.h) alone: a burst of
 * real mbufs in, the bursts it hands on and the counters it moved out.
 * DPDK runs without hugepages or devices (stage_env.h); the stages are
 * switchd's own sources, linked into this program.
 */
#include <gtest/gtest.h>

#include <rte_arp.h>
#include <rte_ether.h>

#include "stage_env.h"

using namespace switchd;
using namespace stagetest;

namespace {

/* The mbufs of a burst, freed at the end of a test. */
template <typename B>
void free_all(const B &b)
{
	for (uint32_t i = 0; i < b.n; i++)
		rte_pktmbuf_free(b.v[i]);
}

Frame plain_ipv4(uint32_t dst)
{
	Frame f = inavec::build_frame(inatest::gradient(kJob, 1, 1, 1, 2));
	ina_store16(f.data() + sizeof(struct ina_eth_hdr) + sizeof(struct ina_ipv4_hdr) + 2, 9); /* UDP port 9 */
	return to(f, dst);
}

Frame arp_request(uint32_t target, uint8_t sender_mac)
{
	Frame f(sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr), 0);
	auto *eth = reinterpret_cast<struct rte_ether_hdr *>(f.data());
	std::memset(eth->dst_addr.addr_bytes, 0xFF, 6);
	std::memcpy(eth->src_addr.addr_bytes, mac(sender_mac).data(), 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	auto *arp = reinterpret_cast<struct rte_arp_hdr *>(eth + 1);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = 6;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	std::memcpy(arp->arp_data.arp_sha.addr_bytes, mac(sender_mac).data(), 6);
	arp->arp_data.arp_sip = rte_cpu_to_be_32(kW0Ip);
	arp->arp_data.arp_tip = rte_cpu_to_be_32(target);
	return f;
}

} /* namespace */

TEST(Stages, ClassifySortsByClassAndDropsWhatItCannotRead)
{
	Switch sw;
	Frame bad_version = gradient(2, 2, 0);
	bad_version[INA_HDR_OFFSET] = INA_VERSION + 1;
	Frame l2(64, 0);
	std::memcpy(l2.data(), mac(2).data(), 6);
	l2[12] = 0x88; /* an ether type that is neither ARP nor IPv4 */
	l2[13] = 0xB5;
	rte_mbuf *in[] = {
		mbuf(gradient(1, 1, 0), 0),         /* INA */
		mbuf(arp_request(kSwitchIp, 1), 0), /* ARP */
		mbuf(l2, 1),                        /* L2 */
		mbuf(plain_ipv4(kPsIp), 0),         /* plain IPv4 */
		mbuf(plain_ipv4(kSwitchIp), 0),     /* to the switch itself: dropped */
		mbuf(Frame(10, 0), 0),              /* runt: dropped */
		mbuf(bad_version, 0),               /* malformed_version: dropped */
		mbuf(gradient(3, 3, 0), 5),         /* a port not in the config: dropped */
	};
	Burst ina, roce;
	ForwardBurst fwd;
	classify_burst(sw.classify(), in, 8, &ina, &roce, &fwd);
	ASSERT_EQ(ina.n, 1u);
	EXPECT_EQ(ina.v[0], in[0]);
	const PacketDesc &d = *desc(in[0]);
	EXPECT_EQ(d.cls, PacketClass::kIna);
	EXPECT_EQ(d.in_port, 0);
	EXPECT_EQ(d.src_ip, kW0Ip);
	EXPECT_EQ(d.dst_ip, kPsIp);
	EXPECT_EQ(d.ina.job, kJob);
	EXPECT_EQ(d.ina.seq, 1u);
	EXPECT_EQ(roce.n, 0u);
	ASSERT_EQ(fwd.n, 3u);
	EXPECT_EQ(fwd.v[0], in[1]);
	EXPECT_EQ(desc(in[1])->cls, PacketClass::kArp);
	EXPECT_EQ(fwd.v[1], in[2]);
	EXPECT_EQ(desc(in[2])->cls, PacketClass::kL2);
	EXPECT_EQ(desc(in[2])->in_port, 1);
	EXPECT_EQ(fwd.v[2], in[3]);
	EXPECT_EQ(desc(in[3])->cls, PacketClass::kIpv4);
	EXPECT_EQ(sw.ctr[LcoreCtr::packets], 8u);
	EXPECT_EQ(sw.ctr[LcoreCtr::to_switch_drops], 1u);
	EXPECT_EQ(sw.ctr[LcoreCtr::runt_drops], 1u);
	EXPECT_EQ(sw.ctr[LcoreCtr::unknown_port_drops], 1u);
	EXPECT_EQ(sw.pipeline[ina::Counter::malformed_version], 1u);
	free_all(ina);
	free_all(fwd);
}

TEST(Stages, HandoffKeepsOwnPacketsInOrder)
{
	Switch sw;
	Burst b;
	for (uint32_t index : {4u, 5u, 6u, 7u})
		b.push(mbuf(gradient(index, index, 0), 0));
	b.push(mbuf(parameter(8, 8), 1)); /* a parameter packet goes to its aggregator's owner too */
	Burst none, ina;
	ForwardBurst fwd;
	classify_burst(sw.classify(), b.v, b.n, &ina, &none, &fwd);
	ASSERT_EQ(ina.n, 5u);
	std::vector<Burst> out(2);
	EXPECT_EQ(handoff_burst(HandoffCtx{0, 2, 0}, &ina, out.data()), 2u);
	ASSERT_EQ(ina.n, 3u);
	EXPECT_EQ(desc(ina.v[0])->ina.agg_index, 4u);
	EXPECT_EQ(desc(ina.v[1])->ina.agg_index, 6u);
	EXPECT_EQ(desc(ina.v[2])->ina.agg_index, 8u);
	EXPECT_EQ(out[0].n, 0u);
	ASSERT_EQ(out[1].n, 2u);
	EXPECT_EQ(desc(out[1].v[0])->ina.agg_index, 5u);
	EXPECT_EQ(desc(out[1].v[1])->ina.agg_index, 7u);
	free_all(ina);
	free_all(out[1]);
}

TEST(Stages, AdmissionAdmitsMembersAndCountsEveryRefusal)
{
	Switch sw;
	Frame control = to(inavec::build_frame(inatest::gradient(kJob, 1, 1, 1, 2)), kSwitchIp);
	control[INA_HDR_OFFSET + offsetof(struct ina_hdr, type)] = INA_TYPE_CONTROL;
	Frame other_job = inavec::build_frame(inatest::gradient(99, 1, 1, 1, 2));
	rte_mbuf *in[] = {
		mbuf(gradient(1, 1, 0), 0),                             /* admitted */
		mbuf(gradient(1, 1, 0), 2),                             /* worker 0 on worker 1's port */
		mbuf(from(gradient(1, 1, 0), kW0Ip, 9), 0),             /* worker 0 with another MAC */
		mbuf(from(gradient(1, 1, 0), 0x0A000009u, 1), 0),       /* not a member */
		mbuf(from(parameter(1, 1), kW0Ip, 1), 0),               /* a result not from the PS */
		mbuf(other_job, 0),                                     /* no such job: forwarded */
		mbuf(control, 1),                                       /* control for the switch */
	};
	Burst ina, roce, control_out;
	ForwardBurst fwd, fwd2;
	classify_burst(sw.classify(), in, 7, &ina, &roce, &fwd);
	ASSERT_EQ(ina.n, 7u);
	PipelineBurst pipe;
	admission_burst(sw.admission(), ina, &pipe, &fwd2, &control_out);
	ASSERT_EQ(pipe.n, 1u);
	EXPECT_EQ(pipe.v[0].m, in[0]);
	EXPECT_EQ(pipe.v[0].job, &sw.job());
	EXPECT_EQ(pipe.v[0].range, nullptr);
	ASSERT_EQ(fwd2.n, 1u);
	EXPECT_EQ(fwd2.v[0], in[5]);
	ASSERT_EQ(control_out.n, 1u);
	EXPECT_EQ(control_out.v[0], in[6]);
	EXPECT_EQ(sw.ctr[LcoreCtr::spoof_port_drops], 1u);
	EXPECT_EQ(sw.ctr[LcoreCtr::spoof_mac_drops], 1u);
	EXPECT_EQ(sw.ctr[LcoreCtr::admission_drops], 1u);
	EXPECT_EQ(sw.ctr[LcoreCtr::forged_result_drops], 1u);
	EXPECT_EQ(sw.ctr[LcoreCtr::unregistered_job], 1u);
	EXPECT_EQ(sw.job(JobCtr::spoof_drops), 2u);
	EXPECT_EQ(sw.job(JobCtr::admission_drops), 1u);
	EXPECT_EQ(sw.job(JobCtr::forged_result_drops), 1u);
	EXPECT_EQ(sw.job_ctr[99][JobCtr::unregistered], 1u);
	rte_pktmbuf_free(pipe.v[0].m);
	free_all(fwd2);
	free_all(control_out);
}

TEST(Stages, AdmissionPremarksTowardACongestedQueue)
{
	Switch sw(64, 1); /* ECN at depth 1 */
	rte_mbuf *f = mbuf(plain_ipv4(kPsIp), 0);
	Burst i0, r0;
	ForwardBurst f0;
	classify_burst(sw.classify(), &f, 1, &i0, &r0, &f0);
	TxBurst filler;
	filler.push(TxItem{f, 1});
	egress_burst(sw.egress(), filler); /* the PS's queue is at its threshold */
	ASSERT_EQ(sw.queues[1].depth(), 1u);
	rte_mbuf *m = mbuf(gradient(1, 1, 0), 0);
	Burst ina, roce;
	ForwardBurst fwd;
	classify_burst(sw.classify(), &m, 1, &ina, &roce, &fwd);
	PipelineBurst pipe;
	Burst control;
	admission_burst(sw.admission(), ina, &pipe, &fwd, &control);
	ASSERT_EQ(pipe.n, 1u);
	const uint8_t *frame = bytes(m);
	EXPECT_TRUE(ina_load16(frame + INA_HDR_OFFSET + offsetof(struct ina_hdr, flags)) & INA_F_ECN);
	EXPECT_TRUE(desc(m)->ina.flags & INA_F_ECN) << "the view follows the frame";
	EXPECT_EQ(frame[sizeof(struct ina_eth_hdr) + 1] & 3, 3) << "IP CE";
	EXPECT_EQ(sw.ctr[LcoreCtr::ecn_premarks], 1u);
	EXPECT_EQ(sw.port_ctr[1][PortCtr::ecn_marks], 1u);
	EXPECT_EQ(sw.job(JobCtr::ecn_marks), 1u);
	rte_pktmbuf_free(m);
}

TEST(Stages, PipelineAbsorbsCompletesAndMulticasts)
{
	Switch sw;
	rte_mbuf *in[] = {mbuf(gradient(1, 3, 0, 5), 0), mbuf(gradient(1, 3, 1, 7), 2), mbuf(parameter(1, 3), 1)};
	Burst ina, roce, control;
	ForwardBurst fwd;
	classify_burst(sw.classify(), in, 3, &ina, &roce, &fwd);
	PipelineBurst pipe;
	admission_burst(sw.admission(), ina, &pipe, &fwd, &control);
	ASSERT_EQ(pipe.n, 3u);
	McastBurst mcast;
	pipeline_burst(sw.pipeline_ctx(), pipe, &fwd, &mcast, &control);
	/* The first gradient went into the aggregator (freed), the second
	 * completed it (on to the PS), the parameter packet freed it and goes
	 * to the workers. */
	EXPECT_EQ(sw.pipeline[ina::Counter::ack_freed], 1u);
	ASSERT_EQ(fwd.n, 1u);
	EXPECT_EQ(fwd.v[0], in[1]);
	EXPECT_EQ(static_cast<int32_t>(ina_load32(bytes(in[1]) + INA_PAYLOAD_OFFSET)), 12);
	ASSERT_EQ(mcast.n, 1u);
	EXPECT_EQ(mcast.v[0].m, in[2]);
	EXPECT_EQ(mcast.v[0].job, &sw.job());
	EXPECT_EQ(control.n, 0u);
	EXPECT_EQ(sw.ctr[LcoreCtr::absorbed], 1u);
	EXPECT_EQ(sw.job(JobCtr::aggregated), 2u);
	EXPECT_EQ(sw.job(JobCtr::completed), 1u);
	EXPECT_EQ(sw.job(JobCtr::sent_to_ps), 1u);
	EXPECT_EQ(sw.job(JobCtr::multicast), 1u);
	EXPECT_EQ(sw.pipeline[ina::Counter::completed], 1u);
	EXPECT_EQ(sw.table->occupied(), 0u);
	free_all(fwd);
	rte_pktmbuf_free(mcast.v[0].m);
}

TEST(Stages, ForwardRoutesFloodsAndAnswersArp)
{
	Switch sw;
	Frame unknown = plain_ipv4(0x0A090909u); /* no neighbour, unicast MAC unknown */
	unknown[5] = 0x77;
	rte_mbuf *in[] = {mbuf(plain_ipv4(kPsIp), 0), mbuf(unknown, 0), mbuf(plain_ipv4(0xFFFFFFFFu), 0),
			  mbuf(arp_request(kSwitchIp, 3), 2)};
	Burst ina, roce;
	ForwardBurst fwd, flood;
	classify_burst(sw.classify(), in, 4, &ina, &roce, &fwd);
	ASSERT_EQ(fwd.n, 4u);
	TxBurst tx;
	forward_burst(sw.forward(), fwd, &tx, &flood);
	ASSERT_EQ(tx.n, 2u);
	EXPECT_EQ(tx.v[0].m, in[0]);
	EXPECT_EQ(tx.v[0].port, 1);
	EXPECT_EQ(std::memcmp(bytes(in[0]), mac(2).data(), 6), 0) << "destination MAC rewritten";
	EXPECT_EQ(tx.v[1].m, in[3]);
	EXPECT_EQ(tx.v[1].port, 2) << "an ARP reply leaves by its request's port";
	const auto *arp = reinterpret_cast<const struct rte_arp_hdr *>(bytes(in[3]) + sizeof(struct rte_ether_hdr));
	EXPECT_EQ(arp->arp_opcode, rte_cpu_to_be_16(RTE_ARP_OP_REPLY));
	EXPECT_EQ(std::memcmp(arp->arp_data.arp_sha.addr_bytes, sw.port_mac[2].data(), 6), 0);
	ASSERT_EQ(flood.n, 1u);
	EXPECT_EQ(flood.v[0], in[2]);
	EXPECT_EQ(sw.ctr[LcoreCtr::no_route], 1u);
	EXPECT_EQ(sw.ctr[LcoreCtr::arp_replies], 1u);
	for (uint32_t i = 0; i < tx.n; i++)
		rte_pktmbuf_free(tx.v[i].m);
	free_all(flood);
}

TEST(Stages, ReplicateCopiesResultsAndFloods)
{
	for (uint8_t chains : {1, 0}) {
		Switch sw;
		sw.multiseg.assign(3, chains);
		rte_mbuf *result = mbuf(parameter(1, 3), 1);
		rte_mbuf *bcast = mbuf(plain_ipv4(0xFFFFFFFFu), 0);
		rte_mbuf *in[] = {result, bcast};
		Burst ina, roce;
		ForwardBurst fwd;
		classify_burst(sw.classify(), in, 2, &ina, &roce, &fwd);
		McastBurst mcast;
		mcast.push(McastItem{result, &sw.job()});
		TxBurst tx;
		uint32_t mi = 0, fi = 0;
		replicate_burst(sw.replicate(), mcast, &mi, fwd, &fi, &tx);
		EXPECT_EQ(mi, 1u);
		EXPECT_EQ(fi, 1u);
		/* One copy per worker's port (0 and 2), then the flood out of
		 * ports 1 and 2 (not back out of 0), the same mbuf twice. */
		ASSERT_EQ(tx.n, 4u);
		for (int k = 0; k < 2; k++) {
			rte_mbuf *c = tx.v[k].m;
			EXPECT_NE(c, result);
			EXPECT_EQ(c->pkt_len, result->pkt_len);
			EXPECT_EQ(c->nb_segs, chains ? 2 : 1) << "chained header + indirect payload, or flat";
			EXPECT_EQ(desc(c)->cls, PacketClass::kIna) << "the copy carries the original's PacketDesc";
			EXPECT_EQ(desc(c)->ina.seq, 1u);
		}
		EXPECT_EQ(tx.v[0].port, 0);
		EXPECT_EQ(std::memcmp(bytes(tx.v[0].m), mac(1).data(), 6), 0) << "to worker 0's MAC";
		EXPECT_EQ(ina_load32(bytes(tx.v[0].m) + sizeof(struct ina_eth_hdr) + 16), kW0Ip);
		EXPECT_EQ(tx.v[1].port, 2);
		EXPECT_EQ(std::memcmp(bytes(tx.v[1].m), mac(3).data(), 6), 0) << "to worker 1's MAC";
		EXPECT_EQ(tx.v[2].m, bcast);
		EXPECT_EQ(tx.v[2].port, 1);
		EXPECT_EQ(tx.v[3].m, bcast);
		EXPECT_EQ(tx.v[3].port, 2);
		EXPECT_EQ(rte_mbuf_refcnt_read(bcast), 2);
		EXPECT_EQ(sw.ctr[LcoreCtr::multicast_copies], 2u);
		EXPECT_EQ(sw.ctr[LcoreCtr::multicast_flat_copies], chains ? 0u : 2u);
		EXPECT_EQ(sw.ctr[LcoreCtr::flooded], 1u);
		for (uint32_t i = 0; i < tx.n; i++)
			rte_pktmbuf_free(tx.v[i].m);
	}
	EXPECT_EQ(rte_mempool_in_use_count(pools().hdr), 0u);
	EXPECT_EQ(rte_mempool_in_use_count(pools().ind), 0u);
}

TEST(Stages, EgressQueuesTailDropsAndCountsTheJob)
{
	Switch sw(2); /* two packets per queue */
	rte_mbuf *in[] = {mbuf(gradient(1, 1, 0), 0), mbuf(gradient(2, 2, 0), 0), mbuf(gradient(3, 3, 0), 0)};
	Burst ina, roce;
	ForwardBurst fwd;
	classify_burst(sw.classify(), in, 3, &ina, &roce, &fwd);
	TxBurst tx;
	for (rte_mbuf *m : in)
		tx.push(TxItem{m, 1});
	egress_burst(sw.egress(), tx);
	EXPECT_EQ(sw.queues[1].depth(), 2u);
	EXPECT_EQ(sw.port_ctr[1][PortCtr::egress_drops], 1u);
	EXPECT_EQ(sw.job(JobCtr::egress_drops), 1u);
	EXPECT_EQ(sw.queues[0].depth() + sw.queues[2].depth(), 0u);
}

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	start_dpdk("test_stages");
	const int rc = RUN_ALL_TESTS();
	stop_dpdk("test_stages");
	return rc;
}
