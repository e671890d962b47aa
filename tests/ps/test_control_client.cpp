/* SPDX-License-Identifier: BSD-3-Clause
 * The PS's registration client (ina/control_client.h): resends with backoff
 * until an authentic acknowledgement, gives up at the timeout, and ignores
 * answers that do not match. The switch is played by the test. */
#include <gtest/gtest.h>

#include <cstring>

#include "ina/control_auth.h"
#include "ina/control_client.h"
#include "ina/goat_wire.h"

using namespace ina;

namespace {

constexpr uint32_t kPsIp = 0x0A000064, kSwIp = 0x0A0000FE;
const char *kKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

Endpoint ps_ep()
{
	return Endpoint{{2, 0, 0, 0, 0, 0x64}, kPsIp, INA_UDP_PORT};
}
Endpoint sw_ep()
{
	return Endpoint{{2, 0, 0, 0, 0, 0xFE}, kSwIp, INA_UDP_PORT};
}

PsJobConfig job(uint16_t id, bool with_key)
{
	PsJobConfig c;
	c.job = id;
	c.levels = 1;
	c.fan_in[0] = 2;
	for (uint32_t i = 0; i < 2; i++) {
		PsWorker w;
		w.ip = 0x0A000001 + i;
		w.bit[0] = static_cast<uint8_t>(i);
		c.workers.push_back(w);
	}
	c.has_switch = true;
	c.switch_ip = kSwIp;
	memcpy(c.switch_mac, sw_ep().mac, 6);
	std::string err;
	if (with_key) {
		EXPECT_TRUE(parse_ctrl_key(kKey, &c.switch_key, &err)) << err;
	}
	return c;
}

/* The request in tx frame i, as the switch decodes it. */
CtrlMessage request(const TxQueue &tx, uint32_t i, InaFrame *f = nullptr)
{
	uint32_t len;
	const uint8_t *frame = tx.frame(i, &len);
	InaFrame pf;
	EXPECT_EQ(parse_ina_frame(frame, len, &pf), FrameVerdict::kOk);
	CtrlMessage m;
	EXPECT_EQ(decode_ctrl(pf.payload, pf.payload_len, &m), CtrlVerdict::kOk);
	if (f)
		*f = pf;
	return m;
}

/* The switch's answer to a request with `counter`. */
std::vector<uint8_t> ack(uint16_t job_id, uint64_t counter, uint8_t status, const PsJobConfig &c,
			 bool sign = true, uint8_t epoch = 0, uint16_t cap = 0)
{
	CtrlMessage a;
	a.epoch = epoch;
	a.elements = cap;
	a.op = INA_CTRL_ACK;
	a.status = status;
	a.ps_ip = kPsIp;
	a.counter = counter;
	std::vector<uint8_t> f(kCtrlMaxFrameLen);
	const uint32_t len = write_ctrl_frame(f.data(), static_cast<uint32_t>(f.size()), sw_ep(), ps_ep(), job_id, a);
	f.resize(len);
	if (sign && !c.switch_key.empty()) {
		EXPECT_TRUE(sign_ctrl_frame(f.data(), len, c.switch_key));
	}
	return f;
}

} /* namespace */

TEST(ControlClient, ResendsWithBackoffUntilAcknowledged)
{
	const PsJobConfig c = job(5, true);
	ControlClient cc(ps_ep(), ControlClient::Timing{100, 400});
	TxQueue tx(8);
	cc.start(c, false, 0, 10000000);
	EXPECT_TRUE(cc.pending());
	/* Sent at once, then after 100, 200, 400, 400 ms (the cap). */
	std::vector<uint64_t> sent_at;
	std::vector<uint64_t> counters;
	for (uint64_t t = 0; t <= 1200000; t += 10000) {
		cc.poll(t, 1000 + t, tx);
		if (tx.size()) {
			ASSERT_EQ(tx.size(), 1u);
			InaFrame f;
			CtrlMessage m = request(tx, 0, &f);
			EXPECT_TRUE(verify_ctrl_frame(tx.data(0), f, c.switch_key)) << "every copy signed";
			EXPECT_EQ(m.op, INA_CTRL_REGISTER);
			counters.push_back(m.counter);
			sent_at.push_back(t);
			tx.clear();
		}
	}
	EXPECT_EQ(sent_at, (std::vector<uint64_t>{0, 100000, 300000, 700000, 1100000}));
	for (size_t i = 1; i < counters.size(); i++)
		EXPECT_GT(counters[i], counters[i - 1]) << "a fresh counter per copy";
	EXPECT_EQ(cc.attempts(5), 5u);
	/* The answer to an earlier copy counts: it crossed a resend. */
	auto a = ack(5, counters[1], INA_CTRL_APPLIED, c);
	EXPECT_TRUE(cc.take(a.data(), static_cast<uint32_t>(a.size())));
	EXPECT_EQ(cc.state(5), ControlClient::State::kApplied);
	EXPECT_FALSE(cc.pending());
	cc.poll(5000000, 5001000, tx);
	EXPECT_EQ(tx.size(), 0u) << "nothing more once applied";
	EXPECT_EQ(cc.stats().acks, 1u);
}

