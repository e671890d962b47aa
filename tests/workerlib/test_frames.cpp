/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Frames the worker writes and reads, and its configuration keys.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ina/codec.h"
#include "ina/wire.h"
#include "ina/worker.h"
#include "ina/worker/frames.h"

using namespace ina;

namespace {

Endpoint ep(uint32_t ip, uint8_t last)
{
	Endpoint e;
	uint8_t mac[6] = {0x02, 0, 0, 0, 0, last};
	memcpy(e.mac, mac, 6);
	e.ip = ip;
	e.port = INA_UDP_PORT;
	return e;
}

} /* namespace */

TEST(Frames, BitmapsFollowStartLevel)
{
	uint8_t bit[4] = {3, 5, 0, 0};
	uint32_t b[4];
	make_bitmaps(0, 2, bit, b);
	EXPECT_EQ(b[0], 1u << 3);
	EXPECT_EQ(b[1], 1u << 5);
	EXPECT_EQ(b[2], 0u);
	make_bitmaps(1, 2, bit, b); /* a worker in the PS's rack */
	EXPECT_EQ(b[0], 0xFFFFFFFFu);
	EXPECT_EQ(b[1], 1u << 5);
}

TEST(Frames, GradientFrameLayout)
{
	GradientTemplate t;
	t.job_id = 0x1234;
	t.agg_node = 9;
	t.level = 0;
	t.levels = 2;
	uint8_t bit[4] = {2, 1, 0, 0};
	make_bitmaps(0, 2, bit, t.bitmap);
	t.fan_in[0] = 4;
	t.fan_in[1] = 2;
	FrameWriter fw(ep(0x0A000002, 2), ep(0x0A000001, 1), t);
	std::vector<uint8_t> buf(INA_FRAME_LEN(62));
	std::vector<float> vals(62, 0.25f);
	uint32_t sat = 0;
	uint32_t len = fw.gradient(buf.data(), 0xDEADBEEF, 0x12345, INA_F_RESEND, vals.data(), 62, 1e8, &sat);
	EXPECT_EQ(len, 334u);
	EXPECT_EQ(sat, 0u);
	Endpoint src, dst;
	uint32_t udp_len;
	ASSERT_TRUE(parse_frame_headers(buf.data(), len, &src, &dst, &udp_len));
	EXPECT_EQ(ipv4_checksum(buf.data() + 14), 0);
	EXPECT_EQ(dst.ip, 0x0A000001u);
	EXPECT_EQ(dst.port, INA_UDP_PORT);
	EXPECT_EQ(dst.mac[5], 1);
	EXPECT_EQ(src.ip, 0x0A000002u);
	EXPECT_EQ(src.port, 0xC000 | (0x12345 & 0x3FFF));
	EXPECT_EQ(buf[15] & 3, 2); /* ECT(0) */
	EXPECT_EQ(udp_len, 44u + 4 * 62);
	const auto *h = reinterpret_cast<const ina_hdr *>(buf.data() + INA_HDR_OFFSET);
	EXPECT_EQ(h->version, INA_VERSION);
	EXPECT_EQ(h->type, INA_TYPE_DATA);
	EXPECT_EQ(ina_load16(&h->flags), INA_F_RESEND);
	EXPECT_EQ(ina_load16(&h->job_id), 0x1234);
	EXPECT_EQ(ina_load16(&h->agg_node), 9);
	EXPECT_EQ(ina_load32(&h->seq), 0xDEADBEEFu);
	EXPECT_EQ(ina_load32(&h->agg_index), 0x12345u);
	EXPECT_EQ(ina_load32(&h->remap_index), INA_NO_REMAP);
	EXPECT_EQ(ina_load16(&h->elem_count), 62);
	EXPECT_EQ(h->level, 0);
	EXPECT_EQ(h->levels, 2);
	EXPECT_EQ(ina_load32(&h->bitmap[0]), 4u);
	EXPECT_EQ(ina_load32(&h->bitmap[1]), 2u);
	EXPECT_EQ(h->fan_in[0], 4);
	EXPECT_EQ(h->fan_in[1], 2);
	EXPECT_EQ(static_cast<int32_t>(ina_load32(buf.data() + INA_PAYLOAD_OFFSET)), 25000000);
}

