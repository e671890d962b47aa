/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One parse per packet in ina-switchd: classify() decodes an INA header
 * once (ina::decode_view(), into the mbuf's PacketDesc) and every later
 * reader takes that view: admission, the ECN pre-mark, ina::process(), the
 * egress ECN mark and the egress drop accounting. This program is built
 * with the pipeline's sources compiled with INA_COUNT_PARSES, so that
 * decode_view() counts its calls, and runs frames of each kind through the
 * calls switchd makes, in its order: a second decode anywhere in them fails
 * it. A second test reads switchd's sources: only classify decodes.
 */
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "egress.h"
#include "ina/codec.h"
#include "ina/pipeline.h"
#include "test_util.h"

#ifndef INA_COUNT_PARSES
#error "built with INA_COUNT_PARSES only"
#endif

namespace {

using inatest::Frame;

struct Outcome {
	bool classified = false; /* classify kept it (else: counted malformed) */
	ina::Result result{ina::Verdict::kPass, ina::Counter::pass_through};
	uint64_t decodes = 0;
};

/*
 * The calls of one INA packet's path through switchd, in its order
 * (classify.cpp, aggregate.cpp, egress.h), with every queue congested so
 * that both ECN marks run.
 */
Outcome switchd_path(inatest::Switch &sw, Frame &f, uint64_t now)
{
	Outcome o;
	const uint64_t before = ina::parse_count();
	uint8_t *frame = f.data();
	const uint32_t len = static_cast<uint32_t>(f.size());
	/* classify */
	uint32_t off;
	ina::InaView v;
	if (!ina::find_ina_header(frame, len, &off) || !ina::decode_view(frame, len, off, &v) ||
	    v.version != INA_VERSION || v.job == 0) {
		o.decodes = ina::parse_count() - before;
		return o;
	}
	o.classified = true;
	/* aggregate: admission reads v; the ECN pre-mark; the pipeline */
	if (!(v.flags & INA_F_ACK) && !(v.flags & INA_F_ECN) && switchd::ecn_mark(frame, len, &v) >= 0 &&
	    v.type == INA_TYPE_DATA)
		v.flags |= INA_F_ECN;
	o.result = ina::process(*sw.table, sw.ctr, frame, len, v, now);
	EXPECT_EQ(v.flags, ina_load16(frame + v.ina_offset + offsetof(struct ina_hdr, flags)))
		<< "the view's flags follow the frame";
	/* egress: the mark above the threshold, the job of a tail drop */
	if (o.result.verdict == ina::Verdict::kDownstream || o.result.verdict == ina::Verdict::kMulticast) {
		EXPECT_GE(switchd::ecn_mark(frame, len, &v), 0);
		EXPECT_EQ(v.job, 7);
	}
	o.decodes = ina::parse_count() - before;
	return o;
}

Frame build(const inavec::FrameFields &f) { return inavec::build_frame(f); }

} /* namespace */

TEST(OneParse, EveryKindOfPacketIsDecodedOnce)
{
	inatest::Switch sw;
	struct Case {
		const char *what;
		Frame frame;
		ina::Counter reason;
	};
	Frame bad_version = build(inatest::gradient(7, 9, 4, 1u << 0, 2));
	bad_version[INA_HDR_OFFSET] = INA_VERSION + 1;
	Frame bad_length = build(inatest::gradient(7, 10, 5, 1u << 0, 2));
	ina_store16(bad_length.data() + INA_HDR_OFFSET - 4, 99); /* UDP length */
	Case cases[] = {
		{"first gradient", build(inatest::gradient(7, 1, 3, 1u << 0, 2)), ina::Counter::aggregated},
		{"duplicate", build(inatest::gradient(7, 1, 3, 1u << 0, 2)), ina::Counter::duplicate},
		{"collision", build(inatest::gradient(7, 2, 3, 1u << 0, 2)), ina::Counter::collision},
		{"completing gradient", build(inatest::gradient(7, 1, 3, 1u << 1, 2)), ina::Counter::completed},
		{"parameter packet", build(inatest::parameter(7, 1, 3)), ina::Counter::ack_freed},
		{"malformed length", bad_length, ina::Counter::malformed_length},
	};
	for (Case &c : cases) {
		const Outcome o = switchd_path(sw, c.frame, 1);
		EXPECT_TRUE(o.classified) << c.what;
		EXPECT_EQ(o.result.reason, c.reason) << c.what;
		EXPECT_EQ(o.decodes, 1u) << c.what;
	}
	const Outcome o = switchd_path(sw, bad_version, 1);
	EXPECT_FALSE(o.classified) << "classify drops another version as malformed";
	EXPECT_EQ(o.decodes, 1u);
}

/* The byte-buffer entry point (vectors, fuzzing, benchmarks) decodes once
 * too, and then runs the same code. */
TEST(OneParse, ByteBufferEntryDecodesOnce)
{
	inatest::Switch sw;
	Frame f = build(inatest::gradient(7, 1, 3, 1u << 0, 1));
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
