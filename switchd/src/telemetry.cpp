/* SPDX-License-Identifier: BSD-3-Clause */
#include "telemetry.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_telemetry.h>

#include "app.h"
#include "lcore_loop.h"
#include "stats.h"
#include "summary.h"

namespace switchd {

namespace {

const App *g_tel_app = nullptr;

/*
 * The callbacks read the lcores' state, which main() frees before
 * rte_eal_cleanup() while DPDK's telemetry thread still answers clients.
 * A callback counts itself in before it looks at g_tel_app; stop_telemetry()
 * closes the door and waits for those inside (both sequentially consistent,
 * so either the callback sees g_stopped or the stopper sees it inside).
 */
std::atomic<bool> g_stopped{false};
std::atomic<int> g_inside{0};

class TelemetryUse {
public:
	TelemetryUse() { g_inside.fetch_add(1); }
	~TelemetryUse() { g_inside.fetch_sub(1); }
	explicit operator bool() const { return !g_stopped.load() && g_tel_app != nullptr; }
};

/*
 * Telemetry reads the job table as an RCU reader, like the lcores: online
 * (thread id app.telemetry_reader) while it holds a pointer into the current
 * version, so that the control thread's rte_rcu_qsbr_synchronize() waits
 * for it before freeing that version. Telemetry clients may run in several
 * threads; they take the one reader id in turn.
 */
class JobsReader {
public:
	explicit JobsReader(const App &app) : app_(app), lock_(mutex_)
	{
		rte_rcu_qsbr_thread_online(app_.rcu, app_.telemetry_reader);
		jobs_ = app_.jobs.load(std::memory_order_acquire);
	}
	~JobsReader() { rte_rcu_qsbr_thread_offline(app_.rcu, app_.telemetry_reader); }
	const JobTable *operator->() const { return jobs_; }

private:
	static std::mutex mutex_;
	const App &app_;
	std::lock_guard<std::mutex> lock_;
	const JobTable *jobs_;
};
std::mutex JobsReader::mutex_;

bool index_param(const char *params, long max, long *out)
{
	if (!params || !*params)
		return false;
	char *end;
	long v = std::strtol(params, &end, 0);
	if (*end || v < 0 || v >= max)
		return false;
	*out = v;
	return true;
}

template <typename C>
void add_counters(rte_tel_data *d, const C &c, const char *const *names)
{
	for (size_t i = 0; i < C::size(); i++)
		rte_tel_data_add_dict_u64(d, names[i], c.load(i));
}

int tel_summary(const char *, const char *, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	const App &app = *g_tel_app;
	rte_tel_data_start_dict(d);
	LcoreCounters l = lcore_totals(app);
	add_counters(d, l, kLcoreCounterNames);
	PortCounters all;
	for (size_t p = 0; p < app.cfg.ports.size(); p++) {
		PortCounters c = port_totals(app, p);
		for (size_t i = 0; i < PortCounters::size(); i++)
			all.v[i] += c.v[i];
	}
	add_counters(d, all, kPortCounterNames);
	/* Each malformed reason, wherever it was found (classify or the switch
	 * program), and their total `malformed`; too_wide is forwarded, not
	 * dropped. The same counters are in /ina/pipeline. */
	const ina::PipelineCounters pc = pipeline_totals(app);
	uint64_t malformed = 0;
	for (size_t i = 0; i < ina::kCounterCount; i++) {
		const auto c = static_cast<ina::Counter>(i);
		if (!ina::counter_is_malformed(c))
			continue;
		rte_tel_data_add_dict_u64(d, ina::counter_name(c), pc.v[i]);
		malformed += pc.v[i];
	}
	rte_tel_data_add_dict_u64(d, "malformed", malformed);
	rte_tel_data_add_dict_u64(d, "too_wide", pc[ina::Counter::too_wide]);
	rte_tel_data_add_dict_u64(d, "jobs", JobsReader(app)->size());
	rte_tel_data_add_dict_u64(d, "aggregators_in_use", occupancy(app));
	rte_tel_data_add_dict_u64(d, "lcores", app.lcores.size());
	rte_tel_data_add_dict_u64(d, "control_accepted", app.control_ok.load());
	rte_tel_data_add_dict_u64(d, "control_rejected", app.control_bad.load());
	rte_tel_data_add_dict_u64(d, "control_auth_drops", app.control_auth_drops.load());
	rte_tel_data_add_dict_u64(d, "control_replay_drops", app.control_replay_drops.load());
	rte_tel_data_add_dict_u64(d, "control_denied", app.control_denied.load());
	rte_tel_data_add_dict_u64(d, "control_acks", app.control_acks.load());
	rte_tel_data_add_dict_u64(d, "lease_expiries", app.lease_expiries.load());
	rte_tel_data_add_dict_u64(d, "control_ack_drops", app.control_ack_drops.load());
	return 0;
}

int tel_ports(const char *, const char *, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (const PortConfig &p : g_tel_app->cfg.ports)
		rte_tel_data_add_array_string(d, p.name.c_str());
	return 0;
}

int tel_port(const char *, const char *params, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	const App &app = *g_tel_app;
	long idx;
	if (!index_param(params, static_cast<long>(app.cfg.ports.size()), &idx))
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", app.cfg.ports[idx].name.c_str());
	rte_tel_data_add_dict_u64(d, "port_id", app.port_id[idx]);
	if (static_cast<size_t>(idx) < app.port_steering.size())
		rte_tel_data_add_dict_string(d, "steering", steering_name(app.port_steering[idx]));
	add_counters(d, port_totals(app, static_cast<size_t>(idx)), kPortCounterNames);
	return 0;
}

int tel_lcores(const char *, const char *, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	for (const auto &lc : g_tel_app->lcores)
		rte_tel_data_add_array_int(d, static_cast<int>(lc->index));
	return 0;
}

int tel_lcore(const char *, const char *params, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	const App &app = *g_tel_app;
	long idx;
	if (!index_param(params, static_cast<long>(app.lcores.size()), &idx))
		return -1;
	const Lcore &lc = *app.lcores[idx];
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "lcore_id", lc.lcore_id);
	rte_tel_data_add_dict_int(d, "socket", static_cast<int>(rte_lcore_to_socket_id(lc.lcore_id)));
	/* where its state is: -1 none, -2 several sockets (numa.h) */
	rte_tel_data_add_dict_int(d, "memory_socket", lc.mem.got);
	rte_tel_data_add_dict_u64(d, "memory_bytes", lc.mem.bytes);
	add_counters(d, lc.ctr, kLcoreCounterNames);
	uint64_t rx = 0, tx = 0;
	for (const PortCounters &pc : lc.port_ctr) {
		rx += pc[PortCtr::rx_packets];
		tx += pc[PortCtr::tx_packets];
	}
	rte_tel_data_add_dict_u64(d, "rx_packets", rx);
	rte_tel_data_add_dict_u64(d, "tx_packets", tx);
	for (size_t i = 0; i < ina::kCounterCount; i++)
		rte_tel_data_add_dict_u64(d, ina::counter_name(static_cast<ina::Counter>(i)),
					  lc.pipeline.v[i]);
	rte_tel_data_add_dict_u64(d, "aggregator_slots", lc.table->slots());
	rte_tel_data_add_dict_u64(d, "aggregators_in_use", lc.table->occupied());
	return 0;
}

int tel_jobs(const char *, const char *, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	for (uint16_t id : JobsReader(*g_tel_app)->ids())
		rte_tel_data_add_array_int(d, id);
	return 0;
}

int tel_job(const char *, const char *params, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	const App &app = *g_tel_app;
	long id;
	if (!index_param(params, 65536, &id))
		return -1;
	rte_tel_data_start_dict(d);
	{
		JobsReader jobs(app);
		const Job *job = jobs->find(static_cast<uint16_t>(id));
		rte_tel_data_add_dict_u64(d, "registered", job != nullptr);
		if (job) {
			rte_tel_data_add_dict_u64(d, "workers", job->cfg.workers.size());
			rte_tel_data_add_dict_u64(d, "epoch", job->epoch);
			rte_tel_data_add_dict_u64(d, "levels", job->cfg.levels);
			rte_tel_data_add_dict_string(d, "ps", ipv4_str(job->cfg.ps_ip).c_str());
			rte_tel_data_add_dict_u64(d, "max_aggregators", job->cfg.max_aggregators);
		}
	}
	/* What the job holds now, over every lcore's job_held (plain loads of
	 * words each lcore alone writes, like the counters). */
	uint64_t held = 0;
	for (const auto &lc : app.lcores)
		held += lc->table->held(static_cast<uint16_t>(id));
	rte_tel_data_add_dict_u64(d, "aggregators_held", held);
	add_counters(d, job_totals(app, static_cast<uint16_t>(id)), kJobCounterNames);
	return 0;
}

int tel_pipeline(const char *, const char *, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	rte_tel_data_start_dict(d);
	ina::PipelineCounters c = pipeline_totals(*g_tel_app);
	for (size_t i = 0; i < ina::kCounterCount; i++)
		rte_tel_data_add_dict_u64(d, ina::counter_name(static_cast<ina::Counter>(i)), c.v[i]);
	return 0;
}

int tel_aggregators(const char *, const char *, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	const App &app = *g_tel_app;
	rte_tel_data_start_dict(d);
	uint64_t slots = 0;
	for (const auto &lc : app.lcores) {
		std::string k = "lcore" + std::to_string(lc->index) + "_in_use";
		rte_tel_data_add_dict_u64(d, k.c_str(), lc->table->occupied());
		slots += lc->table->slots();
	}
	rte_tel_data_add_dict_u64(d, "in_use", occupancy(app));
	rte_tel_data_add_dict_u64(d, "slots", slots);
	return 0;
}

/* The NetReduce stage's counters and CLT occupancy (one lcore runs it). */
int tel_netreduce(const char *, const char *, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	const App &app = *g_tel_app;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rings", app.cfg.netreduce.rings.size());
	ina::NrCounters c;
	uint64_t conns = 0, bytes = 0;
	int64_t lcore = -1;
	for (const auto &lc : app.lcores) {
		for (size_t i = 0; i < ina::kNrCounterCount; i++)
			c.v[i] += lc->nr_ctr.v[i];
		if (lc->nr) {
			conns += lc->nr->connections();
			bytes += lc->nr->bytes();
			lcore = lc->index;
		}
	}
	rte_tel_data_add_dict_u64(d, "connections", conns);
	/* The tables sit in that lcore's memory (/ina/lcore,N memory_socket). */
	rte_tel_data_add_dict_int(d, "lcore", static_cast<int>(lcore));
	rte_tel_data_add_dict_u64(d, "memory_bytes", bytes);
	for (size_t i = 0; i < ina::kNrCounterCount; i++)
		rte_tel_data_add_dict_u64(d, ina::nr_counter_name(static_cast<ina::NrCounter>(i)), c.v[i]);
	return 0;
}

/*
 * /ina/counters,SET: what each number of /ina/summary, /ina/port, /ina/lcore
 * or /ina/job means, for a reader that cannot see the sources (the Prometheus
 * exporter, tools/ina-exporter): name -> "KIND help", KIND one of event (a
 * sum), drop (a sum of packets discarded for that reason), gauge (a level
 * now) or total (a sum of drop counters listed beside it). The help is the
 * counter lists' own column (stats.h, ina/pipeline.h); the few numbers not
 * in a list are described here, where the commands above add them.
 */
#define SWITCHD_HELP(name, kind, help) help,
const char *const kPortCounterHelp[] = {SWITCHD_PORT_COUNTERS(SWITCHD_HELP)};
const char *const kLcoreCounterHelp[] = {SWITCHD_LCORE_COUNTERS(SWITCHD_HELP)};
const char *const kJobCounterHelp[] = {SWITCHD_JOB_COUNTERS(SWITCHD_HELP)};
#undef SWITCHD_HELP

const char *kind_word(ina::CounterKind k)
{
	switch (k) {
	case ina::CounterKind::kDrop:
		return "drop";
	case ina::CounterKind::kGauge:
		return "gauge";
	default:
		return "event";
	}
}

void add_help(rte_tel_data *d, const char *name, const char *kind, const char *help)
{
	const std::string v = std::string(kind) + " " + help;
	rte_tel_data_add_dict_string(d, name, v.c_str());
}

template <typename C>
void add_list_help(rte_tel_data *d, const char *const *names, const ina::CounterKind *kinds,
		   const char *const *help)
{
	for (size_t i = 0; i < C::size(); i++)
		add_help(d, names[i], kind_word(kinds[i]), help[i]);
}

void add_pipeline_help(rte_tel_data *d, bool malformed_only)
{
	for (size_t i = 0; i < ina::kCounterCount; i++) {
		const auto c = static_cast<ina::Counter>(i);
		if (malformed_only && !ina::counter_is_malformed(c) && c != ina::Counter::too_wide)
			continue;
		add_help(d, ina::counter_name(c), kind_word(ina::counter_kind(c)), ina::counter_help(c));
	}
}

int tel_counters(const char *, const char *params, rte_tel_data *d)
{
	if (!params)
		return -1;
	const std::string set(params);
	rte_tel_data_start_dict(d);
	if (set == "summary") {
		add_list_help<LcoreCounters>(d, kLcoreCounterNames, kLcoreCounterKinds, kLcoreCounterHelp);
		add_list_help<PortCounters>(d, kPortCounterNames, kPortCounterKinds, kPortCounterHelp);
		add_pipeline_help(d, true);
		add_help(d, "malformed", "total", "malformed frames dropped, every malformed_* reason");
		add_help(d, "jobs", "gauge", "jobs registered");
		add_help(d, "aggregators_in_use", "gauge", "aggregators held now, every lcore");
		add_help(d, "lcores", "gauge", "data-path lcores");
		add_help(d, "control_accepted", "event", "control messages applied");
		add_help(d, "control_rejected", "event", "control messages refused as malformed");
		add_help(d, "control_auth_drops", "event", "control messages with a bad or missing MAC");
		add_help(d, "control_replay_drops", "event", "control messages replayed (old sequence)");
		add_help(d, "control_denied", "event", "control messages for a job of another PS");
		add_help(d, "control_acks", "event", "ACKs of control messages sent");
		add_help(d, "lease_expiries", "event", "jobs removed because their PS stopped renewing");
		add_help(d, "control_ack_drops", "event", "control ACKs not sent: TX ring full");
	} else if (set == "port") {
		add_list_help<PortCounters>(d, kPortCounterNames, kPortCounterKinds, kPortCounterHelp);
		add_help(d, "port_id", "gauge", "DPDK port id");
	} else if (set == "lcore") {
		add_list_help<LcoreCounters>(d, kLcoreCounterNames, kLcoreCounterKinds, kLcoreCounterHelp);
		add_pipeline_help(d, false);
		add_help(d, "lcore_id", "gauge", "EAL lcore (CPU) id");
		add_help(d, "socket", "gauge", "NUMA socket of the lcore's CPU");
		add_help(d, "memory_socket", "gauge", "NUMA socket of its state (-1 none, -2 several)");
		add_help(d, "memory_bytes", "gauge", "bytes of its state (aggregators, rings)");
		add_help(d, "rx_packets", "event", "packets received, every port");
		add_help(d, "tx_packets", "event", "packets sent, every port");
		add_help(d, "aggregator_slots", "gauge", "aggregators of its table");
		add_help(d, "aggregators_in_use", "gauge", "aggregators of its table held now");
	} else if (set == "job") {
		add_list_help<JobCounters>(d, kJobCounterNames, kJobCounterKinds, kJobCounterHelp);
		add_help(d, "registered", "gauge", "1 while the job is registered");
		add_help(d, "workers", "gauge", "workers of the job");
		add_help(d, "epoch", "gauge", "the job's run (epoch) the switch accepts");
		add_help(d, "levels", "gauge", "aggregation levels of the job");
		add_help(d, "max_aggregators", "gauge", "aggregators the job may hold (job_share)");
		add_help(d, "aggregators_held", "gauge", "aggregators the job holds now");
	} else {
		return -1;
	}
	return 0;
}

/* /ina/trace,N[,LCORE]: record the next N packets (1..512) on every lcore,
 * or on one. Answers the lcores armed. */
int tel_trace(const char *, const char *params, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use || !params)
		return -1;
	const App &app = *g_tel_app;
	char *end;
	const long n = std::strtol(params, &end, 10);
	long only = -1;
	if (*end == ',' && !index_param(end + 1, static_cast<long>(app.lcores.size()), &only))
		return -1;
	if (n < 1 || n > long(PacketTrace::kMaxRecords) || (*end && *end != ','))
		return -1;
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	for (const auto &lc : app.lcores)
		if (only < 0 || long(lc->index) == only) {
			lc->trace.arm(static_cast<uint32_t>(n));
			rte_tel_data_add_array_int(d, static_cast<int>(lc->index));
		}
	return 0;
}

