/* SPDX-License-Identifier: BSD-3-Clause */
#include "control.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <ctime>
#include <thread>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <spdlog/spdlog.h>

#include "control_gate.h"
#include "ina/codec.h"
#include "ina/control_auth.h"
#include "ina/goat_wire.h"
#include "lcore_loop.h"
#include "log_limit.h"
#include "summary.h"

namespace switchd {

void publish_jobs(App &app, std::unique_ptr<JobTable> next)
{
	app.jobs.store(next.get(), std::memory_order_release);
	/* Every lcore passes a quiescent state once per loop: after that none
	 * holds a pointer into the previous table. */
	rte_rcu_qsbr_synchronize(app.rcu, RTE_QSBR_THRID_INVALID);
	app.jobs_owner = std::move(next);
}

void publish_goat(App &app, std::unique_ptr<GoatTable> next)
{
	app.goat.store(next.get(), std::memory_order_release);
	rte_rcu_qsbr_synchronize(app.rcu, RTE_QSBR_THRID_INVALID);
	app.goat_owner = std::move(next);
}

namespace {

bool same_ranges(const std::vector<GoatRange> &a, const std::vector<GoatRange> &b)
{
	if (a.size() != b.size())
		return false;
	for (size_t i = 0; i < a.size(); i++)
		if (a[i].first != b[i].first || a[i].end != b[i].end || a[i].fan_in != b[i].fan_in ||
		    a[i].children != b[i].children)
			return false;
	return true;
}

} /* namespace */

std::string install_goat(App &app, const GoatJobConfig &g, const char *origin)
{
	/* A PS repeats its assignment with its registration: the same one
	 * again changes nothing and is not logged. */
	const GoatAssignment *old = app.goat_owner->find(g.job);
	if ((old && same_ranges(old->cfg.ranges, g.ranges)) || (!old && g.ranges.empty()))
		return "";
	std::string err;
	std::unique_ptr<GoatTable> next =
		g.ranges.empty() ? app.goat_owner->without(g.job) : app.goat_owner->with(g, &err);
	if (!next)
		return err;
	publish_goat(app, std::move(next));
	std::string ranges;
	for (const GoatRange &r : g.ranges)
		ranges += r.fan_in ? fmt::format(" [{}, {}) for {} workers (bits {:#x})", r.first, r.end, r.fan_in,
						 r.children)
				   : fmt::format(" [{}, {})", r.first, r.end);
	std::string subs;
	for (const std::string &s : g.submodels)
		subs += (subs.empty() ? " sub-models " : ", ") + s;
	spdlog::info("job {}: GOAT assignment ({}): switch {} aggregates{}{}{}", g.job, origin,
		     app.cfg.switch_id, ranges.empty() ? " nothing (removed)" : " aggregators" + ranges,
		     subs, g.plan.empty() ? "" : " from plan " + g.plan);
	return "";
}

namespace {

/* Does `b` describe the same job as `a` (a PS's periodic re-registration),
 * or a new one whose aggregators must not inherit a's partial sums? */
bool same_registration(const JobConfig &a, const JobConfig &b)
{
	if (a.ps_ip != b.ps_ip || a.ps_mac != b.ps_mac || a.levels != b.levels || a.fan_in != b.fan_in ||
	    a.workers.size() != b.workers.size())
		return false;
	for (size_t i = 0; i < a.workers.size(); i++)
		if (a.workers[i].ip != b.workers[i].ip || a.workers[i].mac != b.workers[i].mac ||
		    a.workers[i].bit != b.workers[i].bit)
			return false;
	return true;
}

/* The aggregators a job may hold: its [[job]]'s max_aggregators (also
 * when a PS registers it: the operator's limit holds), else the switch's
 * default (job_share). */
uint32_t max_aggregators_of(const SwitchConfig &sw, uint16_t id)
{
	for (const JobConfig &j : sw.jobs)
		if (j.id == id && j.max_aggregators)
			return j.max_aggregators;
	return default_max_aggregators(sw);
}

} /* namespace */

void register_job(App &app, const JobConfig &request, const char *origin, uint8_t epoch, bool epoch_checked)
{
	JobConfig cfg = request;
	if (!cfg.max_aggregators)
		cfg.max_aggregators = max_aggregators_of(app.cfg, cfg.id);
	const Job *old = app.jobs_owner->find(cfg.id);
	if (old && old->epoch == epoch && old->epoch_checked == epoch_checked &&
	    same_registration(old->cfg, cfg)) {
		/* A refresh: same content, the lease (refresh_ms) may change. */
		if (old->cfg.refresh_ms != cfg.refresh_ms || old->cfg.control_allowed != cfg.control_allowed) {
			auto job = std::make_shared<Job>(*old);
			job->cfg.refresh_ms = cfg.refresh_ms;
			job->cfg.control_allowed = cfg.control_allowed;
			publish_jobs(app, app.jobs_owner->with(std::move(job), false));
		}
		return;
	}
	auto job = build_job(cfg, *app.fwd, app.cfg.aggregators, static_cast<unsigned>(app.lcores.size()), epoch,
			     epoch_checked);
	for (const std::string &w : job->warnings)
		spdlog::warn("job {}: {}", cfg.id, w);
	std::string ports;
	for (const McastTarget &t : job->mcast)
		ports += fmt::format(" {}:{}", app.cfg.ports[t.port].name,
				     t.unicast ? ipv4_str(t.ip) : std::string("group"));
	std::string lease = "no lease";
	if (cfg.refresh_ms && app.cfg.lease_refreshes)
		lease = fmt::format("lease {} ms", uint64_t(cfg.refresh_ms) * app.cfg.lease_refreshes);
	spdlog::info("job {} {}registered ({}): epoch {}, {} workers, levels {}, PS {}, {}, max {} of {} aggregators, "
		     "parameter copies to{}",
		     cfg.id, old ? "re-" : "", origin, epoch, cfg.workers.size(), cfg.levels, ipv4_str(cfg.ps_ip),
		     lease, cfg.max_aggregators, app.cfg.aggregators, ports.empty() ? " none" : ports);
	/* Replaced by different content: the lcores free what the old
	 * registration holds before the new one's first packet. */
	publish_jobs(app, app.jobs_owner->with(std::move(job), old != nullptr));
}

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

std::string setup_control_tx(App &app)
{
	for (size_t p = 0; p < app.cfg.ports.size(); p++) {
		const std::string name = "ina_ctl_tx" + std::to_string(p);
		rte_ring *r = rte_ring_create(name.c_str(), 64, rte_eth_dev_socket_id(app.port_id[p]),
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!r)
			return "cannot create the control TX ring: " + std::string(rte_strerror(rte_errno));
		app.control_tx.push_back(r);
		app.lcores[0]->egress[p].set_inbox(r);
	}
	const SwitchConfig &cfg = app.cfg;
	if (!cfg.control_key.empty())
		spdlog::info("control messages: HMAC-SHA256 with the key of {}, counters within {} s",
			     cfg.control_key_file, cfg.control_window_s);
	else if (!cfg.control_auth)
		spdlog::warn("control messages: control_auth = false, so any host on the network can "
			     "register, replace or remove jobs (docs/security.md)");
	else
		spdlog::warn("control messages: no control_key_file, every control message is dropped "
			     "(counted as control_auth_drops); jobs come from the config only");
	if (!cfg.control_key_warning.empty())
		spdlog::warn("{}", cfg.control_key_warning);
	return "";
}

std::string control_summary(const App &app, const std::string &prefix)
{
	return fmt::format("{}control accepted {} malformed {} auth_drops {} replay_drops {} denied {} "
			   "ring_drops {} acks {} ack_drops {} lease_expiries {}",
			   prefix, app.control_ok.load(), app.control_bad.load(), app.control_auth_drops.load(),
			   app.control_replay_drops.load(), app.control_denied.load(),
			   lcore_totals(app)[LcoreCtr::control_drops], app.control_acks.load(), app.control_ack_drops.load(),
			   app.lease_expiries.load());
}

PortCounters port_totals(const App &app, size_t port)
{
	PortCounters t;
	for (const auto &lc : app.lcores)
		for (size_t i = 0; i < PortCounters::size(); i++)
			t.v[i] += lc->port_ctr[port].v[i];
	return t;
}

LcoreCounters lcore_totals(const App &app)
{
	LcoreCounters t;
	for (const auto &lc : app.lcores)
		for (size_t i = 0; i < LcoreCounters::size(); i++)
			t.v[i] += lc->ctr.v[i];
	return t;
}

JobCounters job_totals(const App &app, uint16_t job)
{
	JobCounters t;
	for (const auto &lc : app.lcores)
		for (size_t i = 0; i < JobCounters::size(); i++) {
			const uint64_t v = lc->job_ctr[job].v[i];
			/* A gauge is a level, not a sum: the largest lcore's. */
			if (kJobCounterKinds[i] == ina::CounterKind::kGauge)
				t.v[i] = std::max(t.v[i], v);
			else
				t.v[i] += v;
		}
	return t;
}

ina::PipelineCounters pipeline_totals(const App &app)
{
	ina::PipelineCounters t;
	for (const auto &lc : app.lcores)
		for (size_t i = 0; i < ina::kCounterCount; i++)
			t.v[i] += lc->pipeline.v[i];
	return t;
}

uint64_t occupancy(const App &app)
{
	uint64_t n = 0;
	for (const auto &lc : app.lcores)
		n += lc->table->occupied();
	return n;
}

namespace {

/* A port counts as up after two consecutive checks saw it up (a memif
 * peer that has just connected has finished setting up its rings), as
 * down at once. */
void check_links(App &app, std::vector<uint8_t> &seen_up)
{
	for (size_t p = 0; p < app.port_id.size(); p++) {
		struct rte_eth_link link = {};
		rte_eth_link_get_nowait(app.port_id[p], &link);
		const bool up_now = link.link_status == RTE_ETH_LINK_UP;
		const bool was = app.port_up[p].load(std::memory_order_relaxed);
		if (!up_now) {
			seen_up[p] = 0;
			if (was) {
				app.port_up[p].store(0, std::memory_order_relaxed);
				spdlog::warn("port {}: link down", app.cfg.ports[p].name);
			}
		} else if (!was && ++seen_up[p] >= 2) {
			app.port_up[p].store(1, std::memory_order_relaxed);
			spdlog::info("port {}: link up", app.cfg.ports[p].name);
		}
	}
}

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
