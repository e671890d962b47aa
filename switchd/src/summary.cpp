/* SPDX-License-Identifier: BSD-3-Clause */
#include "summary.h"

#include <algorithm>
#include <vector>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring.h>
#include <spdlog/spdlog.h>


namespace switchd {

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

std::string control_summary(const App &app, const std::string &prefix)
{
	return fmt::format("{}control accepted {} malformed {} auth_drops {} replay_drops {} denied {} "
			   "ring_drops {} acks {} ack_drops {} lease_expiries {}",
			   prefix, app.control_ok.load(), app.control_bad.load(), app.control_auth_drops.load(),
			   app.control_replay_drops.load(), app.control_denied.load(),
			   lcore_totals(app)[LcoreCtr::control_drops], app.control_acks.load(), app.control_ack_drops.load(),
			   app.lease_expiries.load());
}

namespace {

/* One counter list as the summaries walk it: its size, and the name and
 * kind of each counter by position. */
struct CounterList {
	size_t size;
	const char *(*name)(size_t);
	ina::CounterKind (*kind)(size_t);
};

const CounterList kPortList{
	PortCounters::size(), [](size_t i) { return kPortCounterNames[i]; },
	[](size_t i) { return kPortCounterKinds[i]; }};
const CounterList kLcoreList{
	LcoreCounters::size(), [](size_t i) { return kLcoreCounterNames[i]; },
	[](size_t i) { return kLcoreCounterKinds[i]; }};
const CounterList kJobList{
	JobCounters::size(), [](size_t i) { return kJobCounterNames[i]; },
	[](size_t i) { return kJobCounterKinds[i]; }};
const CounterList kPipelineList{
	ina::kCounterCount, [](size_t i) { return ina::counter_name(static_cast<ina::Counter>(i)); },
	[](size_t i) { return ina::counter_kind(static_cast<ina::Counter>(i)); }};
const CounterList kNrList{
	ina::kNrCounterCount, [](size_t i) { return ina::nr_counter_name(static_cast<ina::NrCounter>(i)); },
	[](size_t i) { return ina::nr_counter_kind(static_cast<ina::NrCounter>(i)); }};

/* The sum of a list's drop counters. */
uint64_t drop_sum(const CounterList &l, const uint64_t *v)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < l.size; i++)
		if (l.kind(i) == ina::CounterKind::kDrop)
			sum += v[i];
	return sum;
}

/* Appends " name=N" for each non-zero drop counter of a list. */
void add_drops(std::string &out, const CounterList &l, const uint64_t *v)
{
	for (size_t i = 0; i < l.size; i++)
		if (l.kind(i) == ina::CounterKind::kDrop && v[i])
			out += fmt::format(" {}={}", l.name(i), v[i]);
}

/* The drop counters an lcore keeps apart from its ports': its own, its
 * pipeline's and its NetReduce stage's. */
uint64_t lcore_drops(const Lcore &lc, std::string *names)
{
	if (names) {
		add_drops(*names, kLcoreList, lc.ctr.v);
		add_drops(*names, kPipelineList, lc.pipeline.v);
		add_drops(*names, kNrList, lc.nr_ctr.v);
	}
	return drop_sum(kLcoreList, lc.ctr.v) + drop_sum(kPipelineList, lc.pipeline.v) +
	       drop_sum(kNrList, lc.nr_ctr.v);
}

/* " | <what>: name=N ..." when the counters hold a drop. */
void add_section(std::string &out, const std::string &what, const CounterList &l, const uint64_t *v)
{
	if (drop_sum(l, v))
		add_drops(out += " | " + what + ":", l, v);
}

/* "drops N: name=N ...", or "drops 0", for one port's or job's counters. */
std::string drops_of(const CounterList &l, const uint64_t *v)
{
	const uint64_t n = drop_sum(l, v);
	std::string s = fmt::format("drops {}", n);
	if (n)
		add_drops(s += ":", l, v);
	return s;
}

/* The switch's drop counters summed over lcores and ports, by name: the
 * lists share no name (a job's counters repeat the lcores' and are not in
 * this sum). */
