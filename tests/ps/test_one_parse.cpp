/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One parse per received frame in the PS: ina-ps parses a frame once
 * (parse_rx_frame(), in ps/src/daemon.cpp) and hands the RxFrame to the
 * shard choice, the JOB_QUERY answer, the control client and the
 * ParameterServer, across a hand-off ring too; none of them parses again.
 * Built with the protocol's and the PS's sources compiled with
 * INA_COUNT_PARSES, so that every decode of an INA header is counted; it
 * also fails if a PS source calls a decoder anywhere but where the daemon
 * receives.
 */
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ina/control_client.h"
#include "ina/frame_ring.h"
#include "ina/ps.h"
#include "ps_test_util.h"

#ifndef INA_COUNT_PARSES
#error "built with INA_COUNT_PARSES only"
#endif

using namespace ina;
using namespace ina_test;

namespace {

Endpoint ps_self() { return Endpoint{{2, 0, 0, 0, 0, 0xFE}, 0x0A0000FE, INA_UDP_PORT}; }

PsJobConfig two_workers(uint16_t id)
{
	PsJobConfig c;
	c.job = id;
	c.elements = 4;
	c.aggregators = 1000;
	c.window = 64;
	c.levels = 1;
	c.fan_in[0] = 2;
	for (uint8_t i = 0; i < 2; i++) {
		PsWorker w;
		w.ip = 0x0A000001 + i;
		uint8_t mac[6] = {2, 0, 0, 0, 1, i};
		memcpy(w.mac, mac, 6);
		w.bit[0] = i;
		c.workers.push_back(w);
	}
	return c;
}

/* The daemon's receive path for one frame (daemon.cpp, handle() and
 * dispatch()), with a hand-off ring between the shard choice and the
 * shard: the number of INA headers decoded. */
uint64_t receive(const std::vector<uint8_t> &f, ParameterServer *const ps[2], ControlClient &cc,
		 PsFrameRing &ring, TxQueue &tx)
{
	const uint64_t before = parse_count();
	const RxFrame rx = parse_rx_frame(f.data(), uint32_t(f.size()));
	const uint32_t owner = ps[0]->shard_of(rx);
	EXPECT_TRUE(ring.put(rx));
	ring.publish();
	EXPECT_EQ(ring.ready(), 1u);
	const RxFrame handed = ring.rx(0);
	uint16_t job;
	if (!is_job_query(handed, ps_self(), &job) && !cc.take(handed))
		ps[owner]->handle(handed, 1000000000, tx);
	ring.release(1);
	return parse_count() - before;
}

std::string read_source(const std::string &name)
{
	std::ifstream in(std::string(PS_SRC_DIR) + "/" + name);
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

TEST(PsOneParse, EveryFrameIsDecodedOnceOnItsWayThroughTheDaemon)
{
	ParameterServer a(ps_self(), 0, 2), b(ps_self(), 1, 2);
	ParameterServer *const ps[2] = {&a, &b};
	std::string err;
	ASSERT_TRUE(a.add_job(two_workers(5), &err)) << err;
	ASSERT_TRUE(b.add_job(two_workers(5), &err)) << err;
	ControlClient cc(ps_self());
	PsFrameRing ring(16, INA_FRAME_LEN(INA_MAX_ELEMENTS));
	TxQueue tx(64);

	/* Both workers' gradients of one fragment: the second completes it. */
	for (uint32_t w = 0; w < 2; w++) {
		EXPECT_EQ(receive(build(from_worker(5, 3, w, {1, 2, 3, 4})), ps, cc, ring, tx), 1u) << "worker " << w;
		EXPECT_EQ(a.job_stats(5)->completed + b.job_stats(5)->completed, w);
	}
	/* Not INA, and a malformed one: one parse, no second look. */
	std::vector<uint8_t> f = build(from_worker(5, 4, 0, {1, 2, 3, 4}));
	EXPECT_EQ(receive(std::vector<uint8_t>(f.begin(), f.begin() + 30), ps, cc, ring, tx), 1u);
	f[INA_HDR_OFFSET + offsetof(struct ina_hdr, version)] = INA_VERSION + 1;
	EXPECT_EQ(receive(f, ps, cc, ring, tx), 1u);
	/* A worker's JOB_QUERY and an ACK nobody asked for: control frames. */
	CtrlMessage q;
	q.op = INA_CTRL_JOB_QUERY;
	uint8_t frame[kCtrlMaxFrameLen];
	const Endpoint worker{{2, 0, 0, 0, 1, 0}, 0x0A000001, 40000};
	uint32_t len = write_ctrl_frame(frame, sizeof(frame), worker, ps_self(), 5, q);
	EXPECT_EQ(receive(std::vector<uint8_t>(frame, frame + len), ps, cc, ring, tx), 1u);
	const uint64_t before = parse_count();
	uint8_t info[kCtrlMaxFrameLen];
	EXPECT_GT(build_job_info(parse_rx_frame(frame, len), ps_self(), 4, 1, info, sizeof(info)), 0u);
	EXPECT_EQ(parse_count() - before, 1u) << "the JOB_INFO answer reads the query's parse";
	q.op = INA_CTRL_ACK;
	len = write_ctrl_frame(frame, sizeof(frame), worker, ps_self(), 5, q);
	EXPECT_EQ(receive(std::vector<uint8_t>(frame, frame + len), ps, cc, ring, tx), 1u);
}

/* Only the daemon's receive loops parse: the library's readers take an
 * RxFrame (their (frame, len) forms are one parse_rx_frame() for tests). */
TEST(PsOneParse, OnlyTheReceiveLoopsCallTheParser)
{
	for (const char *src : {"src/ps.cpp", "src/control_client.cpp", "src/frame_ring.cpp", "src/steering.cpp",
				"src/tx_queue.cpp", "src/daemon.cpp", "src/daemon_control.cpp",
				"src/daemon_report.cpp", "tools/ina_ps.cpp"}) {
		const std::string text = read_source(src);
		ASSERT_FALSE(text.empty()) << src;
		for (const char *reader : {"parse_ina_frame(", "decode_view(", "peek(", "ina::decode(", "INA_HDR_OFFSET"})
			EXPECT_EQ(count(text, reader), 0u) << src << " calls " << reader;
		EXPECT_EQ(count(text, "parse_rx_frame("), std::string(src) == "src/daemon.cpp" ? 2u : 0u) << src;
	}
}