TEST(Frames, FloatFrameCarriesFloatFlagAndBits)
{
	GradientTemplate t;
	t.job_id = 3;
	FrameWriter fw(ep(1, 2), ep(2, 1), t);
	std::vector<uint8_t> buf(INA_FRAME_LEN(3));
	float v[3] = {1.5f, -30.f, 1e-9f};
	uint32_t len = fw.floats(buf.data(), 7, 1, INA_F_RESEND | INA_F_BYPASS, v, 3);
	EXPECT_EQ(len, INA_FRAME_LEN(3));
	const auto *h = reinterpret_cast<const ina_hdr *>(buf.data() + INA_HDR_OFFSET);
	EXPECT_EQ(ina_load16(&h->flags), INA_F_RESEND | INA_F_BYPASS | INA_F_FLOAT);
	uint32_t bits;
	memcpy(&bits, &v[1], 4);
	EXPECT_EQ(ina_load32(buf.data() + INA_PAYLOAD_OFFSET + 4), bits);
}

namespace {

std::vector<uint8_t> ps_frame(uint16_t job, uint16_t flags, uint32_t seq, uint16_t n, uint8_t tos = 0)
{
	std::vector<uint8_t> f(INA_FRAME_LEN(n), 0);
	InaHeader h;
	h.flags = flags;
	h.job_id = job;
	h.seq = seq;
	h.remap_index = 77;
	h.elem_count = n;
	h.level = 1;
	h.levels = 1;
	ina_ack_set_ps_clock(h.fan_in, 123456700);
	write_ina_frame(f.data(), ep(1, 1), ep(2, 2), h, tos);
	return f;
}

} /* namespace */

/* ps_frame() sends from 0.0.0.1; the second PS of the job is 10.0.0.9. */
const uint32_t kPs[2] = {0x0A000009u, 1u};

TEST(Frames, ParsesParameterPacketsAndOverflowRequests)
{
	PsMessage m;
	auto ack = ps_frame(5, INA_F_ACK | INA_F_ECN | INA_F_COL, 42, 62);
	ASSERT_EQ(parse_from_ps(ack.data(), ack.size(), 5, kPs, 2, &m), RxVerdict::param);
	EXPECT_EQ(m.seq, 42u);
	EXPECT_EQ(m.elem_count, 62);
	EXPECT_EQ(m.remap_index, 77u);
	EXPECT_EQ(m.level, 1);
	EXPECT_TRUE(m.flags & INA_F_ECN);
	EXPECT_FALSE(m.ip_ce);
	EXPECT_EQ(m.ps_clock, 1234567u); /* units of 100 ns */
	EXPECT_EQ(m.payload, ack.data() + INA_PAYLOAD_OFFSET);
	/* A queue on the way to this worker marked its copy's IP header. */
	auto ce = ps_frame(5, INA_F_ACK, 44, 62, 3);
	ASSERT_EQ(parse_from_ps(ce.data(), ce.size(), 5, kPs, 2, &m), RxVerdict::param);
	EXPECT_TRUE(m.ip_ce);
	EXPECT_FALSE(m.flags & INA_F_ECN);

	auto req = ps_frame(5, INA_F_OVERFLOW | INA_F_RESEND | INA_F_BYPASS, 43, 0);
	EXPECT_EQ(parse_from_ps(req.data(), req.size(), 5, kPs, 2, &m), RxVerdict::overflow_request);
	EXPECT_EQ(m.seq, 43u);
	/* The int32 copy of a split fragment, again (docs/ps.md). */
	auto again = ps_frame(5, INA_F_RESEND | INA_F_BYPASS, 45, 0);
	EXPECT_EQ(parse_from_ps(again.data(), again.size(), 5, kPs, 2, &m), RxVerdict::resend_request);
	EXPECT_EQ(m.seq, 45u);

	/* A float answer (a worker's own packet looped back) is not a request. */
	auto ans = ps_frame(5, INA_F_FLOAT | INA_F_RESEND | INA_F_BYPASS | INA_F_OVERFLOW, 43, 2);
	EXPECT_EQ(parse_from_ps(ans.data(), ans.size(), 5, kPs, 2, &m), RxVerdict::not_for_worker);
	auto grad = ps_frame(5, 0, 44, 2);
	EXPECT_EQ(parse_from_ps(grad.data(), grad.size(), 5, kPs, 2, &m), RxVerdict::not_for_worker);
	EXPECT_EQ(parse_from_ps(ack.data(), ack.size(), 6, kPs, 2, &m), RxVerdict::other_job);
}