/* One trace record as a flat dict (telemetry nests containers one level):
 * the input, then step_0, step_1, ...: "SET/COUNTER" with "+N" when the
 * counter moved by more than one, "port P/COUNTER" for a port's. */
void add_trace_record(rte_tel_data *r, const TraceRecord &t, uint32_t index, uint32_t recorded, bool pending)
{
	rte_tel_data_start_dict(r);
	rte_tel_data_add_dict_u64(r, "index", index);
	rte_tel_data_add_dict_u64(r, "recorded", recorded);
	rte_tel_data_add_dict_u64(r, "pending", pending); /* a new trace is armed, not started */
	rte_tel_data_add_dict_u64(r, "tsc", t.tsc);
	rte_tel_data_add_dict_string(r, "class", trace_class_name(t.cls));
	if (t.from_lcore != TraceRecord::kNone)
		rte_tel_data_add_dict_u64(r, "from_lcore", t.from_lcore);
	if (t.cls != TraceRecord::kNone) {
		rte_tel_data_add_dict_u64(r, "in_port", t.in_port);
		rte_tel_data_add_dict_string(r, "src", ipv4_str(t.src_ip).c_str());
		rte_tel_data_add_dict_string(r, "dst", ipv4_str(t.dst_ip).c_str());
	}
	if (t.cls == uint8_t(PacketClass::kIna)) {
		const ina::InaView &v = t.ina;
		const std::pair<const char *, uint64_t> fields[] = {
			{"type", v.type}, {"flags", v.flags & 0xFFu}, {"epoch", ina_flags_epoch(v.flags)},
			{"job", v.job}, {"agg_node", v.agg_node}, {"seq", v.seq}, {"agg_index", v.agg_index},
			{"elem_count", v.elem_count}, {"level", v.level}, {"levels", v.levels},
			{"bitmap", v.level_bitmap}, {"fan_in", v.level_fan_in}};
		for (const auto &f : fields)
			rte_tel_data_add_dict_u64(r, f.first, f.second);
	}
	if (t.to_lcore != TraceRecord::kNone)
		rte_tel_data_add_dict_u64(r, "to_lcore", t.to_lcore);
	for (unsigned i = 0; i < t.n_steps; i++) {
		const TraceStep &s = t.steps[i];
		std::string v = s.set == TraceSet::kPort ? "port " + std::to_string(s.port)
							 : std::string(trace_set_name(s.set));
		v += std::string("/") + trace_step_name(s);
		if (s.delta > 1)
			v += "+" + std::to_string(s.delta);
		rte_tel_data_add_dict_string(r, ("step_" + std::to_string(i)).c_str(), v.c_str());
	}
}