TEST(ControlClient, TimesOutWhenTheSwitchNeverAnswers)
{
	const PsJobConfig c = job(5, true);
	ControlClient cc(ps_ep());
	TxQueue tx(8);
	cc.start(c, false, 0, 2000000);
	for (uint64_t t = 0; t < 2000000; t += 50000) {
		cc.poll(t, t, tx);
		tx.clear();
	}
	EXPECT_TRUE(cc.pending());
	cc.poll(2000000, 2000000, tx);
	EXPECT_EQ(cc.state(5), ControlClient::State::kTimedOut);
	EXPECT_FALSE(cc.pending());
	EXPECT_GE(cc.attempts(5), 4u);
	EXPECT_LE(cc.attempts(5), 6u) << "backoff, not a resend every poll";
}

TEST(ControlClient, IgnoresForgedStaleAndForeignAnswers)
{
	const PsJobConfig c = job(5, true);
	ControlClient cc(ps_ep());
	TxQueue tx(8);
	cc.start(c, false, 0, 10000000);
	cc.poll(0, 5000, tx);
	const uint64_t counter = request(tx, 0).counter;
	tx.clear();
	auto unsigned_ack = ack(5, counter, INA_CTRL_APPLIED, c, false);
	auto other_counter = ack(5, counter + 1, INA_CTRL_APPLIED, c);
	auto other_job = ack(6, counter, INA_CTRL_APPLIED, c);
	PsJobConfig wrong = job(5, true);
	wrong.switch_key.bytes[0] ^= 1;
	auto wrong_key = ack(5, counter, INA_CTRL_APPLIED, wrong);
	for (auto *f : {&unsigned_ack, &other_counter, &other_job, &wrong_key})
		EXPECT_TRUE(cc.take(f->data(), static_cast<uint32_t>(f->size())));
	EXPECT_EQ(cc.state(5), ControlClient::State::kPending);
	EXPECT_EQ(cc.stats().ignored, 4u);
	/* A data frame is not the client's. */
	uint8_t data[INA_FRAME_LEN(1)];
	InaHeader h;
	h.job_id = 5;
	h.elem_count = 1;
	write_ina_frame(data, sw_ep(), ps_ep(), h);
	EXPECT_FALSE(cc.take(data, sizeof(data)));
	auto denied = ack(5, counter, INA_CTRL_DENIED, c);
	EXPECT_TRUE(cc.take(denied.data(), static_cast<uint32_t>(denied.size())));
	EXPECT_EQ(cc.state(5), ControlClient::State::kDenied);
}

TEST(ControlClient, UnsignedWithoutAKeyAndCountersIncreaseAcrossJobs)
{
	const PsJobConfig a = job(5, false), b = job(6, false);
	ControlClient cc(ps_ep());
	TxQueue tx(8);
	cc.start(a, false, 0, 1000000);
	cc.start(b, true, 0, 1000000);
	cc.poll(0, 777, tx); /* the same clock reading for both */
	ASSERT_EQ(tx.size(), 2u);
	const CtrlMessage ma = request(tx, 0), mb = request(tx, 1);
	EXPECT_EQ(ma.counter, 777u);
	EXPECT_EQ(mb.counter, 778u) << "strictly increasing per PS, whatever the job";
	EXPECT_EQ(mb.op, INA_CTRL_UNREGISTER);
	for (uint8_t byte : ma.mac)
		EXPECT_EQ(byte, 0) << "no key: no MAC";
	auto ack_a = ack(5, ma.counter, INA_CTRL_APPLIED, a);
	auto ack_b = ack(6, mb.counter, INA_CTRL_INVALID, b);
	cc.take(ack_a.data(), static_cast<uint32_t>(ack_a.size()));
	cc.take(ack_b.data(), static_cast<uint32_t>(ack_b.size()));
	EXPECT_EQ(cc.state(5), ControlClient::State::kApplied);
	EXPECT_EQ(cc.state(6), ControlClient::State::kInvalid);
	EXPECT_EQ(cc.state(7), ControlClient::State::kIdle);
}

