/* SPDX-License-Identifier: BSD-3-Clause */
#include "trace.h"

#include <algorithm>
#include <cstring>

namespace switchd {

namespace {

/* Counters that say nothing about one packet's path: times, bytes, gauges. */
bool skipped(const char *name, ina::CounterKind kind)
{
	if (kind == ina::CounterKind::kGauge)
		return true;
	const size_t len = std::strlen(name);
	return std::strcmp(name, "busy_ns") == 0 || (len > 6 && std::strcmp(name + len - 6, "_bytes") == 0);
}

} /* namespace */

const char *trace_set_name(TraceSet s)
{
	switch (s) {
	case TraceSet::kLcore: return "lcore";
	case TraceSet::kPipeline: return "pipeline";
	case TraceSet::kJob: return "job";
	case TraceSet::kPort: return "port";
	}
	return "?";
}

const char *trace_step_name(const TraceStep &s)
{
	switch (s.set) {
	case TraceSet::kLcore: return kLcoreCounterNames[s.id];
	case TraceSet::kPipeline: return ina::counter_name(static_cast<ina::Counter>(s.id));
	case TraceSet::kJob: return kJobCounterNames[s.id];
	case TraceSet::kPort: return kPortCounterNames[s.id];
	}
	return "?";
}

const char *trace_class_name(uint8_t cls)
{
	static const char *const names[] = {"arp", "l2", "ipv4", "ina", "roce"};
	return cls < sizeof(names) / sizeof(names[0]) ? names[cls] : "dropped_in_classify";
}

void PacketTrace::init(size_t n_ports)
{
	records_.resize(kMaxRecords);
	before_.ports.resize(n_ports);
}

bool PacketTrace::begin(const TraceCounters &c, uint8_t from_lcore, uint64_t tsc)
{
	if (const uint32_t n = request_.exchange(0, std::memory_order_acquire)) {
		restarts_.fetch_add(1, std::memory_order_acq_rel); /* odd: readers retry */
		recorded_.store(0, std::memory_order_relaxed);
		left_ = std::min(n, kMaxRecords);
		restarts_.fetch_add(1, std::memory_order_acq_rel);
	}
	if (!left_)
		return false;
	before_.lcore = *c.lcore;
	before_.pipeline = *c.pipeline;
	for (size_t p = 0; p < before_.ports.size(); p++)
		before_.ports[p] = c.ports[p];
	cur_ = TraceRecord{};
	cur_.tsc = tsc;
	cur_.cls = cur_.from_lcore = cur_.to_lcore = TraceRecord::kNone;
	cur_.from_lcore = from_lcore;
	job_ = -1;
	return true;
}

void PacketTrace::classified(const TraceCounters &c, const PacketDesc &d)
{
	cur_.cls = static_cast<uint8_t>(d.cls);
	cur_.in_port = d.in_port;
	cur_.src_ip = d.src_ip;
	cur_.dst_ip = d.dst_ip;
	if (d.cls == PacketClass::kIna) {
		cur_.ina = d.ina;
		job_ = d.ina.job;
		before_.job = c.jobs[d.ina.job];
	}
}

void PacketTrace::add_step(TraceRecord *r, TraceSet set, size_t id, uint16_t port, uint64_t delta) const
{
	if (delta && r->n_steps < TraceRecord::kMaxSteps)
		r->steps[r->n_steps++] = TraceStep{set, static_cast<uint8_t>(id), port,
						   static_cast<uint32_t>(std::min<uint64_t>(delta, UINT32_MAX))};
}

void PacketTrace::end(const TraceCounters &c, uint8_t to_lcore)
{
	TraceRecord &r = cur_;
	r.to_lcore = to_lcore;
	for (size_t i = 0; i < LcoreCounters::size(); i++)
		if (!skipped(kLcoreCounterNames[i], kLcoreCounterKinds[i]))
			add_step(&r, TraceSet::kLcore, i, 0, c.lcore->load(i) - before_.lcore.v[i]);
	for (size_t i = 0; i < ina::kCounterCount; i++)
		add_step(&r, TraceSet::kPipeline, i, 0, c.pipeline->v[i] - before_.pipeline.v[i]);
	if (job_ >= 0)
		for (size_t i = 0; i < JobCounters::size(); i++)
			add_step(&r, TraceSet::kJob, i, 0, c.jobs[job_].load(i) - before_.job.v[i]);
	for (size_t p = 0; p < before_.ports.size(); p++)
		for (size_t i = 0; i < PortCounters::size(); i++)
			if (!skipped(kPortCounterNames[i], kPortCounterKinds[i]))
				add_step(&r, TraceSet::kPort, i, static_cast<uint16_t>(p),
					 c.ports[p].load(i) - before_.ports[p].v[i]);
	const uint32_t n = recorded_.load(std::memory_order_relaxed);
	records_[n] = r;
	recorded_.store(n + 1, std::memory_order_release);
	left_--;
}

uint32_t PacketTrace::read(uint32_t first, uint32_t max, std::vector<TraceRecord> *out) const
{
	for (;;) {
		out->clear();
		const uint32_t r0 = restarts_.load(std::memory_order_acquire);
		const uint32_t n = recorded_.load(std::memory_order_acquire);
		for (uint32_t i = first; i < n && out->size() < max; i++)
			out->push_back(records_[i]);
		if (!(r0 & 1) && restarts_.load(std::memory_order_acquire) == r0)
			return n;
	}
}

} /* namespace switchd */
