/* SPDX-License-Identifier: BSD-3-Clause */
#include "control.h"

#include <chrono>
#include <cstring>
#include <map>
#include <ctime>
#include <thread>

#include <rte_mbuf.h>
#include <spdlog/spdlog.h>

#include "control_gate.h"
#include "goat_install.h"
#include "ina/codec.h"
#include "ina/control_auth.h"
#include "ina/goat_wire.h"
#include "lcore_loop.h"
#include "links.h"
#include "log_limit.h"
#include "registration.h"
#include "summary.h"

namespace switchd {

namespace {

uint64_t wall_ns()
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

uint64_t steady_ns()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
					     std::chrono::steady_clock::now().time_since_epoch())
					     .count());
}

/*
 * The control thread's handling of control messages, in this order:
 * layout (control_bad), MAC (control_auth_drops), counter
 * (control_replay_drops), content (control_bad, ACK "invalid"), who may
 * change the job (control_denied, ACK "denied"), then applied (control_ok,
 * ACK "applied"). Only authentic messages are answered: a forged one gets
 * nothing back, so the switch cannot be used to reflect traffic.
 */
class ControlPlane {
public:
	explicit ControlPlane(App &app) : app_(app), gate_(app.cfg.jobs, app.cfg.control_window_s) {}

	void handle(rte_mbuf *m)
	{
		const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
		/* The header as classify() decoded it, in the mbuf's PacketDesc:
		 * only the lengths and the payload are read here. */
		ina::InaFrame f;
		if (m->nb_segs != 1 ||
		    ina::control_frame_from_view(frame, m->data_len, desc(m)->ina, &f) != ina::FrameVerdict::kOk)
			return malformed(0, "not a well-formed single-segment INA control frame");
		if (f.payload_len && f.payload[0] == INA_CTRL_GOAT)
			return handle_goat(m, frame, f);
		const ina::CtrlVerdict v = ina::decode_ctrl(f.payload, f.payload_len, &msg_);
		if (v != ina::CtrlVerdict::kOk)
			return malformed(f.src_ip, ina::ctrl_verdict_name(v));
		if (msg_.op == INA_CTRL_ACK)
			return malformed(f.src_ip, "an ACK sent to the switch");
		if (msg_.op == INA_CTRL_JOB_QUERY || msg_.op == INA_CTRL_JOB_INFO)
			return malformed(f.src_ip, "a job query or job info (worker <-> PS) sent to the switch");
		if (!authentic_and_fresh(frame, f, "control message"))
			return;
		JobConfig job;
		std::string err = job_from_control(msg_, f.hdr.job_id, &job);
		if (err.empty() && msg_.ps_ip != f.src_ip)
			err = "ps_ip " + ipv4_str(msg_.ps_ip) + " is not the sender";
		if (!err.empty()) {
			app_.control_bad.inc();
			warn(log_bad_, "control message for job {} from {} rejected: {}", f.hdr.job_id,
			     ipv4_str(f.src_ip), err);
			return ack(m, f, INA_CTRL_INVALID);
		}
		if (!gate_.may_change(job.id, f.src_ip)) {
			app_.control_denied.inc();
			warn(log_denied_, "control message for job {} from {} denied: the job belongs to {}",
			     job.id, ipv4_str(f.src_ip), owner_text(job.id));
			return ack(m, f, INA_CTRL_DENIED);
		}
		if (msg_.op == INA_CTRL_REGISTER && stale_renewal(job.id, ina_flags_epoch(f.hdr.flags))) {
			app_.control_denied.inc();
			warn(log_denied_, "renewal of job {} epoch {} from {} denied: the job's run here is epoch {}",
			     job.id, ina_flags_epoch(f.hdr.flags), ipv4_str(f.src_ip), last_epoch_[job.id]);
			return ack(m, f, INA_CTRL_DENIED);
		}
		app_.control_ok.inc();
		const std::string origin = "control message from " + ipv4_str(f.src_ip);
		uint8_t epoch = 0;
		if (msg_.op == INA_CTRL_REGISTER) {
			epoch = run_epoch(job.id, ina_flags_epoch(f.hdr.flags));
			register_job(app_, job, origin.c_str(), epoch);
			gate_.registered(job.id, f.src_ip);
			refreshed_[job.id] = steady_ns();
		} else {
			spdlog::info("job {} unregistered ({})", job.id, origin);
			publish_jobs(app_, app_.jobs_owner->without(job.id));
			drop_goat(job.id, origin.c_str());
			gate_.unregistered(job.id);
			refreshed_.erase(job.id);
		}
		ack(m, f, INA_CTRL_APPLIED, epoch);
	}

