/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One parse per packet in ina-switchd: classify decodes an INA header once
 * (ina::decode_view(), into the mbuf's PacketDesc) and every later stage
 * reads that view: admission, the ECN pre-mark, ina::process(), forward,
 * the multicast copies and the egress queues' ECN mark and drop accounting.
 * This program is built with the codec's and the pipeline's sources
 * compiled with INA_COUNT_PARSES, so that decode_view() counts its calls,
 * and drives switchd's own stage functions (switchd/src/stages.h, linked
 * in) over real mbufs, every egress queue congested so that both ECN marks
 * run: a second decode anywhere on the path fails it. A second test reads
 * switchd's sources: only classify calls a decoder.
 */
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "stage_env.h"

#ifndef INA_COUNT_PARSES
#error "built with INA_COUNT_PARSES only"
#endif

using namespace switchd;
using namespace stagetest;

namespace {

struct Outcome {
	bool classified = false; /* classify kept it (else: counted malformed) */
	uint32_t out = 0;        /* packets (copies included) that reached an egress queue */
	uint64_t decodes = 0;
};

uint16_t frame_flags(rte_mbuf *m, const ina::InaView &v)
{
	return ina_load16(rte_pktmbuf_mtod(m, const uint8_t *) + v.ina_offset + offsetof(struct ina_hdr, flags));
}

/* One frame through switchd's chain: classify, admission, pipeline,
 * control, forward, replicate, egress. */
Outcome through_the_chain(Switch &sw, const Frame &f, uint16_t port)
{
	Outcome o;
	const uint64_t before = ina::parse_count();
	rte_mbuf *m = mbuf(f, port);
	Burst ina, roce, control;
	ForwardBurst fwd, flood;
	PipelineBurst pipe;
	McastBurst mcast;
	TxBurst tx;
	classify_burst(sw.classify(), &m, 1, &ina, &roce, &fwd);
	o.classified = ina.n == 1;
	admission_burst(sw.admission(), ina, &pipe, &fwd, &control);
	pipeline_burst(sw.pipeline_ctx(), pipe, &fwd, &mcast, &control);
	for (uint32_t i = 0; i < fwd.n; i++)
		EXPECT_EQ(desc(fwd.v[i])->ina.flags, frame_flags(fwd.v[i], desc(fwd.v[i])->ina))
			<< "the view's flags follow the frame";
	forward_burst(sw.forward(), fwd, &tx, &flood);
	uint32_t mi = 0, fi = 0;
	replicate_burst(sw.replicate(), mcast, &mi, flood, &fi, &tx);
	const uint32_t queued = sw.queues[0].depth() + sw.queues[1].depth() + sw.queues[2].depth();
	egress_burst(sw.egress(), tx);
	o.out = sw.queues[0].depth() + sw.queues[1].depth() + sw.queues[2].depth() - queued;
	for (uint32_t i = 0; i < control.n; i++)
		rte_pktmbuf_free(control.v[i]);
	o.decodes = ina::parse_count() - before;
	return o;
}

/* A plain IPv4 frame in every egress queue: each is at its ECN threshold. */
void congest(Switch &sw)
{
	for (uint16_t p = 0; p < 3; p++) {
		Frame f = inavec::build_frame(inatest::gradient(kJob, 1, 1, 1, 2));
		ina_store16(f.data() + sizeof(struct ina_eth_hdr) + sizeof(struct ina_ipv4_hdr) + 2, 9);
		rte_mbuf *m = mbuf(f, 0);
		Burst ina, roce;
		ForwardBurst fwd;
		classify_burst(sw.classify(), &m, 1, &ina, &roce, &fwd);
		TxBurst tx;
		tx.push(TxItem{m, p});
		egress_burst(sw.egress(), tx);
	}
}

} /* namespace */