/* Epochs (docs/protocol.md): the first registration asks for a new run; the
 * epoch in the switch's ACK is kept and every later registration renews it;
 * an applied unregistration forgets it. */
TEST(ControlClient, NewRunThenRenewsTheEpochTheSwitchGave)
{
	const PsJobConfig c = job(5, true);
	ControlClient cc(ps_ep(), ControlClient::Timing{100, 400});
	TxQueue tx(8);
	EXPECT_EQ(cc.epoch(5), 0u);
	cc.start(c, false, 0, 10000000);
	cc.poll(0, 1000, tx);
	ASSERT_EQ(tx.size(), 1u);
	InaFrame f;
	CtrlMessage m = request(tx, 0, &f);
	EXPECT_EQ(m.status, INA_CTRL_NEW_RUN);
	EXPECT_EQ(ina_flags_epoch(f.hdr.flags), 0u);
	auto a = ack(5, m.counter, INA_CTRL_APPLIED, c, true, 42);
	EXPECT_TRUE(cc.take(a.data(), static_cast<uint32_t>(a.size())));
	EXPECT_EQ(cc.state(5), ControlClient::State::kApplied);
	EXPECT_EQ(cc.epoch(5), 42u);

	tx.clear();
	cc.start(c, false, 1000, 10000000);
	cc.poll(1000, 2000, tx);
	ASSERT_EQ(tx.size(), 1u);
	m = request(tx, 0, &f);
	EXPECT_EQ(m.status, INA_CTRL_RENEW) << "a refresh renews the run";
	EXPECT_EQ(ina_flags_epoch(f.hdr.flags), 42u);
	EXPECT_TRUE(verify_ctrl_frame(tx.data(0), f, c.switch_key)) << "the epoch is signed with the rest";

	tx.clear();
	cc.start(c, true, 2000, 10000000);
	cc.poll(2000, 3000, tx);
	ASSERT_EQ(tx.size(), 1u);
	m = request(tx, 0, &f);
	EXPECT_EQ(m.op, INA_CTRL_UNREGISTER);
	a = ack(5, m.counter, INA_CTRL_APPLIED, c);
	EXPECT_TRUE(cc.take(a.data(), static_cast<uint32_t>(a.size())));
	EXPECT_EQ(cc.epoch(5), 0u) << "unregistered: the next registration is a new run";
}

/* A restarted PS (ina-ps --resume JOB=EPOCH, docs/ps.md "Restarting a PS"):
 * its first registration renews the named epoch; bad items are refused. */
TEST(ControlClient, ResumedRunRenewsItsEpochFromTheFirstRegistration)
{
	const std::vector<PsJobConfig> jobs = {job(5, true), job(6, true)};
	ControlClient cc(ps_ep(), ControlClient::Timing{100, 400});
	std::string err;
	ASSERT_TRUE(ps_resume_runs({"5=17"}, jobs, cc, &err)) << err;
	EXPECT_EQ(cc.epoch(5), 17u);
	EXPECT_EQ(cc.epoch(6), 0u) << "a job not named starts a new run";
	TxQueue tx(8);
	cc.start(jobs[0], false, 0, 10000000);
	cc.start(jobs[1], false, 0, 10000000);
	cc.poll(0, 1000, tx);
	ASSERT_EQ(tx.size(), 2u);
	for (uint32_t i = 0; i < 2; i++) {
		InaFrame f;
		const CtrlMessage m = request(tx, i, &f);
		const bool resumed = f.hdr.job_id == 5;
		EXPECT_EQ(m.status, resumed ? INA_CTRL_RENEW : INA_CTRL_NEW_RUN) << "job " << f.hdr.job_id;
		EXPECT_EQ(ina_flags_epoch(f.hdr.flags), resumed ? 17u : 0u);
	}
	for (const char *bad : {"5", "5=0", "5=256", "x=1", "5=1x", "=3", "7=1"}) {
		ControlClient fresh(ps_ep());
		EXPECT_FALSE(ps_resume_runs({bad}, jobs, fresh, &err)) << bad;
		EXPECT_NE(err.find(bad), std::string::npos) << err;
		EXPECT_EQ(fresh.epoch(5), 0u) << bad;
	}
	ControlClient twice(ps_ep());
	EXPECT_FALSE(ps_resume_runs({"5=1", "5=2"}, jobs, twice, &err));
	EXPECT_NE(err.find("named twice"), std::string::npos) << err;
}

