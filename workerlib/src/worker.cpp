/* SPDX-License-Identifier: BSD-3-Clause */
#include <algorithm>
#include <chrono>
#include <cmath>

#include "ina/codec.h"
#include "ina/worker/stepped.h"
#include "roce_worker.h"
#include "worker_impl.h"

namespace ina {

/* ---- AllreduceHandle ---- */

bool AllreduceHandle::done() const
{
	return !s_ || s_->status.load(std::memory_order_acquire) != 0;
}

bool AllreduceHandle::wait(std::string *error)
{
	if (!s_) {
		if (error)
			*error = "invalid all-reduce handle";
		return false;
	}
	std::unique_lock<std::mutex> g(s_->m);
	s_->cv.wait(g, [this] { return s_->status.load(std::memory_order_acquire) != 0; });
	if (s_->status.load() < 0) {
		if (error)
			*error = s_->error;
		return false;
	}
	return true;
}

bool AllreduceHandle::wait_for(uint32_t timeout_ms) const
{
	if (!s_)
		return true;
	std::unique_lock<std::mutex> g(s_->m);
	return s_->cv.wait_for(g, std::chrono::milliseconds(timeout_ms),
			       [this] { return s_->status.load(std::memory_order_acquire) != 0; });
}

/* ---- config ---- */

bool validate(const WorkerConfig &c, std::string *error)
{
	auto fail = [error](const std::string &m) {
		if (error)
			*error = m;
		return false;
	};
	if (c.transport.kind == "roce")
		return validate_roce(c, error);
	if (c.job_id == 0)
		return fail("job: job id 0 is reserved");
	if (c.levels > INA_MAX_LEVELS)
		return fail("levels: must be 0.." + std::to_string(INA_MAX_LEVELS) + ", got " + std::to_string(c.levels));
	if (c.levels > 0 && c.start_level >= c.levels)
		return fail("start_level: must be below levels (" + std::to_string(c.levels) + "), got " +
			    std::to_string(c.start_level));
	for (uint32_t i = c.start_level; i < c.levels; i++) {
		if (c.fan_in[i] < 1 || c.fan_in[i] > INA_BITMAP_BITS)
			return fail("fan-in at level " + std::to_string(i) + " must be 1..32");
		if (c.bit[i] >= c.fan_in[i])
			return fail("bitmap bit at level " + std::to_string(i) + " must be below the fan-in");
	}
	for (uint32_t i = 0; i < c.start_level && i < c.levels; i++)
		if (c.fan_in[i] < 1 || c.fan_in[i] > INA_BITMAP_BITS)
			return fail("fan-in at level " + std::to_string(i) + " must be 1..32");
	if (c.ps.empty())
		return fail("no PS address");
	if (c.ps.size() > 256)
		return fail("at most 256 PS instances");
	for (const PsAddress &p : c.ps)
		if (p.ip == 0)
			return fail("PS address 0.0.0.0");
	if (c.elements_per_packet > INA_MAX_ELEMENTS)
		return fail("elements per packet must be 1.." + std::to_string(INA_MAX_ELEMENTS) + " or 0 (auto)");
	if (c.aggregators < 1 || c.aggregators > kMaxAggregators)
		return fail("aggregators: must be 1.." + std::to_string(kMaxAggregators) + ", got " +
			    std::to_string(c.aggregators));
	if (c.index.kind == IndexPolicy::Static && (c.index.first >= c.index.end || c.index.end > c.aggregators))
		return fail("static index range [" + std::to_string(c.index.first) + ", " + std::to_string(c.index.end) +
			    ") is not a range of the " + std::to_string(c.aggregators) + " aggregators");
	if (!(c.scale > 0) || !std::isfinite(c.scale))
		return fail("scale: must be a positive number");
	if (c.threads < 1 || c.threads > 64)
		return fail("threads: must be 1..64, got " + std::to_string(c.threads));
	if (c.window_capacity < 16 || uint64_t(c.window_capacity) * c.threads > kMaxWindowCapacity)
		return fail("window_capacity: must be 16.." + std::to_string(kMaxWindowCapacity) +
			    " over all threads, got " + std::to_string(c.window_capacity) + " x " +
			    std::to_string(c.threads));
	if (!(c.cc.initial_window >= 1) || c.cc.min_window < 1 || c.cc.max_window < c.cc.initial_window)
		return fail("min_window, initial_window, max_window: must satisfy 1 <= min_window, initial_window <= "
			    "max_window, got " + std::to_string(c.cc.min_window) + ", " +
			    std::to_string(c.cc.initial_window) + ", " + std::to_string(c.cc.max_window));
	if (c.cc.max_window >= c.window_capacity)
		return fail("max_window: must be below window_capacity (" + std::to_string(c.window_capacity) +
			    "), got " + std::to_string(c.cc.max_window));
	if (c.cc.a2tp_w <= 0 || c.cc.a2tp_w >= 1 || c.cc.a2tp_g <= 0 || c.cc.a2tp_g >= 1)
		return fail("a2tp_w, a2tp_g: A2TP's weights must be in (0, 1)");
	if (c.cc.a2tp_h >= 1)
		return fail("a2tp_h: A2TP's threshold H must be below 1");
	if (c.timeout_burst < 1)
		return fail("timeout_burst: must be at least 1");
	if (c.ps_window < 1)
		return fail("ps_window: must be at least 1");
	if (c.rtt.min_rto_ns == 0 || c.rtt.min_rto_ns > c.rtt.max_rto_ns)
		return fail("min_rto_us, max_rto_us: must satisfy 0 < min_rto_us <= max_rto_us, got " +
			    std::to_string(c.rtt.min_rto_ns / 1000) + ", " + std::to_string(c.rtt.max_rto_ns / 1000));
	for (const GoatAggregators &a : c.goat_aggregators)
		if (a.agg_node == INA_AGG_NODE_ANY || a.first >= a.end || a.end > c.aggregators)
			return fail("GOAT aggregators of node " + std::to_string(a.agg_node) + ": [" +
				    std::to_string(a.first) + ", " + std::to_string(a.end) +
				    ") is not a range of a switch's " + std::to_string(c.aggregators) +
				    " aggregators");
	for (size_t i = 0; i < c.goat.size(); i++) {
		if (c.goat[i].end_element <= (i ? c.goat[i - 1].end_element : 0))
			return fail("GOAT plan: range " + std::to_string(i) + " ends at " +
				    std::to_string(c.goat[i].end_element) + ", not after the previous one");
		if (c.goat[i].index_end > c.aggregators)
			return fail("GOAT plan: range " + std::to_string(i) + "'s aggregators end at " +
				    std::to_string(c.goat[i].index_end) + ", beyond the " +
				    std::to_string(c.aggregators) + " of the job");
	}
	return true;
}

/* ---- WorkerImpl ---- */

WorkerImpl::WorkerImpl(const WorkerConfig &cfg) : cfg_(cfg), remap_(cfg.job_id, cfg.aggregators, static_cast<uint64_t>(cfg.ps_window) * cfg.ps.size(), cfg.index), dir_(kDirSize)
{
}

WorkerImpl::~WorkerImpl()
{
	for (auto &s : senders_)
		s->stop();
}

static double job_flows(const WorkerConfig &c)
{
	if (c.a2tp_flows)
		return c.a2tp_flows;
	double n = 1;
	for (uint32_t i = 0; i < c.levels; i++)
		n *= std::max<uint8_t>(1, c.fan_in[i]);
	return std::max(2.0, n);
}

/* The fragment size (docs/worker.md, "Fragment size"): what the job's PS
 * instances answer, or the size the config names if they take it; never
 * more than this worker's interface carries. A named size stands when no
 * PS answers (a PS that predates the query, or one started later): it is
 * the job's contract, as it was before sizes came from the path. The
 * epoch: the one the PS instances answer, the run the switch gave their
 * registration, unless the config names one (docs/protocol.md, "Epochs"). */
bool WorkerImpl::ask_ps(Transport &t, std::string *error)
{
	const uint32_t own = frame_elements(t.max_frame());
	const std::string iface = std::string(t.name()) +
				  (cfg_.transport.device.empty() ? "" : " on " + cfg_.transport.device);
	const uint32_t named = cfg_.elements_per_packet;
	if (named > own) {
		*error = "elements " + std::to_string(named) + ": this worker's interface (" + iface + ") carries " +
			 std::to_string(t.max_frame()) + "-byte frames, at most " + std::to_string(own) + " elements";
		return false;
	}
	std::string err;
	bool silent = false;
	const JobAnswer answer = query_job(t, cfg_, &err, &silent);
	const uint32_t job = answer.elements;
	if (!job && named && silent)
		return true;
	if (!job) {
		*error = err;
		return false;
	}
	if (named > job) {
		*error = "elements " + std::to_string(named) + ": the PS sizes job " + std::to_string(cfg_.job_id) +
			 " at " + std::to_string(job) + " elements (what its path carries); name at most that, or auto";
		return false;
	}
	if (!named && job > own) {
		*error = "the PS sizes job " + std::to_string(cfg_.job_id) + " at " + std::to_string(job) +
			 " elements, this worker's interface (" + iface + ") carries at most " + std::to_string(own) +
			 " (raise its MTU, or name elements at the PS)";
		return false;
	}
	cfg_.elements_per_packet = named ? named : job;
	if (!epoch_named(cfg_))
		cfg_.epoch = answer.epoch;
	return true;
}

bool WorkerImpl::start(std::string *error)
{
	uint32_t group = job_group(cfg_.job_id);
	std::vector<std::unique_ptr<Transport>> transports;
	for (uint32_t t = 0; t < cfg_.threads; t++) {
		TransportConfig tc = cfg_.transport;
		/* One socket per thread on the udp transport: 18766 (or the
		 * configured port) plus the thread number. */
		if (cfg_.threads > 1 && tc.udp_port == 0)
			tc.udp_port = INA_UDP_PORT;
		if (tc.udp_port && t > 0)
			tc.udp_port = static_cast<uint16_t>(tc.udp_port + t);
		tc.seed += t;
		if (std::find(tc.groups.begin(), tc.groups.end(), group) == tc.groups.end())
			tc.groups.push_back(group);
		std::string err;
		std::unique_ptr<Transport> tx = open_transport(tc, &err);
		if (!tx) {
			*error = "transport: " + err;
			return false;
		}
		transports.push_back(std::move(tx));
	}
	if (!ask_ps(*transports[0], error))
		return false;
	for (uint32_t t = 0; t < cfg_.threads; t++)
		senders_.push_back(std::make_unique<Sender>(this, t, std::move(transports[t]), cfg_, job_flows(cfg_)));
	for (auto &s : senders_)
		s->start();
	return true;
}

bool WorkerImpl::start_stepped(std::unique_ptr<Transport> tx, std::string *error)
{
	if (cfg_.threads != 1) {
		*error = "threads: a stepped worker runs one sender, got " + std::to_string(cfg_.threads);
		return false;
	}
	if (cfg_.elements_per_packet == 0 || cfg_.elements_per_packet > frame_elements(tx->max_frame())) {
		*error = "elements: a stepped worker needs a size its transport carries (1.." +
			 std::to_string(frame_elements(tx->max_frame())) + "), got " +
			 std::to_string(cfg_.elements_per_packet);
		return false;
	}
	senders_.push_back(std::make_unique<Sender>(this, 0, std::move(tx), cfg_, job_flows(cfg_)));
	senders_[0]->set_stepped();
	return true;
}

namespace {

/* The stepped face of a WorkerImpl that runs no thread. */
class SteppedWorkerImpl final : public SteppedWorker {
public:
	explicit SteppedWorkerImpl(const WorkerConfig &cfg) : w_(cfg) {}
	bool start(std::unique_ptr<Transport> tx, std::string *error) { return w_.start_stepped(std::move(tx), error); }
	AllreduceHandle allreduce_async(float *data, size_t n, std::string *error) override
	{
		return w_.allreduce_async(data, n, error);
	}
	uint64_t poll(uint64_t now_ns) override { return w_.poll(now_ns); }
	WorkerStats stats() const override { return w_.stats(); }
	const WorkerConfig &config() const override { return w_.config(); }

private:
	WorkerImpl w_;
};

} /* namespace */

std::unique_ptr<SteppedWorker> SteppedWorker::open(const WorkerConfig &cfg, std::unique_ptr<Transport> tx,
						   std::string *error)
{
	std::string err;
	if (!tx)
		err = "no transport";
	else if (cfg.transport.kind == "roce")
		err = "transport roce: NetReduce has no stepped worker";
	else if (validate(cfg, &err)) {
		auto w = std::make_unique<SteppedWorkerImpl>(cfg);
		if (w->start(std::move(tx), &err))
			return w;
	}
	if (error)
		*error = err;
	return nullptr;
}

std::unique_ptr<Worker> Worker::open(const WorkerConfig &cfg, std::string *error)
{
	std::string err;
	if (!validate(cfg, &err)) {
		if (error)
			*error = err;
		return nullptr;
	}
	if (cfg.transport.kind == "roce")
		return open_roce_worker(cfg, error);
	auto w = std::make_unique<WorkerImpl>(cfg);
	if (!w->start(&err)) {
		if (error)
			*error = err;
		return nullptr;
	}
	return w;
}

std::string WorkerImpl::transport_name() const
{
	return senders_.empty() ? std::string("none") : std::string(senders_[0]->transport_name());
}

/* What a worker that heard nothing for stall_timeout_ms last heard, and
 * where to look: the counters that tell the causes apart. */
std::string stall_diagnosis(const WorkerStats &s, uint16_t job)
{
	std::string heard;
	if (s.acks == 0 && s.duplicate_acks == 0 && s.stale_acks == 0)
		heard = "no parameter packet at all since the start (" + std::to_string(s.packets_sent) +
			" packets sent)";
	else if (s.acks > 0 && s.col_acks == s.acks)
		heard = "only parameter packets marked COL (collisions), " + std::to_string(s.acks) +
			" of them, before it stopped";
	else
		heard = std::to_string(s.acks) + " parameter packets (" + std::to_string(s.col_acks) +
			" marked COL), then none";
	if (s.rx_not_from_ps)
		heard += ", " + std::to_string(s.rx_not_from_ps) + " of the job's frames from another source";
	if (s.rx_malformed)
		heard += ", " + std::to_string(s.rx_malformed) + " malformed frames";
	return "; it heard " + heard + ". Look at the switches' counters for job " + std::to_string(job) +
	       " (/ina/job," + std::to_string(job) +
	       ": admission_drops, stale_epoch_drops, malformed, too_wide; /ina/summary: malformed_*) "
	       "and the PS's for the job";
}

void WorkerImpl::set_failed(const std::string &why)
{
	/* The sender's stall timeout says only that nothing came back: add
	 * what this worker last heard. Counters only, no lock of ours. */
	if (why.rfind("no parameter packets from the PS", 0) == 0) {
		const std::string full = why + stall_diagnosis(stats(), cfg_.job_id);
		std::lock_guard<std::mutex> g(sched_m_);
		if (!failed_.load()) {
			failure_ = full;
			failed_.store(true);
		}
		return;
	}
	std::lock_guard<std::mutex> g(sched_m_);
	if (!failed_.load()) {
		failure_ = why;
		failed_.store(true);
	}
}

uint64_t WorkerImpl::floor() const
{
	uint64_t f = UINT64_MAX;
	for (auto &s : senders_)
		f = std::min(f, s->floor());
	return f;
}

int WorkerImpl::owner_of(uint32_t seq) const
{
	uint64_t count = dir_count_.load(std::memory_order_acquire);
	uint64_t lo = count > kDirSize ? count - kDirSize : 0;
	for (uint64_t i = count; i > lo; i--) {
		const DirEntry &e = dir_[(i - 1) % kDirSize];
		if (seq - e.seq_base.load(std::memory_order_relaxed) < e.nfrags.load(std::memory_order_relaxed))
			return static_cast<int>(e.thread.load(std::memory_order_relaxed));
	}
	return -1;
}

AllreduceHandle WorkerImpl::allreduce_async(float *data, size_t n, std::string *error)
{
	return allreduce_async(data, n, 0.0, error);
}

AllreduceHandle WorkerImpl::allreduce_async(float *data, size_t n, double scale, std::string *error)
{
	auto fail = [error](const std::string &m) {
		if (error)
			*error = m;
		return AllreduceHandle();
	};
	if (!data && n)
		return fail("null tensor");
	if (scale == 0.0)
		scale = cfg_.scale;
	if (!(scale > 0) || !std::isfinite(scale))
		return fail("scale: must be a positive number");
	const uint32_t epp = cfg_.elements_per_packet;
	uint64_t nfrags = (n + epp - 1) / epp;
	if (nfrags > (1ull << 30))
		return fail("tensor too large: " + std::to_string(n) + " values");
	auto t = std::make_shared<TensorState>();
	t->data = data;
	t->n = n;
	t->nfrags = static_cast<uint32_t>(nfrags);
	t->scale = scale;
	if (n == 0) {
		t->status.store(1);
		return AllreduceHandle(t);
	}
	std::lock_guard<std::mutex> g(sched_m_);
	if (failed_.load())
		return fail("worker failed: " + failure_);
	t->seq64 = next_seq_;
	t->seq_base = static_cast<uint32_t>(next_seq_);
	next_seq_ += t->nfrags;
	if (!cfg_.goat.empty()) {
		const uint64_t round = cfg_.goat.back().end_element;
		t->elem_base = next_elem_ % round;
		next_elem_ = (next_elem_ + n) % round;
	}
	/* A2TP's schedule is per thread (congestion.h): every worker must give
	 * a tensor to the same thread, so the n-th tensor goes to thread n mod
	 * threads there, not to the least loaded one. */
	uint32_t best = 0;
	if (cfg_.cc.kind == CcKind::a2tp)
		best = static_cast<uint32_t>(tensors_given_ % senders_.size());
	else
		for (uint32_t i = 1; i < senders_.size(); i++)
			if (senders_[i]->load() < senders_[best]->load())
				best = i;
	tensors_given_++;
	t->thread = best;
	uint64_t c = dir_count_.load(std::memory_order_relaxed);
	DirEntry &e = dir_[c % kDirSize];
	e.seq_base.store(t->seq_base, std::memory_order_relaxed);
	e.nfrags.store(t->nfrags, std::memory_order_relaxed);
	e.thread.store(best, std::memory_order_relaxed);
	dir_count_.store(c + 1, std::memory_order_release);
	senders_[best]->give(t);
	return AllreduceHandle(t);
}

bool WorkerImpl::allreduce(float *data, size_t n, std::string *error)
{
	AllreduceHandle h = allreduce_async(data, n, error);
	if (!h.valid())
		return false;
	return h.wait(error);
}

WorkerStats WorkerImpl::stats() const
{
	WorkerStats s;
	for (auto &snd : senders_)
		snd->add_stats(&s);
	return s;
}

} /* namespace ina */