/* /ina/trace_read,LCORE[,FIRST]: up to 16 records from FIRST (default 0),
 * each a dict (add_trace_record) under its index; fewer than 16: no more
 * so far. */
int tel_trace_read(const char *, const char *params, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use || !params)
		return -1;
	const App &app = *g_tel_app;
	const std::string p(params);
	const size_t comma = p.find(',');
	long lcore, first = 0;
	if (!index_param(p.substr(0, comma).c_str(), static_cast<long>(app.lcores.size()), &lcore) ||
	    (comma != std::string::npos &&
	     !index_param(p.c_str() + comma + 1, PacketTrace::kMaxRecords, &first)))
		return -1;
	constexpr uint32_t kPage = 16; /* records of ~1 KB: the 16 KB reply */
	std::vector<TraceRecord> recs;
	const PacketTrace &trace = app.lcores[lcore]->trace;
	const bool pending = trace.pending();
	const uint32_t recorded = trace.read(static_cast<uint32_t>(first), kPage, &recs);
	/* A dict of dicts, keyed by record index: DPDK 22.11's array
	 * containers hold arrays only. */
	rte_tel_data_start_dict(d);
	for (size_t i = 0; i < recs.size(); i++) {
		rte_tel_data *r = rte_tel_data_alloc();
		if (!r)
			return -1;
		const uint32_t index = static_cast<uint32_t>(first + i);
		add_trace_record(r, recs[i], index, recorded, pending);
		rte_tel_data_add_dict_container(d, std::to_string(index).c_str(), r, 0);
	}
	return 0;
}