/* GOAT (docs/goat.md, "Installing a plan"): the PS sends each switch of the
 * job's plan its ranges, signed with that switch's key, alongside the
 * registration with its own switch; an ACK settles only the request it
 * answers (same job, told apart by switch and counter). */
TEST(ControlClient, GoatAssignmentsPerSwitchBesideTheRegistration)
{
	PsJobConfig c = job(5, true);
	PsGoatSwitch other;
	other.id = 2;
	other.ip = 0x0A0000FD;
	memcpy(other.mac, sw_ep().mac, 6);
	other.key = c.switch_key;
	other.key.bytes[0] ^= 1; /* its own key */
	other.slots = {GoatSlots{0, 256, 2, 0b0101}, GoatSlots{256, 512, 0, 0}};
	PsGoatSwitch own;
	own.id = 1;
	own.ip = kSwIp;
	memcpy(own.mac, sw_ep().mac, 6);
	own.key = c.switch_key;
	own.slots = {GoatSlots{0, 512, 0, 0}};
	c.goat = {own, other};
	ControlClient cc(ps_ep());
	TxQueue tx(8);
	cc.start(c, false, 0, 10000000);
	cc.start_goat(c, 0, false, 0, 10000000);
	cc.start_goat(c, 1, false, 0, 10000000);
	cc.poll(0, 1000, tx);
	ASSERT_EQ(tx.size(), 3u);
	uint64_t reg_counter = 0, own_counter = 0, other_counter = 0;
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t len;
		const uint8_t *frame = tx.frame(i, &len);
		InaFrame f;
		ASSERT_EQ(parse_ina_frame(frame, len, &f), FrameVerdict::kOk);
		if (f.payload[0] != INA_CTRL_GOAT) {
			reg_counter = request(tx, i).counter;
			continue;
		}
		std::vector<GoatSlots> slots;
		uint32_t ps_ip = 0;
		uint64_t counter = 0;
		ASSERT_EQ(goat_ctrl_parse(f.payload, f.payload_len, &slots, &ps_ip, &counter), "");
		EXPECT_EQ(ps_ip, kPsIp);
		EXPECT_EQ(f.hdr.job_id, 5);
		const PsGoatSwitch &to = f.dst_ip == other.ip ? other : own;
		EXPECT_TRUE(verify_ctrl_frame(frame, f, to.key)) << "signed with that switch's key";
		EXPECT_EQ(slots.size(), to.slots.size());
		for (size_t k = 0; k < slots.size() && k < to.slots.size(); k++) {
			EXPECT_EQ(slots[k].first, to.slots[k].first);
			EXPECT_EQ(slots[k].end, to.slots[k].end);
			EXPECT_EQ(slots[k].fan_in, to.slots[k].fan_in);
			EXPECT_EQ(slots[k].children, to.slots[k].children);
		}
		(f.dst_ip == other.ip ? other_counter : own_counter) = counter;
	}
	ASSERT_TRUE(reg_counter && own_counter && other_counter);
	tx.clear();
	/* The other switch's ACK, signed with its key, settles its request only. */
	CtrlMessage a;
	a.op = INA_CTRL_ACK;
	a.ps_ip = kPsIp;
	a.counter = other_counter;
	std::vector<uint8_t> fr(kCtrlMaxFrameLen);
	Endpoint from = sw_ep();
	from.ip = other.ip;
	uint32_t len = write_ctrl_frame(fr.data(), static_cast<uint32_t>(fr.size()), from, ps_ep(), 5, a);
	fr.resize(len);
	ASSERT_TRUE(sign_ctrl_frame(fr.data(), len, other.key));
	EXPECT_TRUE(cc.take(fr.data(), len));
	EXPECT_EQ(cc.goat_state(5, 2), ControlClient::State::kApplied);
	EXPECT_EQ(cc.goat_state(5, 1), ControlClient::State::kPending);
	EXPECT_EQ(cc.state(5), ControlClient::State::kPending);
	/* The own switch answers the registration and then the assignment. */
	auto r = ack(5, reg_counter, INA_CTRL_APPLIED, c, true, 3);
	EXPECT_TRUE(cc.take(r.data(), static_cast<uint32_t>(r.size())));
	EXPECT_EQ(cc.state(5), ControlClient::State::kApplied);
	EXPECT_EQ(cc.epoch(5), 3u);
	EXPECT_EQ(cc.goat_state(5, 1), ControlClient::State::kPending);
	auto g = ack(5, own_counter, INA_CTRL_DENIED, c);
	EXPECT_TRUE(cc.take(g.data(), static_cast<uint32_t>(g.size())));
	EXPECT_EQ(cc.goat_state(5, 1), ControlClient::State::kDenied);
	EXPECT_EQ(cc.epoch(5), 3u) << "a GOAT ACK does not touch the run's epoch";
	EXPECT_FALSE(cc.pending());

	/* Removal: no ranges. */
	cc.start_goat(c, 1, true, 100, 1000000);
	cc.poll(100, 2000, tx);
	ASSERT_EQ(tx.size(), 1u);
	uint32_t l;
	const uint8_t *frame = tx.frame(0, &l);
	InaFrame f;
	ASSERT_EQ(parse_ina_frame(frame, l, &f), FrameVerdict::kOk);
	std::vector<GoatSlots> slots{GoatSlots{}};
	uint32_t ps_ip;
	uint64_t counter;
	ASSERT_EQ(goat_ctrl_parse(f.payload, f.payload_len, &slots, &ps_ip, &counter), "");
	EXPECT_TRUE(slots.empty());
	EXPECT_EQ(f.dst_ip, other.ip);
}