std::string switch_drops(const App &app, uint64_t *total)
{
	LcoreCounters l = lcore_totals(app);
	ina::PipelineCounters pc = pipeline_totals(app);
	ina::NrCounters nr;
	PortCounters ports;
	for (const auto &lc : app.lcores)
		for (size_t i = 0; i < ina::kNrCounterCount; i++)
			nr.v[i] += lc->nr_ctr.v[i];
	for (size_t p = 0; p < app.cfg.ports.size(); p++) {
		PortCounters c = port_totals(app, p);
		for (size_t i = 0; i < PortCounters::size(); i++)
			ports.v[i] += c.v[i];
	}
	*total = drop_sum(kLcoreList, l.v) + drop_sum(kPipelineList, pc.v) + drop_sum(kNrList, nr.v) +
		 drop_sum(kPortList, ports.v);
	std::string s;
	add_drops(s, kLcoreList, l.v);
	add_drops(s, kPipelineList, pc.v);
	add_drops(s, kNrList, nr.v);
	add_drops(s, kPortList, ports.v);
	return s;
}

/* "drops N: name=N ... | lcore k: ... | port P: ... | job J: ...", or
 * "drops 0". */
std::string drops_text(const App &app, bool all_jobs)
{
	uint64_t total = 0;
	std::string s = switch_drops(app, &total);
	if (!total)
		return "drops 0";
	s = fmt::format("drops {}:{}", total, s);
	if (app.lcores.size() > 1)
		for (const auto &lc : app.lcores) {
			std::string names;
			if (lcore_drops(*lc, &names))
				s += fmt::format(" | lcore {}:{}", lc->index, names);
		}
	for (size_t p = 0; p < app.cfg.ports.size(); p++)
		add_section(s, "port " + app.cfg.ports[p].name, kPortList, port_totals(app, p).v);
	/* Every job id only once the lcores stopped: a pass over the 65536
	 * ids of every lcore's counters each period would sweep megabytes
	 * through the cache the lcores share. */
	std::vector<uint16_t> ids = app.jobs_owner->ids();
	if (all_jobs) {
		ids.resize(65536);
		for (uint32_t id = 0; id < 65536; id++)
			ids[id] = static_cast<uint16_t>(id);
	}
	for (uint16_t id : ids)
		add_section(s, "job " + std::to_string(id), kJobList, job_totals(app, id).v);
	return s;
}

} /* namespace */

Accounting accounting(const App &app)
{
	Accounting a;
	uint64_t handed_out = 0, handed_in = 0;
	const uint64_t other_ports = app.cfg.ports.size() - 1;
	for (const auto &lc : app.lcores) {
		const LcoreCounters &c = lc->ctr;
		for (const PortCounters &p : lc->port_ctr) {
			a.rx += p[PortCtr::rx_packets];
			a.tx += p[PortCtr::tx_packets];
			a.drops += drop_sum(kPortList, p.v);
			a.queued += p[PortCtr::queue_depth];
		}
		a.drops += lcore_drops(*lc, nullptr);
		/* A copy that found no mbuf is made and dropped (its drop counter). */
		a.made += c[LcoreCtr::multicast_copies] + c[LcoreCtr::multicast_alloc_drops] +
			  c[LcoreCtr::flooded] * other_ports + c[LcoreCtr::netreduce_results] +
			  c[LcoreCtr::netreduce_result_drops] + c[LcoreCtr::netreduce_alloc_drops];
		/* Multicast and flood replace a packet by its copies. */
		a.consumed += c[LcoreCtr::absorbed] + c[LcoreCtr::control_received] +
			      lc->pipeline[ina::Counter::multicast] + c[LcoreCtr::flooded];
		handed_out += c[LcoreCtr::handoff_out];
		handed_in += c[LcoreCtr::handoff_in];
	}
	a.made += app.control_acks.load();
	a.queued += handed_out - handed_in;
	for (rte_ring *r : app.control_tx)
		a.queued += rte_ring_count(r);
	return a;
}

