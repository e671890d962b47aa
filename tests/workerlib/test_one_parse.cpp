/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One parse per received frame in the worker: a sender thread parses what
 * it receives once (parse_from_ps(), in Sender::handle_frame()) and hands
 * the PsMessage on, to its own handlers or through an AckRing to the thread
 * that sent the fragment; nobody parses the frame again. Built with the
 * protocol's and these worker sources compiled with INA_COUNT_PARSES, so
 * that every decode of an INA header is counted; it also fails if a
 * sender source reads INA fields by hand or calls another decoder.
 */
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ack_ring.h"
#include "ina/codec.h"
#include "ina/worker/frames.h"

#ifndef INA_COUNT_PARSES
#error "built with INA_COUNT_PARSES only"
#endif

using namespace ina;

namespace {

constexpr uint32_t kPs[1] = {0x0A0000FEu};

std::vector<uint8_t> from_ps(uint16_t job, uint16_t flags, uint32_t seq, uint16_t n)
{
	const Endpoint ps{{2, 0, 0, 0, 0, 0xFE}, kPs[0], INA_UDP_PORT};
	const Endpoint worker{{2, 0, 0, 0, 1, 0}, 0x0A000001, INA_UDP_PORT};
	InaHeader h;
	h.flags = flags;
	h.job_id = job;
	h.seq = seq;
	h.elem_count = n;
	h.levels = 1;
	std::vector<uint8_t> f(INA_FRAME_LEN(n));
	write_ina_frame(f.data(), ps, worker, h);
	for (uint16_t i = 0; i < n; i++)
		ina_store32(f.data() + INA_PAYLOAD_OFFSET + 4 * i, 100u + i);
	return f;
}

std::string read_source(const std::string &name)
{
	std::ifstream in(std::string(WORKERLIB_SRC_DIR) + "/" + name);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

size_t count(const std::string &text, const std::string &what)
{
	size_t n = 0;
	for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
		n++;
	return n;
}

} // namespace

TEST(WorkerOneParse, AFrameIsDecodedOnceAndHandedOnWithItsParse)
{
	/* Each kind of frame a sender thread receives: one decode. */
	const std::vector<std::pair<std::vector<uint8_t>, RxVerdict>> frames = {
		{from_ps(5, INA_F_ACK, 42, 4), RxVerdict::param},
		{from_ps(5, INA_F_OVERFLOW | INA_F_RESEND | INA_F_BYPASS, 43, 0), RxVerdict::overflow_request},
		{from_ps(6, INA_F_ACK, 42, 4), RxVerdict::other_job},
		{std::vector<uint8_t>(30, 0), RxVerdict::not_ina},
	};
	for (const auto &[f, want] : frames) {
		PsMessage m;
		const uint64_t before = parse_count();
		EXPECT_EQ(parse_from_ps(f.data(), uint32_t(f.size()), 5, kPs, 1, &m), want);
		EXPECT_EQ(parse_count() - before, 1u);
	}
	/* A parameter packet for another thread's fragment travels with its
	 * parse: the payload is read from the ring's copy, nothing decoded. */
	std::vector<uint8_t> ack = from_ps(5, INA_F_ACK, 7, 4);
	PsMessage m;
	ASSERT_EQ(parse_from_ps(ack.data(), uint32_t(ack.size()), 5, kPs, 1, &m), RxVerdict::param);
	AckRing ring;
	const uint64_t before = parse_count();
	ASSERT_TRUE(ring.push(m, ack.data(), uint32_t(ack.size())));
	std::fill(ack.begin(), ack.end(), 0); /* the receive buffer is reused */
	const PsMessage *got = ring.peek();
	ASSERT_NE(got, nullptr);
	EXPECT_EQ(got->seq, 7u);
	EXPECT_EQ(got->elem_count, 4u);
	EXPECT_EQ(ina_load32(got->payload + 12), 103u);
	ring.pop();
	EXPECT_EQ(ring.peek(), nullptr);
	EXPECT_EQ(parse_count() - before, 0u);
}

/* The sender's receive path has one decoder call, parse_from_ps() in
 * handle_frame(); no source of the worker's data path reads an INA field
 * by hand (offsets into the frame) or calls another decoder. */
TEST(WorkerOneParse, OnlyHandleFrameDecodes)
{
	for (const char *src : {"sender.cpp", "ack_ring.cpp", "worker.cpp"}) {
		const std::string text = read_source(src);
		ASSERT_FALSE(text.empty()) << src;
		for (const char *reader : {"parse_ina_frame(", "parse_rx_frame(", "decode_view(", "peek(", "decode(",
					   "INA_HDR_OFFSET", "ina_load"})
			EXPECT_EQ(count(text, std::string("ina::") + reader) + count(text, std::string(" ") + reader) +
					  count(text, std::string("(") + reader),
				  0u)
				<< src << " calls " << reader;
		EXPECT_EQ(count(text, "parse_from_ps("), std::string(src) == "sender.cpp" ? 1u : 0u) << src;
	}
}