/* The switch states its cap in the ACK's elem_count (docs/protocol.md,
 * "Fragment size"): the client keeps the least cap of the job's applied
 * requests (registration and GOAT assignments), with the switch that
 * stated it; a denied request's cap does not count, nor does an ACK that
 * fails the MAC. */
TEST(ControlClient, CapIsTheLeastTheJobsSwitchesStated)
{
	PsJobConfig c = job(5, true);
	PsGoatSwitch other;
	other.id = 2;
	other.ip = 0x0A0000FD;
	memcpy(other.mac, sw_ep().mac, 6);
	other.key = c.switch_key;
	other.slots = {GoatSlots{0, 256, 0, 0}};
	c.goat = {other};
	ControlClient cc(ps_ep());
	TxQueue tx(8);
	EXPECT_EQ(cc.cap(5), 0u) << "nothing stated before an ACK";
	cc.start(c, false, 0, 10000000);
	cc.start_goat(c, 0, false, 0, 10000000);
	cc.poll(0, 1000, tx);
	ASSERT_EQ(tx.size(), 2u);
	uint64_t reg = 0, goat = 0;
	for (uint32_t i = 0; i < 2; i++) {
		uint32_t len;
		const uint8_t *frame = tx.frame(i, &len);
		InaFrame f;
		ASSERT_EQ(parse_ina_frame(frame, len, &f), FrameVerdict::kOk);
		EXPECT_EQ(f.hdr.elem_count, 0) << "a request states no size";
		if (f.payload[0] == INA_CTRL_GOAT) {
			std::vector<GoatSlots> slots;
			uint32_t ps_ip;
			ASSERT_EQ(goat_ctrl_parse(f.payload, f.payload_len, &slots, &ps_ip, &goat), "");
		} else {
			reg = request(tx, i).counter;
		}
	}
	/* A forged ACK (wrong MAC) with a tiny cap is ignored. */
	auto forged = ack(5, reg, INA_CTRL_APPLIED, c, false, 1, 30);
	EXPECT_TRUE(cc.take(forged.data(), static_cast<uint32_t>(forged.size())));
	EXPECT_EQ(cc.cap(5), 0u);
	auto r = ack(5, reg, INA_CTRL_APPLIED, c, true, 1, 858);
	EXPECT_TRUE(cc.take(r.data(), static_cast<uint32_t>(r.size())));
	uint32_t from = 0;
	EXPECT_EQ(cc.cap(5, &from), 858u);
	EXPECT_EQ(from, kSwIp);
	/* The GOAT switch carries less: it decides. */
	CtrlMessage a;
	a.op = INA_CTRL_ACK;
	a.ps_ip = kPsIp;
	a.counter = goat;
	a.elements = 62;
	std::vector<uint8_t> fr(kCtrlMaxFrameLen);
	Endpoint sw2 = sw_ep();
	sw2.ip = other.ip;
	const uint32_t len = write_ctrl_frame(fr.data(), static_cast<uint32_t>(fr.size()), sw2, ps_ep(), 5, a);
	ASSERT_TRUE(sign_ctrl_frame(fr.data(), len, other.key));
	EXPECT_TRUE(cc.take(fr.data(), len));
	EXPECT_EQ(cc.cap(5, &from), 62u);
	EXPECT_EQ(from, other.ip);
	EXPECT_EQ(cc.cap(6), 0u) << "per job";
}

