/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Registration with the switch, retried until acknowledged
 * (ina/control_client.h).
 */
#include "ina/control_client.h"

#include <algorithm>
#include <cstring>

#include "ina/control_auth.h"

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

void ControlClient::start(const PsJobConfig &job, bool unregister, uint64_t now_us, uint64_t timeout_us)
{
	Request &r = req_[job.job];
	r = Request{};
	r.job = &job;
	r.unregister = unregister;
	r.state = State::kPending;
	r.deadline_us = now_us + timeout_us;
	r.next_us = now_us;
	r.backoff_ms = timing_.first_retry_ms;
}

void ControlClient::poll(uint64_t now_us, uint64_t wall_ns, TxQueue &tx)
{
	for (auto &[id, r] : req_) {
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
		const uint32_t len = build_ctrl_request(*r.job, self_, r.unregister, counter, epoch(id), out,
							INA_FRAME_LEN(INA_MAX_ELEMENTS));
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

bool ControlClient::take(const uint8_t *frame, uint32_t len)
{
	InaFrame f;
	if (parse_ina_frame(frame, len, &f) != FrameVerdict::kOk || f.hdr.type != INA_TYPE_CONTROL)
		return false;
	CtrlMessage m;
	auto it = req_.find(f.hdr.job_id);
	if (decode_ctrl(f.payload, f.payload_len, &m) != CtrlVerdict::kOk || m.op != INA_CTRL_ACK ||
	    it == req_.end() || it->second.state != State::kPending) {
		stats_.ignored++;
		return true;
	}
	Request &r = it->second;
	const PsJobConfig &job = *r.job;
	/* An answer to any copy of this request: a resend may cross the
	 * acknowledgement of an earlier one. */
	const bool ours = f.src_ip == job.switch_ip && f.dst_ip == self_.ip && r.attempts &&
			  m.counter >= r.first_counter && m.counter <= r.last_counter;
	if (!ours || (!job.switch_key.empty() && !verify_ctrl_frame(frame, f, job.switch_key))) {
		stats_.ignored++;
		return true;
	}
	stats_.acks++;
	r.state = m.status == INA_CTRL_APPLIED  ? State::kApplied
		  : m.status == INA_CTRL_DENIED ? State::kDenied
						: State::kInvalid;
	if (r.state == State::kApplied) {
		if (r.unregister)
			epoch_.erase(job.job);
		else
			epoch_[job.job] = ina_flags_epoch(f.hdr.flags);
	}
	return true;
}

uint8_t ControlClient::epoch(uint16_t job) const
{
	auto it = epoch_.find(job);
	return it == epoch_.end() ? 0 : it->second;
}

ControlClient::State ControlClient::state(uint16_t job) const
{
	auto it = req_.find(job);
	return it == req_.end() ? State::kIdle : it->second.state;
}

bool ControlClient::pending() const
{
	return std::any_of(req_.begin(), req_.end(),
			   [](const auto &kv) { return kv.second.state == State::kPending; });
}

uint32_t ControlClient::attempts(uint16_t job) const
{
	auto it = req_.find(job);
	return it == req_.end() ? 0 : it->second.attempts;
}

} /* namespace ina */
