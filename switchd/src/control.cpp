/* SPDX-License-Identifier: BSD-3-Clause */
#include "control.h"

#include <chrono>
#include <thread>

#include <rte_mbuf.h>
#include <spdlog/spdlog.h>

#include "ina/codec.h"

namespace switchd {

void publish_jobs(App &app, std::unique_ptr<JobTable> next)
{
	app.jobs.store(next.get(), std::memory_order_release);
	/* Every lcore passes a quiescent state once per loop: after that none
	 * holds a pointer into the previous table. */
	rte_rcu_qsbr_synchronize(app.rcu, RTE_QSBR_THRID_INVALID);
	app.jobs_owner = std::move(next);
}

void register_job(App &app, const JobConfig &cfg, const char *origin)
{
	auto job = build_job(cfg, *app.fwd);
	for (const std::string &w : job->warnings)
		spdlog::warn("job {}: {}", cfg.id, w);
	std::string ports;
	for (const McastTarget &t : job->mcast)
		ports += fmt::format(" {}:{}", app.cfg.ports[t.port].name,
				     t.unicast ? ipv4_str(t.ip) : std::string("group"));
	spdlog::info("job {} registered ({}): {} workers, levels {}, PS {}, parameter copies to{}",
		     cfg.id, origin, cfg.workers.size(), cfg.levels, ipv4_str(cfg.ps_ip),
		     ports.empty() ? " none" : ports);
	publish_jobs(app, app.jobs_owner->with(std::move(job)));
}

namespace {

void handle_control(App &app, rte_mbuf *m)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	ina::InaFrame f;
	if (m->nb_segs != 1 || ina::parse_ina_frame(frame, m->data_len, &f) != ina::FrameVerdict::kOk ||
	    f.hdr.type != INA_TYPE_CONTROL) {
		app.control_bad++;
		spdlog::warn("control message: not a well-formed single-segment INA control frame, ignored");
		return;
	}
	const uint16_t job_id = f.hdr.job_id;
	uint8_t op = 0;
	JobConfig job;
	std::string err = parse_control(f.payload, f.payload_len, job_id, &op, &job);
	if (!err.empty()) {
		app.control_bad++;
		spdlog::warn("control message for job {} from {} rejected: {}", job_id, ipv4_str(f.src_ip), err);
		return;
	}
	app.control_ok++;
	if (op == INA_CTRL_REGISTER) {
		register_job(app, job, "control message");
	} else {
		spdlog::info("job {} unregistered (control message)", job_id);
		publish_jobs(app, app.jobs_owner->without(job_id));
	}
}

} /* namespace */

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
		for (size_t i = 0; i < JobCounters::size(); i++)
			t.v[i] += lc->job_ctr[job].v[i];
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

std::string summary_line(const App &app, double seconds, const std::string &prefix)
{
	uint64_t rx = 0, tx = 0, drops = 0, ecn = 0;
	for (size_t p = 0; p < app.cfg.ports.size(); p++) {
		PortCounters c = port_totals(app, p);
		rx += c[PortCtr::rx_packets];
		tx += c[PortCtr::tx_packets];
		drops += c[PortCtr::egress_drops] + c[PortCtr::random_drops];
		ecn += c[PortCtr::ecn_marks];
	}
	LcoreCounters l = lcore_totals(app);
	ina::PipelineCounters pc = pipeline_totals(app);
	return fmt::format(
		"{}{:.1f}s rx {} tx {} aggregated {} completed {} collisions {} multicast {} "
		"admission_drops {} unregistered {} egress_drops {} ecn_marks {} no_route {} "
		"handoff {} jobs {} aggregators_in_use {}",
		prefix, seconds, rx, tx, pc[ina::Counter::aggregated], pc[ina::Counter::completed],
		pc[ina::Counter::collision], pc[ina::Counter::multicast], l[LcoreCtr::admission_drops],
		l[LcoreCtr::unregistered_job], drops, ecn, l[LcoreCtr::no_route],
		l[LcoreCtr::handoff_out], app.jobs_owner->size(), occupancy(app));
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
	while (!app.quit) {
		if (clock::now() >= next_link) {
			check_links(app, seen_up);
			next_link += std::chrono::milliseconds(50);
		}
		void *obj;
		bool idle = true;
		while (rte_ring_sc_dequeue(app.control_ring, &obj) == 0) {
			handle_control(app, static_cast<rte_mbuf *>(obj));
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