	/* A GOAT assignment (goat_assign.h), checked in the same order as a
	 * registration and allowed to the same senders. */
	void handle_goat(rte_mbuf *m, const uint8_t *frame, const ina::InaFrame &f)
	{
		GoatJobConfig g;
		g.job = f.hdr.job_id;
		uint32_t ps_ip = 0;
		g.from_control = true;
		std::string err = ina::goat_ctrl_parse(f.payload, f.payload_len, &g.ranges, &ps_ip, &msg_.counter);
		if (!err.empty())
			return malformed(f.src_ip, err.c_str());
		if (!authentic_and_fresh(frame, f, "GOAT control message"))
			return;
		if (ps_ip != f.src_ip)
			err = "ps_ip " + ipv4_str(ps_ip) + " is not the sender";
		if (err.empty())
			err = goat_check_ranges(&g.ranges, app_.cfg.aggregators);
		if (err.empty() && !gate_.may_change(g.job, f.src_ip)) {
			app_.control_denied.inc();
			warn(log_denied_, "GOAT control message for job {} from {} denied: the job belongs to {}",
			     g.job, ipv4_str(f.src_ip), owner_text(g.job));
			return ack(m, f, INA_CTRL_DENIED);
		}
		const std::string origin = "control message from " + ipv4_str(f.src_ip);
		if (err.empty())
			err = install_goat(app_, g, origin.c_str());
		if (!err.empty()) {
			app_.control_bad.inc();
			warn(log_bad_, "GOAT control message for job {} from {} rejected: {}", g.job,
			     ipv4_str(f.src_ip), err);
			return ack(m, f, INA_CTRL_INVALID);
		}
		app_.control_ok.inc();
		ack(m, f, INA_CTRL_APPLIED);
	}

	/* The MAC, then the counter (msg_.counter, decoded by the caller) of a
	 * control message of either kind; false, counted and logged (rate
	 * limited, `what` naming the kind) when it is dropped. */
	bool authentic_and_fresh(const uint8_t *frame, const ina::InaFrame &f, const char *what)
	{
		if (!authentic(frame, f)) {
			app_.control_auth_drops.inc();
			warn(log_auth_, "{} for job {} from {} dropped: {}", what, f.hdr.job_id, ipv4_str(f.src_ip),
			     app_.cfg.control_key.empty() ? "no control key configured"
							  : "wrong MAC (not signed with this switch's key)");
			return false;
		}
		if (!gate_.fresh(f.src_ip, msg_.counter, wall_ns())) {
			app_.control_replay_drops.inc();
			warn(log_replay_,
			     "{} for job {} from {} dropped: counter {} replayed or outside the {} s window of this "
			     "switch's clock",
			     what, f.hdr.job_id, ipv4_str(f.src_ip), msg_.counter, app_.cfg.control_window_s);
			return false;
		}
		return true;
	}

	/* A job whose PS said it repeats its registration every refresh_ms and
	 * has not done so for lease_refreshes of them is removed, as if its PS
	 * had unregistered it: its PS died, and its aggregators and multicast
	 * group must not outlive it. */
	void expire_leases(uint64_t now_ns)
	{
		for (auto it = refreshed_.begin(); it != refreshed_.end();) {
			const uint16_t id = it->first;
			const Job *j = app_.jobs_owner->find(id);
			if (!j || !j->cfg.refresh_ms || !app_.cfg.lease_refreshes) {
				it = refreshed_.erase(it);
				continue;
			}
			const uint64_t lease_ns = uint64_t(j->cfg.refresh_ms) * app_.cfg.lease_refreshes * 1000000u;
			if (now_ns - it->second <= lease_ns) {
				++it;
				continue;
			}
			spdlog::warn("job {} expired: PS {} has not renewed its registration for {} ms "
				     "(lease_refreshes {} x refresh_ms {})",
				     id, ipv4_str(j->cfg.ps_ip), (now_ns - it->second) / 1000000u,
				     app_.cfg.lease_refreshes, j->cfg.refresh_ms);
			publish_jobs(app_, app_.jobs_owner->without(id));
			drop_goat(id, "lease expired");
			gate_.unregistered(id);
			app_.lease_expiries.inc();
			it = refreshed_.erase(it);
		}
	}

private:
	/* A GOAT assignment its PS installed goes with the job's registration
	 * (unregistered or expired), so that a dead PS's ranges do not stay
	 * reserved; one from the config stays. */
	void drop_goat(uint16_t job, const char *origin)
	{
		const GoatAssignment *a = app_.goat_owner->find(job);
		if (!a || !a->cfg.from_control)
			return;
		GoatJobConfig none;
		none.job = job;
		install_goat(app_, none, origin);
	}