/* /ina/runtime[,LCORE]: per stage of the chain (runtime.h), its calls
 * (bursts), packets, TSC cycles and ns per packet, for one lcore or summed
 * over all; the last entry, "total", is every stage's cycles over the
 * packets received. */
int tel_runtime(const char *, const char *params, rte_tel_data *d)
{
	TelemetryUse use;
	if (!use)
		return -1;
	const App &app = *g_tel_app;
	std::vector<const StageRuntime *> rt;
	if (params && *params) {
		long idx;
		if (!index_param(params, static_cast<long>(app.lcores.size()), &idx))
			return -1;
		rt.push_back(&app.lcores[idx]->runtime);
	} else {
		for (const auto &lc : app.lcores)
			rt.push_back(&lc->runtime);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "lcores", rt.size());
	rte_tel_data_add_dict_u64(d, "tsc_hz", rte_get_tsc_hz());
	for (const RuntimeRow &row : runtime_rows(rt, rte_get_tsc_hz())) {
		rte_tel_data *s = rte_tel_data_alloc();
		if (!s)
			return -1;
		rte_tel_data_start_dict(s);
		rte_tel_data_add_dict_u64(s, "calls", row.calls);
		rte_tel_data_add_dict_u64(s, "packets", row.packets);
		rte_tel_data_add_dict_u64(s, "cycles", row.cycles);
		char ns[32];
		snprintf(ns, sizeof(ns), "%.2f", row.ns_per_pkt);
		rte_tel_data_add_dict_string(s, "ns_per_pkt", ns);
		rte_tel_data_add_dict_container(d, row.stage, s, 0);
	}
	return 0;
}

} /* namespace */