TEST(OneParse, EveryKindOfPacketIsDecodedOnceOnTheRealPath)
{
	Switch sw(64, 1); /* ECN at depth 1 */
	congest(sw);
	struct Case {
		const char *what;
		Frame frame;
		uint16_t port;
		ina::Counter reason;
		uint32_t out; /* what reaches the egress queues */
	};
	Frame bad_version = gradient(9, 4, 0);
	bad_version[INA_HDR_OFFSET] = INA_VERSION + 1;
	Frame bad_length = gradient(10, 5, 0);
	ina_store16(bad_length.data() + INA_HDR_OFFSET - 4, 99); /* UDP length */
	Case cases[] = {
		{"first gradient", gradient(1, 3, 0), 0, ina::Counter::aggregated, 0},
		{"duplicate", gradient(1, 3, 0), 0, ina::Counter::duplicate, 0},
		{"collision", gradient(2, 3, 0), 0, ina::Counter::collision, 1},
		{"completing gradient", gradient(1, 3, 1), 2, ina::Counter::completed, 1},
		{"parameter packet (two copies)", parameter(1, 3), 1, ina::Counter::ack_freed, 2},
		{"malformed length", bad_length, 0, ina::Counter::malformed_length, 0},
	};
	for (Case &c : cases) {
		const uint64_t reason_before = sw.pipeline[c.reason];
		const Outcome o = through_the_chain(sw, c.frame, c.port);
		EXPECT_TRUE(o.classified) << c.what;
		EXPECT_EQ(sw.pipeline[c.reason], reason_before + 1) << c.what;
		EXPECT_EQ(o.out, c.out) << c.what;
		EXPECT_EQ(o.decodes, 1u) << c.what;
	}
	EXPECT_GT(sw.ctr[LcoreCtr::ecn_premarks], 0u) << "the pre-mark ran";
	EXPECT_GT(sw.port_ctr[1][PortCtr::ecn_marks], sw.ctr[LcoreCtr::ecn_premarks]) << "the egress mark ran";
	EXPECT_EQ(sw.ctr[LcoreCtr::multicast_copies], 2u);
	const Outcome o = through_the_chain(sw, bad_version, 0);
	EXPECT_FALSE(o.classified) << "classify drops another version as malformed";
	EXPECT_EQ(sw.pipeline[ina::Counter::malformed_version], 1u);
	EXPECT_EQ(o.decodes, 1u);
}

/* The byte-buffer entry point (vectors, fuzzing, benchmarks) decodes once
 * too, and then runs the same code. */
TEST(OneParse, ByteBufferEntryDecodesOnce)
{
	inatest::Switch sw;
	Frame f = inavec::build_frame(inatest::gradient(7, 1, 3, 1u << 0, 1));
	const uint64_t before = ina::parse_count();
	EXPECT_EQ(sw.run(f).reason, ina::Counter::completed);
	EXPECT_EQ(ina::parse_count() - before, 1u);
}

/* No other switchd stage decodes: the codec's readers of a frame appear in
 * classify.cpp only. The control thread takes a control frame's header
 * from the mbuf's view too (control_frame_from_view()) and decodes only
 * the payload. */
TEST(OneParse, OnlyClassifyDecodesInSwitchd)
{
	const char *readers[] = {"peek(", "decode_view(", "find_ina_header(", "parse_ina_frame(", "ina::decode("};
	int files = 0;
	for (const auto &e : std::filesystem::directory_iterator(SWITCHD_SRC_DIR)) {
		const std::string name = e.path().filename().string();
		if (name == "classify.cpp")
			continue;
		std::ifstream in(e.path());
		std::stringstream text;
		text << in.rdbuf();
		for (const char *r : readers)
			EXPECT_EQ(text.str().find(r), std::string::npos) << name << " calls " << r;
		files++;
	}
	EXPECT_GT(files, 20);
}

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	start_dpdk("test_one_parse");
	const int rc = RUN_ALL_TESTS();
	stop_dpdk("test_one_parse");
	return rc;
}