	/* A renewal from a PS of an older run (docs/ps.md, "Restarting a
	 * PS"): its epoch is not the job's run. That is the job's current
	 * registration's epoch, or, with none (a lease expired, the PS
	 * unregistered), the last epoch this switch gave the job; a switch
	 * that has given the job none since it started takes the renewal's.
	 * One exception: a new run nobody has renewed yet yields to the run
	 * before it. A PS whose new-run request was resent (its ACK late)
	 * got two epochs and kept the first ACK's; the second run is that
	 * resend, not another PS's. */
	bool stale_renewal(uint16_t id, uint8_t held) const
	{
		if (msg_.status != INA_CTRL_RENEW || held == 0)
			return false;
		if (!renewed_[id] && held == prev_epoch_[id])
			return false;
		const Job *cur = app_.jobs_owner->find(id);
		if (cur && cur->epoch_checked)
			return cur->epoch != held;
		return last_epoch_[id] != 0 && last_epoch_[id] != held;
	}

	/* The epoch of a REGISTER (docs/protocol.md, "Epochs"): a renewal
	 * keeps the epoch its PS holds (and takes it back after a switch
	 * restart or a lease expiry, so the running job carries on); a new run
	 * gets the next one, 1..255, never 0 (a config job's). */
	uint8_t run_epoch(uint16_t id, uint8_t held)
	{
		uint8_t e = held;
		if (msg_.status != INA_CTRL_RENEW || held == 0) {
			e = static_cast<uint8_t>(last_epoch_[id] + 1);
			if (e == 0)
				e = 1;
			prev_epoch_[id] = last_epoch_[id];
			renewed_[id] = false;
		} else {
			renewed_[id] = true;
		}
		last_epoch_[id] = e;
		return e;
	}

	template <typename... Args>
	void warn(LogLimit &limit, fmt::format_string<Args...> format, Args &&...args)
	{
		uint64_t suppressed;
		if (!limit.allow(steady_ns(), &suppressed))
			return;
		const std::string line = fmt::format(format, std::forward<Args>(args)...);
		if (suppressed)
			spdlog::warn("{} ({} more of this kind not logged)", line, suppressed);
		else
			spdlog::warn("{}", line);
	}

	void malformed(uint32_t src, const char *why)
	{
		app_.control_bad.inc();
		warn(log_bad_, "control message from {} rejected: {}", src ? ipv4_str(src) : "?", why);
	}

	bool authentic(const uint8_t *frame, const ina::InaFrame &f) const
	{
		if (app_.cfg.control_key.empty())
			return !app_.cfg.control_auth;
		return ina::verify_ctrl_frame(frame, f, app_.cfg.control_key);
	}

	std::string owner_text(uint16_t job) const
	{
		const Job *j = app_.jobs_owner->find(job);
		return j ? "the config or PS " + ipv4_str(j->cfg.ps_ip) : "another sender";
	}