void stop_telemetry()
{
	g_stopped.store(true);
	while (g_inside.load() != 0)
		rte_pause();
}

void register_telemetry(const App &app)
{
	g_tel_app = &app;
	rte_telemetry_register_cmd("/ina/summary", tel_summary, "Totals of ina-switchd. No parameters");
	rte_telemetry_register_cmd("/ina/ports", tel_ports, "Port names, by index. No parameters");
	rte_telemetry_register_cmd("/ina/port", tel_port, "Counters of one port. Parameter: port index");
	rte_telemetry_register_cmd("/ina/lcores", tel_lcores, "Data-path lcore indices. No parameters");
	rte_telemetry_register_cmd("/ina/lcore", tel_lcore,
				   "Counters of one lcore. Parameter: lcore index");
	rte_telemetry_register_cmd("/ina/jobs", tel_jobs, "Registered job ids. No parameters");
	rte_telemetry_register_cmd("/ina/job", tel_job, "Counters of one job. Parameter: job id");
	rte_telemetry_register_cmd("/ina/trace", tel_trace,
				   "Record the next N packets (1-512) of every lcore, or of one. Parameters: N[,lcore]");
	rte_telemetry_register_cmd("/ina/trace_read", tel_trace_read,
				   "Up to 16 recorded packets of an lcore from FIRST. Parameters: lcore[,first]");
	rte_telemetry_register_cmd("/ina/pipeline", tel_pipeline,
				   "Pipeline counters over all lcores. No parameters");
	rte_telemetry_register_cmd("/ina/netreduce", tel_netreduce,
				   "NetReduce (RoCEv2) counters and CLT entries. No parameters");
	rte_telemetry_register_cmd("/ina/counters", tel_counters,
				   "What each number of a command means: name -> 'KIND help'. Parameter: summary, port, lcore or job");
	rte_telemetry_register_cmd("/ina/aggregators", tel_aggregators,
				   "Aggregator occupancy per lcore. No parameters");
	rte_telemetry_register_cmd("/ina/runtime", tel_runtime,
				   "Per-stage calls, packets, cycles and ns/packet (show runtime) of one lcore, "
				   "or of all summed. Parameter: [lcore]");
}

} /* namespace switchd */