/* A worker's JOB_QUERY and the PS's JOB_INFO (docs/protocol.md, "Fragment
 * size"): the answer goes back to the query's source with the job's size,
 * epoch and the query's counter, unsigned; a job the PS does not serve is
 * answered "invalid" with no size. */
TEST(JobQuery, AnsweredBackToTheAskerWithSizeEpochAndCounter)
{
	const Endpoint worker{{2, 0, 0, 0, 0, 0x11}, 0x0A000011, 40000};
	const Endpoint hop{{2, 0, 0, 0, 0, 0xFE}, 0x0A000011, 40000}; /* as routed: the switch's MAC */
	CtrlMessage q;
	q.op = INA_CTRL_JOB_QUERY;
	q.ps_ip = kPsIp;
	q.counter = 0xABCDEF;
	uint8_t query[kCtrlMaxFrameLen];
	const uint32_t qlen = write_ctrl_frame(query, sizeof(query), hop, ps_ep(), 9, q);
	uint16_t asked = 0;
	ASSERT_TRUE(is_job_query(query, qlen, ps_ep(), &asked));
	EXPECT_EQ(asked, 9);
	Endpoint elsewhere = ps_ep();
	elsewhere.ip = kPsIp + 1;
	EXPECT_FALSE(is_job_query(query, qlen, elsewhere, &asked)) << "only queries addressed to this PS";
	auto a = ack(9, 1, INA_CTRL_APPLIED, job(9, false));
	EXPECT_FALSE(is_job_query(a.data(), static_cast<uint32_t>(a.size()), ps_ep(), &asked)) << "an ACK is not one";

	for (uint16_t size : {uint16_t(768), uint16_t(0)}) {
		uint8_t info[kCtrlMaxFrameLen];
		const uint32_t len = build_job_info(query, qlen, ps_ep(), size, 4, info, sizeof(info));
		ASSERT_EQ(len, INA_PAYLOAD_OFFSET + ctrl_payload_len(0));
		EXPECT_EQ(build_job_info(query, qlen, ps_ep(), size, 4, info, len - 1), 0u);
		InaFrame f;
		ASSERT_EQ(parse_ina_frame(info, len, &f), FrameVerdict::kOk);
		CtrlMessage m;
		ASSERT_EQ(decode_ctrl(f.payload, f.payload_len, &m), CtrlVerdict::kOk);
		EXPECT_EQ(m.op, INA_CTRL_JOB_INFO);
		EXPECT_EQ(f.hdr.job_id, 9);
		EXPECT_EQ(f.hdr.elem_count, size);
		EXPECT_EQ(ina_flags_epoch(f.hdr.flags), size ? 4 : 0);
		EXPECT_EQ(m.status, size ? INA_CTRL_APPLIED : INA_CTRL_INVALID);
		EXPECT_EQ(m.counter, q.counter);
		EXPECT_EQ(m.ps_ip, kPsIp);
		EXPECT_EQ(f.src_ip, kPsIp);
		EXPECT_EQ(f.dst_ip, worker.ip);
		EXPECT_EQ(memcmp(info, hop.mac, 6), 0) << "back to the hop it came from";
		EXPECT_EQ(ina_load16(info + INA_HDR_OFFSET - 8 + 2), INA_UDP_PORT) << "to the INA port";
		static const uint8_t zero[INA_CTRL_MAC_LEN] = {};
		EXPECT_EQ(memcmp(m.mac, zero, sizeof(zero)), 0) << "not signed";
	}
	/* Anything but a query gets no answer written. */
	uint8_t out[kCtrlMaxFrameLen];
	EXPECT_EQ(build_job_info(a.data(), static_cast<uint32_t>(a.size()), ps_ep(), 768, 1, out, sizeof(out)), 0u);
}