	/* Answers the sender of `req`: toward its neighbour entry, else back
	 * out of the arrival port to its MAC. */
	void ack(const rte_mbuf *req, const ina::InaFrame &f, uint8_t status, uint8_t epoch = 0)
	{
		const uint8_t *in = rte_pktmbuf_mtod(req, const uint8_t *);
		uint16_t port;
		ina::Endpoint dst{};
		const NextHop *h = app_.fwd->by_ip(f.src_ip);
		if (h) {
			port = h->port;
			memcpy(dst.mac, h->mac.data(), 6);
		} else if (req->port < app_.port_index.size() && app_.port_index[req->port] >= 0) {
			port = static_cast<uint16_t>(app_.port_index[req->port]);
			memcpy(dst.mac, in + 6, 6);
		} else {
			app_.control_ack_drops.inc();
			return;
		}
		dst.ip = f.src_ip;
		dst.port = INA_UDP_PORT;
		ina::Endpoint src{};
		memcpy(src.mac, app_.port_mac[port].data(), 6);
		src.ip = app_.cfg.ip;
		src.port = INA_UDP_PORT;

		ina::CtrlMessage &a = ack_;
		a.op = INA_CTRL_ACK;
		a.status = status;
		a.n_workers = 0;
		a.levels = 0;
		a.ps_ip = f.src_ip;
		memcpy(a.ps_mac, in + 6, 6);
		memset(a.fan_in, 0, sizeof(a.fan_in));
		a.counter = msg_.counter;
		a.epoch = epoch;
		/* The switch's cap: its ports' MTU and its aggregators are sized
		 * for `elements` (ports.cpp), so a PS never sizes a job's
		 * fragments above it (docs/protocol.md). */
		a.elements = app_.cfg.elements;
		memset(a.mac, 0, sizeof(a.mac));

		rte_mbuf *m = rte_pktmbuf_alloc(app_.pool);
		if (!m) {
			app_.control_ack_drops.inc();
			return;
		}
		uint8_t *out = rte_pktmbuf_mtod(m, uint8_t *);
		const uint32_t len = ina::write_ctrl_frame(out, rte_pktmbuf_tailroom(m), src, dst,
							   f.hdr.job_id, a);
		if (!len || (!app_.cfg.control_key.empty() &&
			     !ina::sign_ctrl_frame(out, len, app_.cfg.control_key))) {
			rte_pktmbuf_free(m);
			app_.control_ack_drops.inc();
			return;
		}
		m->data_len = static_cast<uint16_t>(len);
		m->pkt_len = len;
		if (rte_ring_sp_enqueue(app_.control_tx[port], m) != 0) {
			rte_pktmbuf_free(m);
			app_.control_ack_drops.inc();
			return;
		}
		app_.control_acks.inc();
	}

	App &app_;
	ControlGate gate_;
	ina::CtrlMessage msg_, ack_; /* 4 KiB each: not on the stack per message */
	std::map<uint16_t, uint64_t> refreshed_; /* job -> last registration (steady ns) */
	std::vector<uint8_t> last_epoch_ = std::vector<uint8_t>(65536, 0); /* job -> last epoch given */
	std::vector<uint8_t> prev_epoch_ = std::vector<uint8_t>(65536, 0); /* job -> the epoch before its last new run */
	std::vector<bool> renewed_ = std::vector<bool>(65536, false);      /* job -> its run renewed since it began */
	LogLimit log_bad_, log_auth_, log_replay_, log_denied_;
};

} /* namespace */

void control_loop(App &app)
{
	using clock = std::chrono::steady_clock;
	const auto start = clock::now();
	auto next = start + std::chrono::seconds(app.cfg.stats_interval_s);
	auto next_link = start;
	std::vector<uint8_t> seen_up(app.port_id.size(), 0);
	auto plane = std::make_unique<ControlPlane>(app);
	TooWideLog too_wide;
	while (!app.quit.load(std::memory_order_relaxed)) {
		if (clock::now() >= next_link) {
			check_links(app, seen_up);
			plane->expire_leases(steady_ns());
			too_wide.check(app);
			next_link += std::chrono::milliseconds(50);
		}
		void *obj;
		bool idle = true;
		while (rte_ring_sc_dequeue(app.control_ring, &obj) == 0) {
			plane->handle(static_cast<rte_mbuf *>(obj));
			rte_pktmbuf_free(static_cast<rte_mbuf *>(obj));
			idle = false;
		}
		const auto now = clock::now();
		if (app.cfg.stats_interval_s && now >= next) {
			spdlog::info("{}", summary_line(app, std::chrono::duration<double>(now - start).count(), ""));
			next += std::chrono::seconds(app.cfg.stats_interval_s);
		}
		if (idle)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
}

} /* namespace switchd */