TEST(Frames, TakesParameterPacketsOnlyFromTheJobsPs)
{
	PsMessage m;
	auto ack = ps_frame(5, INA_F_ACK, 42, 62);
	auto req = ps_frame(5, INA_F_OVERFLOW | INA_F_RESEND | INA_F_BYPASS, 43, 0);
	const uint32_t others[2] = {0x0A000009u, 0x0A000001u};
	/* Another host's forged result or float request for this job. */
	EXPECT_EQ(parse_from_ps(ack.data(), ack.size(), 5, others, 2, &m), RxVerdict::not_from_ps);
	EXPECT_EQ(parse_from_ps(req.data(), req.size(), 5, others, 2, &m), RxVerdict::not_from_ps);
	EXPECT_EQ(parse_from_ps(ack.data(), ack.size(), 5, others, 0, &m), RxVerdict::not_from_ps);
	EXPECT_EQ(parse_from_ps(ack.data(), ack.size(), 5, kPs + 1, 1, &m), RxVerdict::param);
}

TEST(Frames, RejectsMalformed)
{
	PsMessage m;
	auto ack = ps_frame(5, INA_F_ACK, 1, 4);
	EXPECT_EQ(parse_from_ps(ack.data(), 30, 5, kPs, 2, &m), RxVerdict::not_ina);
	InaHeader h;
	decode(ack.data() + INA_HDR_OFFSET, &h);
	auto bad_version = ack;
	InaHeader hv = h;
	hv.version = 9;
	encode(hv, bad_version.data() + INA_HDR_OFFSET);
	EXPECT_EQ(parse_from_ps(bad_version.data(), bad_version.size(), 5, kPs, 2, &m), RxVerdict::malformed);
	auto bad_count = ack;
	InaHeader hc = h;
	hc.elem_count = 5; /* != UDP length */
	encode(hc, bad_count.data() + INA_HDR_OFFSET);
	EXPECT_EQ(parse_from_ps(bad_count.data(), bad_count.size(), 5, kPs, 2, &m), RxVerdict::malformed);
	auto other_port = ack;
	Endpoint dst = ep(2, 2);
	dst.port = 53;
	write_frame_headers(other_port.data(), ep(1, 1), dst, INA_HDR_LEN + 4u * 4);
	EXPECT_EQ(parse_from_ps(other_port.data(), other_port.size(), 5, kPs, 2, &m), RxVerdict::not_ina);
}

TEST(Config, KeysSetFieldsAndRejectBadInput)
{
	WorkerConfig c;
	std::string err;
	EXPECT_TRUE(set_config_key(&c, "job", "7", &err));
	EXPECT_EQ(c.job_id, 7);
	EXPECT_TRUE(set_config_key(&c, "ps", "10.0.0.1/02:00:00:00:00:01,10.0.0.9", &err));
	ASSERT_EQ(c.ps.size(), 2u);
	EXPECT_EQ(c.ps[0].ip, 0x0A000001u);
	EXPECT_EQ(c.ps[0].mac[5], 1);
	EXPECT_TRUE(set_config_key(&c, "fan_in", "4,2", &err));
	EXPECT_EQ(c.fan_in[1], 2);
	EXPECT_TRUE(set_config_key(&c, "cc", "a2tp", &err));
	EXPECT_EQ(c.cc.kind, CcKind::a2tp);
	EXPECT_TRUE(set_config_key(&c, "min_rto_us", "500", &err));
	EXPECT_EQ(c.rtt.min_rto_ns, 500000u);

	EXPECT_FALSE(set_config_key(&c, "jobb", "7", &err));
	EXPECT_EQ(err, "unknown worker config key 'jobb'");
	EXPECT_FALSE(set_config_key(&c, "job", "70000", &err));
	EXPECT_FALSE(set_config_key(&c, "job", "-1", &err));
	EXPECT_FALSE(set_config_key(&c, "ps", "10.0.0.300", &err));
	EXPECT_FALSE(set_config_key(&c, "cc", "reno", &err));
	EXPECT_FALSE(set_config_key(&c, "elements", "2049", &err));
	EXPECT_FALSE(set_config_key(&c, "elements", "big", &err));
	EXPECT_TRUE(set_config_key(&c, "elements", "62", &err));
	EXPECT_EQ(c.elements_per_packet, 62u);
	EXPECT_TRUE(set_config_key(&c, "elements", "auto", &err));
	EXPECT_EQ(c.elements_per_packet, 0u) << "auto: the PS's size";
	EXPECT_TRUE(set_config_key(&c, "ps_query_timeout_ms", "250", &err));
	EXPECT_EQ(c.ps_query_timeout_ms, 250u);
	EXPECT_FALSE(set_config_key(&c, "bit", "1,2,3,4,5", &err));
}

