/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Registration with the switch, retried until acknowledged
 * (ina/control_client.h).
 */
#include "ina/control_client.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "ina/control_auth.h"
#include "ina/goat_wire.h"

namespace ina {

uint32_t build_ctrl_request(const PsJobConfig &job, const Endpoint &self, bool unregister,
			    uint64_t counter, uint8_t *out, uint32_t cap)
{
	return build_ctrl_request(job, self, unregister, counter, 0, out, cap);
}

uint32_t build_ctrl_request(const PsJobConfig &job, const Endpoint &self, bool unregister,
			    uint64_t counter, uint8_t epoch, uint8_t *out, uint32_t cap)
{
	if (!job.has_switch || job.workers.size() > kCtrlMaxWorkers)
		return 0;
	CtrlMessage m;
	m.op = unregister ? INA_CTRL_UNREGISTER : INA_CTRL_REGISTER;
	m.levels = job.levels;
	m.ps_ip = self.ip;
	memcpy(m.ps_mac, self.mac, 6);
	memcpy(m.fan_in, job.fan_in, INA_MAX_LEVELS);
	m.refresh_ms = unregister ? 0 : job.refresh_ms;
	m.n_workers = static_cast<uint8_t>(job.workers.size());
	for (size_t i = 0; i < job.workers.size(); i++) {
		const PsWorker &pw = job.workers[i];
		m.workers[i].ip = pw.ip;
		memcpy(m.workers[i].mac, pw.mac, 6);
		for (uint32_t l = 0; l < INA_MAX_LEVELS; l++)
			m.workers[i].bit[l] = l < job.levels ? pw.bit[l] : kPsNoBit;
	}
	if (!unregister && epoch != 0) {
		m.status = INA_CTRL_RENEW;
		m.epoch = epoch;
	}
	m.counter = counter;
	Endpoint dst;
	memcpy(dst.mac, job.switch_mac, 6);
	dst.ip = job.switch_ip;
	dst.port = INA_UDP_PORT;
	const uint32_t len = write_ctrl_frame(out, cap, self, dst, job.job, m);
	if (len && !job.switch_key.empty() && !sign_ctrl_frame(out, len, job.switch_key))
		return 0;
	return len;
}

uint32_t build_goat_request(const PsJobConfig &job, const PsGoatSwitch &sw, const Endpoint &self, bool remove,
			    uint64_t counter, uint8_t *out, uint32_t cap)
{
	Endpoint dst;
	memcpy(dst.mac, sw.mac, 6);
	dst.ip = sw.ip;
	dst.port = INA_UDP_PORT;
	static const std::vector<GoatSlots> none;
	const uint32_t len = write_goat_ctrl_frame(out, cap, self, dst, job.job, remove ? none : sw.slots, counter);
	if (len && !sw.key.empty() && !sign_ctrl_frame(out, len, sw.key))
		return 0;
	return len;
}

bool is_job_query(const RxFrame &rx, const Endpoint &self, uint16_t *job)
{
	const InaFrame &f = rx.ina;
	if (!rx.is(INA_TYPE_CONTROL) || f.dst_ip != self.ip || f.payload_len == 0 ||
	    f.payload[0] != INA_CTRL_JOB_QUERY)
		return false;
	*job = f.hdr.job_id;
	return true;
}

uint32_t build_job_info(const RxFrame &query, const Endpoint &self, uint16_t elements, uint8_t epoch,
			uint8_t *out, uint32_t cap)
{
	const InaFrame &f = query.ina;
	CtrlMessage q;
	Endpoint src, dst;
	uint32_t udp_len;
	if (query.verdict != FrameVerdict::kOk ||
	    decode_ctrl(f.payload, f.payload_len, &q) != CtrlVerdict::kOk || q.op != INA_CTRL_JOB_QUERY ||
	    !parse_frame_headers(query.data, query.len, &src, &dst, &udp_len))
		return 0;
	CtrlMessage m;
	m.op = INA_CTRL_JOB_INFO;
	m.status = elements ? INA_CTRL_APPLIED : INA_CTRL_INVALID;
	m.ps_ip = self.ip;
	memcpy(m.ps_mac, self.mac, 6);
	m.counter = q.counter;
	m.elements = elements;
	m.epoch = elements ? epoch : 0;
	/* Back the way the query came (its source MAC is the last hop's),
	 * to the INA port like every INA frame: the classifiers of switches
	 * and hosts know no other. */
	src.port = INA_UDP_PORT;
	return write_ctrl_frame(out, cap, self, src, f.hdr.job_id, m);
}

const char *control_state_name(ControlClient::State s)
{
	switch (s) {
	case ControlClient::State::kIdle:
		return "idle";
	case ControlClient::State::kPending:
		return "pending";
	case ControlClient::State::kApplied:
		return "applied";
	case ControlClient::State::kDenied:
		return "denied";
	case ControlClient::State::kInvalid:
		return "invalid";
	case ControlClient::State::kTimedOut:
		return "timed out";
	}
	return "?";
}

ControlClient::ControlClient(const Endpoint &self, Timing t) : self_(self), timing_(t) {}

uint64_t ControlClient::next_counter(uint64_t wall_ns)
{
	/* The switch keeps the last counter it accepted from this IP: a
	 * restarted PS continues above it because its clock did, and two
	 * requests within one clock tick still increase. */
	last_counter_ = std::max(last_counter_ + 1, wall_ns);
	return last_counter_;
}

void ControlClient::start_request(uint32_t k, const Request &req, uint64_t now_us, uint64_t timeout_us)
{
	Request &r = req_[k];
	r = req;
	r.state = State::kPending;
	r.deadline_us = now_us + timeout_us;
	r.next_us = now_us;
	r.backoff_ms = timing_.first_retry_ms;
}

void ControlClient::start(const PsJobConfig &job, bool unregister, uint64_t now_us, uint64_t timeout_us)
{
	Request r;
	r.job = &job;
	r.unregister = unregister;
	start_request(key(job.job, 0), r, now_us, timeout_us);
}

void ControlClient::start_goat(const PsJobConfig &job, size_t sw, bool remove, uint64_t now_us,
			       uint64_t timeout_us)
{
	Request r;
	r.job = &job;
	r.goat = &job.goat[sw];
	r.unregister = remove;
	start_request(key(job.job, r.goat->id), r, now_us, timeout_us);
}

uint32_t ControlClient::write_request(const Request &r, uint64_t counter, uint8_t *out) const
{
	if (r.goat)
		return build_goat_request(*r.job, *r.goat, self_, r.unregister, counter, out,
					  INA_FRAME_LEN(INA_MAX_ELEMENTS));
	return build_ctrl_request(*r.job, self_, r.unregister, counter, epoch(r.job->job), out,
				  INA_FRAME_LEN(INA_MAX_ELEMENTS));
}

void ControlClient::poll(uint64_t now_us, uint64_t wall_ns, TxQueue &tx)
{
	for (auto &[k, r] : req_) {
		if (r.state != State::kPending)
			continue;
		if (now_us >= r.deadline_us) {
			r.state = State::kTimedOut;
			continue;
		}
		if (now_us < r.next_us)
			continue;
		uint8_t *out = tx.reserve();
		if (!out)
			return; /* full: the next poll sends it */
		const uint64_t counter = next_counter(wall_ns);
		const uint32_t len = write_request(r, counter, out);
		if (!len) {
			r.state = State::kInvalid; /* cannot be written: no switch, too many workers */
			continue;
		}
		tx.commit(len);
		stats_.sent++;
		if (!r.attempts++)
			r.first_counter = counter;
		r.last_counter = counter;
		r.next_us = now_us + uint64_t(r.backoff_ms) * 1000;
		r.backoff_ms = std::min(r.backoff_ms * 2, timing_.max_retry_ms);
	}
}

/* The pending request of the frame's job that an ACK answers: from the
 * switch it went to, with a counter of one of its copies (a resend may
 * cross the acknowledgement of an earlier one). */
ControlClient::Request *ControlClient::match(const InaFrame &f, const CtrlMessage &m)
{
	for (auto it = req_.lower_bound(key(f.hdr.job_id, 0)); it != req_.end() && (it->first >> 16) == f.hdr.job_id;
	     ++it) {
		Request &r = it->second;
		const uint32_t from = r.goat ? r.goat->ip : r.job->switch_ip;
		if (r.state == State::kPending && r.attempts && f.src_ip == from && f.dst_ip == self_.ip &&
		    m.counter >= r.first_counter && m.counter <= r.last_counter)
			return &r;
	}
	return nullptr;
}

bool ControlClient::take(const RxFrame &rx)
{
	if (!rx.is(INA_TYPE_CONTROL))
		return false;
	const InaFrame &f = rx.ina;
	CtrlMessage m;
	Request *r = nullptr;
	if (decode_ctrl(f.payload, f.payload_len, &m) == CtrlVerdict::kOk && m.op == INA_CTRL_ACK)
		r = match(f, m);
	/* Signed with the key of the switch the request went to. */
	const CtrlKey *k = r ? (r->goat ? &r->goat->key : &r->job->switch_key) : nullptr;
	if (!r || (!k->empty() && !verify_ctrl_frame(rx.data, f, *k))) {
		stats_.ignored++;
		return true;
	}
	stats_.acks++;
	r->state = m.status == INA_CTRL_APPLIED	 ? State::kApplied
		   : m.status == INA_CTRL_DENIED ? State::kDenied
						 : State::kInvalid;
	r->cap = r->state == State::kApplied && !r->unregister ? f.hdr.elem_count : 0;
	if (r->state == State::kApplied && !r->goat) {
		if (r->unregister)
			epoch_.erase(r->job->job);
		else
			epoch_[r->job->job] = ina_flags_epoch(f.hdr.flags);
	}
	return true;
}

uint8_t ControlClient::epoch(uint16_t job) const
{
	auto it = epoch_.find(job);
	return it == epoch_.end() ? 0 : it->second;
}

uint16_t ControlClient::cap(uint16_t job, uint32_t *switch_ip) const
{
	uint16_t least = 0;
	for (auto it = req_.lower_bound(key(job, 0)); it != req_.end() && (it->first >> 16) == job; ++it) {
		const Request &r = it->second;
		if (r.state != State::kApplied || r.cap == 0 || (least && r.cap >= least))
			continue;
		least = r.cap;
		if (switch_ip)
			*switch_ip = r.goat ? r.goat->ip : r.job->switch_ip;
	}
	return least;
}

ControlClient::State ControlClient::state(uint16_t job) const
{
	return goat_state(job, 0);
}

ControlClient::State ControlClient::goat_state(uint16_t job, uint16_t switch_id) const
{
	auto it = req_.find(key(job, switch_id));
	return it == req_.end() ? State::kIdle : it->second.state;
}

bool ControlClient::pending() const
{
	return std::any_of(req_.begin(), req_.end(),
			   [](const auto &kv) { return kv.second.state == State::kPending; });
}

uint32_t ControlClient::attempts(uint16_t job) const
{
	return goat_attempts(job, 0);
}

uint32_t ControlClient::goat_attempts(uint16_t job, uint16_t switch_id) const
{
	auto it = req_.find(key(job, switch_id));
	return it == req_.end() ? 0 : it->second.attempts;
}

bool ps_resume_runs(const std::vector<std::string> &items, const std::vector<PsJobConfig> &jobs,
		    ControlClient &control, std::string *err)
{
	std::vector<uint16_t> seen;
	for (const std::string &item : items) {
		const size_t eq = item.find('=');
		char *end = nullptr;
		const std::string job_text = item.substr(0, eq), epoch_text = eq == std::string::npos ? "" : item.substr(eq + 1);
		const unsigned long job = strtoul(job_text.c_str(), &end, 10);
		const bool job_ok = !job_text.empty() && isdigit(static_cast<unsigned char>(job_text[0])) && !*end;
		const unsigned long epoch = strtoul(epoch_text.c_str(), &end, 10);
		const bool epoch_ok = !epoch_text.empty() && isdigit(static_cast<unsigned char>(epoch_text[0])) && !*end;
		if (!job_ok || !epoch_ok || epoch < 1 || epoch > 255) {
			*err = "'" + item + "': want JOB=EPOCH, EPOCH 1..255 (the epoch `ina-ps: job N epoch E` printed)";
			return false;
		}
		const bool served = std::any_of(jobs.begin(), jobs.end(), [&](const PsJobConfig &c) { return c.job == job; });
		if (!served) {
			*err = "'" + item + "': job " + job_text + " is not one of this PS's jobs (--job)";
			return false;
		}
		if (std::find(seen.begin(), seen.end(), job) != seen.end()) {
			*err = "'" + item + "': job " + job_text + " named twice";
			return false;
		}
		seen.push_back(static_cast<uint16_t>(job));
		control.resume(static_cast<uint16_t>(job), static_cast<uint8_t>(epoch));
	}
	return true;
}

} /* namespace ina */