std::string summary_line(const App &app, double seconds, const std::string &prefix, bool all_jobs)
{
	uint64_t rx = 0, tx = 0, ecn = 0;
	for (size_t p = 0; p < app.cfg.ports.size(); p++) {
		PortCounters c = port_totals(app, p);
		rx += c[PortCtr::rx_packets];
		tx += c[PortCtr::tx_packets];
		ecn += c[PortCtr::ecn_marks];
	}
	LcoreCounters l = lcore_totals(app);
	ina::PipelineCounters pc = pipeline_totals(app);
	return fmt::format("{}{:.1f}s rx {} tx {} aggregated {} completed {} collisions {} multicast {} "
			   "unregistered {} ecn_marks {} handoff {} jobs {} aggregators_in_use {} {}",
			   prefix, seconds, rx, tx, pc[ina::Counter::aggregated], pc[ina::Counter::completed],
			   pc[ina::Counter::collision], pc[ina::Counter::multicast],
			   l[LcoreCtr::unregistered_job], ecn, l[LcoreCtr::handoff_out], app.jobs_owner->size(),
			   occupancy(app), drops_text(app, all_jobs));
}

void TooWideLog::check(const App &app)
{
	for (uint16_t id : app.jobs_owner->ids()) {
		if (logged_[id])
			continue;
		const JobCounters c = job_totals(app, id);
		if (!c[JobCtr::too_wide])
			continue;
		logged_[id] = true;
		spdlog::warn("job {}: a gradient of {} elements is wider than this switch's aggregators "
			     "({} elements): its gradients go to the PS unaggregated (too_wide in "
			     "/ina/job,{}); its PS did not learn this switch's cap (docs/protocol.md, "
			     "\"Fragment size\")",
			     id, c[JobCtr::too_wide_elements], app.cfg.elements, id);
	}
}

void log_final(const App &app)
{
	const SwitchConfig &cfg = app.cfg;
	const double secs = static_cast<double>(rte_rdtsc() - app.start_tsc) / rte_get_tsc_hz();
	spdlog::info("{}", summary_line(app, secs, "final: ", true));
	spdlog::info("{}", control_summary(app, "final: "));
	const Accounting a = accounting(app);
	const std::string acc = fmt::format("final: accounting rx {} + made {} = tx {} + drops {} + "
					    "consumed {} + queued {}, unexplained {}",
					    a.rx, a.made, a.tx, a.drops, a.consumed, a.queued, a.unexplained());
	if (a.unexplained() == 0)
		spdlog::info("{}", acc);
	else
		spdlog::warn("{} (a packet path without a counter: docs/switchd.md, "
			     "\"Where every packet went\")",
			     acc);
	for (size_t p = 0; p < cfg.ports.size(); p++) {
		PortCounters c = port_totals(app, p);
		/* The device's own drops: frames that never reached an lcore. */
		struct rte_eth_stats dev = {};
		rte_eth_stats_get(app.port_id[p], &dev);
		spdlog::info("final: port {} rx {} tx {} ecn_marks {} queue_depth {} device_rx_missed {} "
			     "device_rx_errors {} device_tx_errors {} device_rx_nombuf {} {}",
			     cfg.ports[p].name, c[PortCtr::rx_packets], c[PortCtr::tx_packets],
			     c[PortCtr::ecn_marks], c[PortCtr::queue_depth], dev.imissed, dev.ierrors,
			     dev.oerrors, dev.rx_nombuf, drops_of(kPortList, c.v));
	}
	std::vector<bool> registered(65536, false);
	for (uint16_t id : app.jobs_owner->ids())
		registered[id] = true;
	for (uint32_t id = 0; id < 65536; id++) {
		JobCounters c = job_totals(app, static_cast<uint16_t>(id));
		if (!registered[id] && !drop_sum(kJobList, c.v))
			continue;
		spdlog::info("final: job {} aggregated {} completed {} sent_to_ps {} collisions {} "
			     "too_wide {} multicast {} {}",
			     id, c[JobCtr::aggregated], c[JobCtr::completed], c[JobCtr::sent_to_ps],
			     c[JobCtr::collisions], c[JobCtr::too_wide], c[JobCtr::multicast],
			     drops_of(kJobList, c.v));
	}
	/* Where each lcore's time went, per stage of the chain (runtime.h,
	 * /ina/runtime). */
	for (const auto &lc : app.lcores)
		for (const std::string &line : runtime_table(runtime_rows({&lc->runtime}, rte_get_tsc_hz())))
			spdlog::info("final: runtime lcore {} {}", lc->index, line);
}

} /* namespace switchd */