/* The epoch: the PS's answer unless named (docs/protocol.md, "Epochs");
 * naming 0 is naming it too. */
TEST(Config, EpochKeyNamesTheRunOrLeavesItToThePs)
{
	WorkerConfig c;
	std::string err;
	EXPECT_FALSE(c.epoch_named) << "by default the PS's answer";
	EXPECT_TRUE(set_config_key(&c, "epoch", "0", &err));
	EXPECT_TRUE(c.epoch_named);
	EXPECT_EQ(c.epoch, 0);
	EXPECT_TRUE(set_config_key(&c, "epoch", "255", &err));
	EXPECT_EQ(c.epoch, 255);
	EXPECT_TRUE(set_config_key(&c, "epoch", "auto", &err));
	EXPECT_FALSE(c.epoch_named);
	EXPECT_EQ(c.epoch, 0);
	EXPECT_FALSE(set_config_key(&c, "epoch", "256", &err));
	EXPECT_EQ(err, "bad value '256' for worker config key 'epoch' (int 0..255 or auto)");
	EXPECT_FALSE(set_config_key(&c, "epoch", "", &err));
	EXPECT_FALSE(c.epoch_named) << "a refused value names nothing";
}

TEST(Config, RecoveryKeyChoosesTimeoutOnly)
{
	WorkerConfig c;
	std::string err;
	EXPECT_EQ(c.recovery, Recovery::atp) << "ATP's loss signal by default";
	EXPECT_TRUE(set_config_key(&c, "recovery", "timeout", &err));
	EXPECT_EQ(c.recovery, Recovery::timeout);
	EXPECT_TRUE(set_config_key(&c, "recovery", "atp", &err));
	EXPECT_EQ(c.recovery, Recovery::atp);
	for (const char *bad : {"", "ATP", "timer", "timeout ", "switchml"}) {
		EXPECT_FALSE(set_config_key(&c, "recovery", bad, &err)) << bad;
		EXPECT_EQ(err, std::string("bad value '") + bad + "' for worker config key 'recovery' (atp, timeout)");
		EXPECT_EQ(c.recovery, Recovery::atp) << "a refused value changes nothing";
	}
}

TEST(Config, ValidateExplainsProblems)
{
	WorkerConfig c;
	std::string err;
	EXPECT_FALSE(validate(c, &err));
	EXPECT_EQ(err, "no PS address");
	c.ps.push_back(PsAddress{0x0A000001, {}});
	c.fan_in[0] = 4;
	c.bit[0] = 3;
	EXPECT_TRUE(validate(c, &err)) << err;
	c.bit[0] = 4;
	EXPECT_FALSE(validate(c, &err));
	c.bit[0] = 0;
	c.job_id = 0;
	EXPECT_FALSE(validate(c, &err));
	c.job_id = 1;
	c.start_level = 1;
	EXPECT_FALSE(validate(c, &err)); /* start level beyond levels (1) */
	c.start_level = 0;
	c.elements_per_packet = 0; /* auto: asked of the PS at open */
	EXPECT_TRUE(validate(c, &err)) << err;
	c.elements_per_packet = INA_MAX_ELEMENTS + 1;
	EXPECT_FALSE(validate(c, &err));
	EXPECT_EQ(err, "elements per packet must be 1..2048 or 0 (auto)");
}

TEST(Worker, OpenFailsCleanlyWithoutTransport)
{
	WorkerConfig c;
	c.ps.push_back(PsAddress{0x0A000001, {}});
	c.transport.kind = "af_packet";
	c.transport.device = "no-such-if0";
	std::string err;
	auto w = Worker::open(c, &err);
	EXPECT_EQ(w, nullptr);
	EXPECT_NE(err.find("transport"), std::string::npos) << err;
}
