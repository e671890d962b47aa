/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The PS's per-packet path: classify, find the job and the fragment slot,
 * compute the packet's contributor set, dedupe, aggregate (int32 saturating,
 * or float on the overflow path), and emit parameter packets and float
 * requests. See docs/ps.md for the packet formats.
 */
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "ina/hash.h"
#include "ina/ps.h"
#include "worker_set.h"

namespace ina {

namespace {

enum SlotState : uint8_t {
	kEmpty = 0,
	kInt,   /* int32 aggregation in progress */
	kFloat, /* overflow: collecting float answers */
	kDone,  /* complete; kept to answer resends until reused */
};

enum SlotFlag : uint16_t {
	kSawEcn = 1u << 0,
	kSawCol = 1u << 1,
	kSawCollision = 1u << 2,
	kInNetwork = 1u << 3, /* completed by one packet holding all workers */
	kFloatResult = 1u << 4,
	kSplitWait = 1u << 5, /* in the job's split_wait queue */
	kNotAllBypass = 1u << 6, /* a contribution other than a worker's first bypassed copy */
};

/* One fragment of the window: its aggregation state at the PS. */
struct FragmentSlot {
	uint32_t seq = 0;
	uint8_t state = kEmpty;
	uint16_t flags = 0;
	uint16_t elems = 0;
	uint32_t agg_index = 0;
	uint32_t collided_index = 0;
	int32_t float_buf = -1; /* index into the job's float pool */
	uint64_t last_tx_us = 0;
	uint64_t first_us = 0; /* first contribution taken */
	WorkerSet have;
};

/* An incomplete fragment holding a worker's bypassed contribution, since
 * when (docs/ps.md, "Split fragments"). */
struct SplitWait {
	uint32_t slot;
	uint32_t seq;
	uint64_t since_us; /* the bypassed copy came, or the last request went */
	uint32_t asked;    /* requests so far */
};

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

} /* namespace */

struct ParameterServer::Job {
	PsJobConfig cfg;
	PsJobStats st;
	WorkerSet all;
	/* Workers whose bit at level i is b, and those not taking part at i. */
	WorkerSet by_bit[INA_MAX_LEVELS][INA_BITMAP_BITS];
	WorkerSet no_bit[INA_MAX_LEVELS];
	/* Each worker's own bitmaps, for the float requests. */
	std::vector<std::array<uint32_t, INA_MAX_LEVELS>> worker_bitmap;
	uint32_t mask; /* this shard's slots - 1 (ps_shard_window) */
	/* Values per slot and float buffer: cfg.elements when the job was
	 * added; set_elements() may lower what is accepted, never this. */
	uint32_t stride = 0;
	std::unique_ptr<FragmentSlot[]> slots;
	std::unique_ptr<int32_t[]> values; /* window x elements */
	std::unique_ptr<double[]> float_pool; /* float_slots x elements */
	std::vector<int32_t> float_free;    /* stack of free float buffers */
	/* FIFO of the fragments a bypass may have split, oldest first, as
	 * many entries as slots. An entry whose slot completed or was reused
	 * is dropped when it reaches the head; while the FIFO is full a
	 * fragment is not queued and waits for the workers' own resends. */
	std::unique_ptr<SplitWait[]> split_wait;
	uint32_t split_head = 0, split_len = 0;
	/* How long the fragments whose every worker bypassed the switch take
	 * from the first copy to the last (EWMA, 1/8): the hold-off grows with
	 * it, so that the spread of a fragment's copies is not taken for a
	 * split. */
	double gather_us = 0;
	uint8_t group_mac[6];

	WorkerSet contributors(const uint32_t bitmap[INA_MAX_LEVELS]) const
	{
		WorkerSet c = all;
		for (uint32_t i = 0; i < cfg.levels; i++) {
			uint32_t b = bitmap[i];
			if (b == 0xFFFFFFFFu)
				continue;
			WorkerSet m = no_bit[i];
			while (b) {
				uint32_t bit = static_cast<uint32_t>(__builtin_ctz(b));
				b &= b - 1;
				m |= by_bit[i][bit];
			}
			c &= m;
		}
		return c;
	}
	int32_t *value(const FragmentSlot &s) { return values.get() + size_t(&s - slots.get()) * stride; }

	/* The fragment state of `n` slots (a power of two) and the float pool. */
	void allocate(uint32_t n)
	{
		mask = n - 1;
		stride = cfg.elements;
		slots.reset(new FragmentSlot[n]);
		values.reset(new int32_t[size_t(n) * stride]());
		float_pool.reset(new double[size_t(cfg.float_slots) * stride]());
		split_wait.reset(new SplitWait[n]);
		for (int32_t i = static_cast<int32_t>(cfg.float_slots) - 1; i >= 0; i--)
			float_free.push_back(i);
		job_group_mac(cfg.job, group_mac);
	}
};

ParameterServer::ParameterServer(const Endpoint &self, uint32_t shard, uint32_t shards)
	: self_(self), shard_(shard), shards_(shards == 0 ? 1 : shards)
{
	if (shard_ >= shards_)
		shard_ = 0;
	jobs_.resize(65536);
}

uint32_t ps_shard_window(uint32_t window, uint32_t shards)
{
	uint32_t want = (window + shards - 1) / shards;
	uint32_t w = 1;
	while (w < want)
		w <<= 1;
	return w;
}

void ps_add_stats(PsJobStats &to, const PsJobStats &from)
{
#define INA_X(name, help) to.name += from.name;
	INA_PS_JOB_COUNTERS(INA_X)
#undef INA_X
}

void ps_add_stats(PsStats &to, const PsStats &from)
{
	to.not_ina += from.not_ina;
	to.bad_version += from.bad_version;
	to.bad_type += from.bad_type;
	to.bad_length += from.bad_length;
	to.unknown_job += from.unknown_job;
}

ParameterServer::~ParameterServer() = default;

bool ParameterServer::has_job(uint16_t job) const { return jobs_[job] != nullptr; }

void ParameterServer::set_epoch(uint16_t job, uint8_t epoch)
{
	if (jobs_[job])
		jobs_[job]->cfg.epoch = epoch;
}

bool ParameterServer::set_elements(uint16_t job, uint16_t elements)
{
	Job *j = jobs_[job].get();
	if (!j || elements == 0 || elements > j->stride)
		return false;
	j->cfg.elements = elements;
	return true;
}

uint16_t ParameterServer::elements(uint16_t job) const
{
	return jobs_[job] ? jobs_[job]->cfg.elements : 0;
}

std::vector<uint16_t> ParameterServer::jobs() const
{
	std::vector<uint16_t> out;
	for (uint32_t j = 0; j < jobs_.size(); j++)
		if (jobs_[j])
			out.push_back(static_cast<uint16_t>(j));
	return out;
}

const PsJobStats *ParameterServer::job_stats(uint16_t job) const
{
	return jobs_[job] ? &jobs_[job]->st : nullptr;
}

bool ps_job_memory_ok(const PsJobConfig &cfg, std::string *error)
{
	const uint64_t bytes = uint64_t(cfg.window) * (sizeof(FragmentSlot) + uint64_t(cfg.elements) * sizeof(int32_t)) +
			       uint64_t(cfg.float_slots) * cfg.elements * sizeof(double);
	if (bytes <= kPsMaxJobBytes)
		return true;
	*error = "job " + std::to_string(cfg.job) + ": window " + std::to_string(cfg.window) +
		 " and float_slots " + std::to_string(cfg.float_slots) + " of " +
		 std::to_string(cfg.elements) + " elements need " + std::to_string(bytes >> 20) +
		 " MiB, over the limit of " + std::to_string(kPsMaxJobBytes >> 20) + " MiB per job";
	return false;
}

bool ParameterServer::add_job(const PsJobConfig &cfg, std::string *error)
{
	std::string where = "job " + std::to_string(cfg.job) + ": ";
	if (cfg.job == 0) {
		*error = "job id 0 is reserved";
		return false;
	}
	if (jobs_[cfg.job]) {
		*error = where + "already served by this PS";
		return false;
	}
	if (cfg.workers.empty() || cfg.workers.size() > kPsMaxWorkers) {
		*error = where + "needs 1 to 255 workers, has " + std::to_string(cfg.workers.size());
		return false;
	}
	if (cfg.elements == 0 || cfg.elements > INA_MAX_ELEMENTS) {
		*error = where + "elements must be 1.." + std::to_string(INA_MAX_ELEMENTS);
		return false;
	}
	if (cfg.window == 0 || (cfg.window & (cfg.window - 1)) != 0 || cfg.window > (1u << 24)) {
		*error = where + "window must be a power of two up to 2^24";
		return false;
	}
	if (cfg.aggregators == 0) {
		*error = where + "aggregators must be > 0";
		return false;
	}
	if (cfg.levels > INA_MAX_LEVELS) {
		*error = where + "levels must be 0.." + std::to_string(INA_MAX_LEVELS);
		return false;
	}
	if (cfg.ps_count == 0 || cfg.ps_index >= cfg.ps_count) {
		*error = where + "ps_index must be below ps_count";
		return false;
	}
	if (cfg.multicast_ack && !cfg.has_switch) {
		*error = where + "multicast parameter packets need a switch";
		return false;
	}
	if (cfg.float_slots == 0) {
		*error = where + "float_slots must be > 0";
		return false;
	}
	if (!ps_job_memory_ok(cfg, error))
		return false;
	if (cfg.levels == 0 && cfg.workers.size() > 1) {
		*error = where + "levels 0 cannot tell workers apart; use levels = 1 (bits) without a switch";
		return false;
	}
	for (uint32_t i = 0; i < cfg.levels; i++) {
		if (cfg.fan_in[i] == 0 || cfg.fan_in[i] > INA_BITMAP_BITS) {
			*error = where + "fan_in of level " + std::to_string(i) + " must be 1..32";
			return false;
		}
	}

	auto job = std::make_unique<Job>();
	job->cfg = cfg;
	/* Paths: a bit below the level's fan-in, or 255; unique per worker. */
	for (uint32_t w = 0; w < cfg.workers.size(); w++) {
		const PsWorker &pw = cfg.workers[w];
		std::array<uint32_t, INA_MAX_LEVELS> bm{};
		bool started = false;
		for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
			uint8_t b = pw.bit[i];
			if (i >= cfg.levels) {
				bm[i] = 0;
				continue;
			}
			if (b == kPsNoBit) {
				if (started) {
					*error = where + "worker " + std::to_string(w) +
						 " skips level " + std::to_string(i) +
						 " above its first level";
					return false;
				}
				job->no_bit[i].set(w);
				bm[i] = 0xFFFFFFFFu;
				continue;
			}
			if (b >= cfg.fan_in[i]) {
				*error = where + "worker " + std::to_string(w) + " bit " + std::to_string(b) +
					 " at level " + std::to_string(i) + " is not below fan_in " +
					 std::to_string(cfg.fan_in[i]);
				return false;
			}
			started = true;
			job->by_bit[i][b].set(w);
			bm[i] = 1u << b;
		}
		job->worker_bitmap.push_back(bm);
		job->all.set(w);
	}
	/* Two workers with the same path could not be told apart. */
	for (uint32_t w = 0; w < cfg.workers.size(); w++) {
		WorkerSet c = job->all;
		for (uint32_t i = 0; i < cfg.levels; i++) {
			uint8_t b = cfg.workers[w].bit[i];
			WorkerSet m = job->no_bit[i];
			if (b != kPsNoBit)
				m |= job->by_bit[i][b];
			c &= m;
		}
		if (c.count() != 1 && cfg.workers.size() > 1) {
			*error = where + "worker " + std::to_string(w) +
				 " shares its path (bits per level) with another worker";
			return false;
		}
	}
	job->allocate(ps_shard_window(cfg.window, shards_));
	jobs_[cfg.job] = std::move(job);
	job_ids_.push_back(cfg.job);
	return true;
}

namespace {

/* An INA header with the job's levels and fan-in. */
InaHeader ina_header(const PsJobConfig &cfg, uint16_t flags, uint32_t seq, uint32_t index, uint32_t remap,
		     uint16_t elems, uint8_t level)
{
	InaHeader h;
	h.flags = ina_flags_with_epoch(flags, cfg.epoch);
	h.job_id = cfg.job;
	h.seq = seq;
	h.agg_index = index;
	h.remap_index = remap;
	h.elem_count = elems;
	h.level = level;
	h.levels = cfg.levels;
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++)
		h.fan_in[i] = cfg.fan_in[i];
	return h;
}

/* Judges a received frame by its parse; false (counted in `stats`) unless
 * it is a well-formed INA data packet. */
bool is_data_frame(const RxFrame &rx, PsStats &stats)
{
	switch (rx.verdict) {
	case FrameVerdict::kOk:
		break;
	case FrameVerdict::kNotIna:
	case FrameVerdict::kMalformedShort:
		stats.not_ina++;
		return false;
	case FrameVerdict::kMalformedVersion:
		stats.bad_version++;
		return false;
	case FrameVerdict::kMalformedType:
		stats.bad_type++;
		return false;
	case FrameVerdict::kMalformedLength:
		stats.bad_length++;
		return false;
	}
	if (rx.ina.hdr.type != INA_TYPE_DATA) {
		stats.bad_type++;
		return false;
	}
	return true;
}

/* Adds the payload's int32 values to `v`, saturating; true if any sum was
 * clipped (the fragment then needs the float path). */
bool add_saturating(int32_t *v, const uint8_t *payload, uint16_t elems)
{
	bool clipped = false;
	for (uint32_t k = 0; k < elems; k++) {
		int64_t sum = int64_t(v[k]) + int32_t(ina_load32(payload + 4 * k));
		if (sum > kInt32Max) {
			sum = kInt32Max;
			clipped = true;
		} else if (sum < kInt32Min) {
			sum = kInt32Min;
			clipped = true;
		}
		v[k] = static_cast<int32_t>(sum);
	}
	return clipped;
}

} /* namespace */

/* The per-packet work, with access to the Job internals. */
struct PsPath {
	ParameterServer::Job &job;
	const Endpoint &self;
	TxQueue &tx;
	uint32_t shard, shards;
	uint64_t now_ns; /* stamped into each parameter packet */

	/* One parameter packet into `out` (headers included); returns length. */
	uint32_t write_ack(uint8_t *out, const FragmentSlot &s, const Endpoint &dst)
	{
		const PsJobConfig &cfg = job.cfg;
		uint16_t flags = INA_F_ACK;
		if (s.flags & kSawEcn)
			flags |= INA_F_ECN;
		if (s.flags & kSawCol)
			flags |= INA_F_COL;
		if (s.flags & kFloatResult)
			flags |= INA_F_OVERFLOW | INA_F_FLOAT;
		uint32_t index = s.agg_index, remap = INA_NO_REMAP;
		if (s.flags & kSawCollision) {
			index = s.collided_index;
			remap = aggregator_rehash(cfg.job, index, cfg.aggregators);
		}
		uint8_t level = (s.flags & kInNetwork) ? cfg.levels : 0;
		InaHeader h = ina_header(cfg, flags, s.seq, index, remap, s.elems, level);
		for (uint32_t i = 0; i < INA_MAX_LEVELS; i++)
			h.bitmap[i] = 0xFFFFFFFFu; /* the whole job */
		ina_ack_set_ps_clock(h.fan_in, now_ns);
		uint32_t len = write_ina_frame(out, self, dst, h);
		const int32_t *v = job.value(s);
		uint8_t *p = out + INA_PAYLOAD_OFFSET;
		for (uint32_t k = 0; k < s.elems; k++)
			ina_store32(p + 4 * k, static_cast<uint32_t>(v[k]));
		return len;
	}

	void emit_ack_to(const FragmentSlot &s, const Endpoint &dst)
	{
		uint8_t *out = tx.reserve();
		if (!out) {
			job.st.tx_full++;
			return;
		}
		tx.commit(write_ack(out, s, dst));
		job.st.ack_frames++;
	}

	/* The parameter packet to the group, or to each worker in `to`. */
	void send_ack(const FragmentSlot &s, const WorkerSet &to)
	{
		const PsJobConfig &cfg = job.cfg;
		Endpoint dst;
		dst.port = INA_UDP_PORT;
		if (cfg.multicast_ack) {
			memcpy(dst.mac, job.group_mac, 6);
			dst.ip = job_group(cfg.job);
			emit_ack_to(s, dst);
			return;
		}
		for (uint32_t w = 0; w < cfg.workers.size(); w++) {
			if (!to.test(w))
				continue;
			memcpy(dst.mac, cfg.workers[w].mac, 6);
			dst.ip = cfg.workers[w].ip;
			emit_ack_to(s, dst);
		}
	}

	/* A request to every worker whose contribution is missing: `flags`
	 * OVERFLOW | RESEND | BYPASS asks for float values, RESEND | BYPASS
	 * for the worker's int32 copy again (docs/ps.md). */
	void send_requests(const FragmentSlot &s, uint16_t flags)
	{
		const PsJobConfig &cfg = job.cfg;
		for (uint32_t w = 0; w < cfg.workers.size(); w++) {
			if (s.have.test(w))
				continue;
			uint8_t *out = tx.reserve();
			if (!out) {
				job.st.tx_full++;
				continue;
			}
			Endpoint dst;
			memcpy(dst.mac, cfg.has_switch ? cfg.switch_mac : cfg.workers[w].mac, 6);
			dst.ip = cfg.workers[w].ip;
			dst.port = INA_UDP_PORT;
			InaHeader h = ina_header(cfg, flags, s.seq, s.agg_index, INA_NO_REMAP, 0, cfg.levels);
			for (uint32_t i = 0; i < INA_MAX_LEVELS; i++)
				h.bitmap[i] = job.worker_bitmap[w][i];
			tx.commit(write_ina_frame(out, self, dst, h));
			if (flags & INA_F_OVERFLOW)
				job.st.float_requests++;
			else
				job.st.resend_requests++;
		}
	}

	void send_float_requests(const FragmentSlot &s)
	{
		send_requests(s, INA_F_OVERFLOW | INA_F_RESEND | INA_F_BYPASS);
	}

	/* Moves a fragment to the float path and, if `request`, asks every
	 * worker for floats; false if no float buffer is free. */
	bool enter_float(FragmentSlot &s, uint64_t now_us, bool request)
	{
		if (job.float_free.empty()) {
			job.st.float_pool_full++;
			return false;
		}
		s.float_buf = job.float_free.back();
		job.float_free.pop_back();
		memset(&job.float_pool[size_t(s.float_buf) * job.stride], 0, sizeof(double) * job.stride);
		s.state = kFloat;
		s.have = WorkerSet{};
		s.flags &= static_cast<uint16_t>(~kSplitWait);
		if (request) {
			send_float_requests(s);
			s.last_tx_us = now_us;
		}
		return true;
	}

	void release_float(FragmentSlot &s)
	{
		if (s.float_buf >= 0) {
			job.float_free.push_back(s.float_buf);
			s.float_buf = -1;
		}
	}

	void complete(FragmentSlot &s, bool in_network, uint64_t now_us)
	{
		if (!(s.flags & (kNotAllBypass | kFloatResult)) && s.first_us && !in_network)
			job.gather_us += (static_cast<double>(now_us - s.first_us) - job.gather_us) / 8;
		s.state = kDone;
		if (in_network)
			s.flags |= kInNetwork;
		job.st.completed++;
		if (in_network)
			job.st.completed_in_network++;
		else
			job.st.completed_at_ps++;
		if (s.flags & kSawCollision)
			job.st.remaps++;
		send_ack(s, job.all);
		s.last_tx_us = now_us;
	}

	/* A data packet of this job, from its checks to the parameter packet. */
	void take_packet(const InaFrame &f, uint64_t now_us)
	{
		const InaHeader &h = f.hdr;
		WorkerSet c;
		bool ecn = false;
		if (!admit(f, &c, &ecn))
			return;
		FragmentSlot *sp = slot_for(h.seq, h.elem_count);
		if (!sp)
			return;
		FragmentSlot &s = *sp;
		if (s.state == kDone) {
			resend_ack(s, c, now_us);
			return;
		}
		note_flags(s, h.flags, h.agg_index, ecn);
		if (h.flags & INA_F_FLOAT) {
			take_float(s, c, f.payload, now_us);
			return;
		}
		if (s.state == kFloat) {
			job.st.int_after_overflow++;
			if (now_us - s.last_tx_us >= job.cfg.float_holdoff_us) {
				send_float_requests(s);
				s.last_tx_us = now_us;
			}
			return;
		}
		take_int(s, c, f.payload, h.flags, now_us);
	}

	/* The job's checks and per-packet counters; false if the packet is
	 * dropped. Sets *c to its contributors and *ecn if it is marked. */
	bool admit(const InaFrame &f, WorkerSet *c, bool *ecn)
	{
		const InaHeader &h = f.hdr;
		const PsJobConfig &cfg = job.cfg;
		PsJobStats &st = job.st;
		st.packets++;
		const uint16_t flags = h.flags;
		if (flags & INA_F_ACK) {
			st.unexpected_ack++;
			return false;
		}
		if (ina_flags_epoch(flags) != cfg.epoch) {
			st.stale_epoch++; /* a dead run's late packet, or a worker without the epoch */
			return false;
		}
		if (h.seq % cfg.ps_count != cfg.ps_index) {
			st.not_owned++;
			return false;
		}
		/* Steering sends a fragment's packets to its shard; one that
		 * arrives elsewhere would split the fragment's state in two. */
		if (ps_shard(h.seq, cfg.ps_count, shards) != shard) {
			st.other_shard++;
			return false;
		}
		if (h.levels != cfg.levels) {
			st.bad_levels++;
			return false;
		}
		if (h.elem_count == 0 || h.elem_count > cfg.elements) {
			st.bad_elements++;
			return false;
		}
		if (flags & INA_F_RESEND)
			st.retransmits++;
		if (flags & INA_F_COLLISION)
			st.collisions++;
		*ecn = (flags & INA_F_ECN) || (f.tos & 3) == 3; /* or an IP CE mark */
		if (*ecn)
			st.ecn++;

		*c = job.contributors(h.bitmap);
		if (c->empty()) {
			st.bad_bitmap++;
			return false;
		}
		if (c->count() == 1)
			st.worker_packets++;
		else if (!(*c == job.all))
			st.partial_packets++;
		return true;
	}

	/* The fragment's slot, taken over from an older fragment if need be;
	 * nullptr if the packet is dropped (older than the window, or an
	 * elem_count other than the fragment's). */
	FragmentSlot *slot_for(uint32_t seq, uint16_t elems)
	{
		PsJobStats &st = job.st;
		uint32_t round = seq / job.cfg.ps_count;
		FragmentSlot &s = job.slots[(round / shards) & job.mask];
		if (s.state != kEmpty && s.seq != seq) {
			if (static_cast<int32_t>(seq - s.seq) < 0) {
				st.stale++;
				return nullptr;
			}
			if (s.state != kDone)
				st.evicted_incomplete++;
			release_float(s);
			s.state = kEmpty;
		}
		if (s.state == kEmpty) {
			s.seq = seq;
			s.state = kInt;
			s.flags = 0;
			s.first_us = 0;
			s.elems = elems;
			s.have = WorkerSet{};
			s.last_tx_us = 0;
			s.float_buf = -1;
		}
		if (elems != s.elems) {
			st.bad_elements++;
			return nullptr;
		}
		return &s;
	}

	/* A packet for a complete fragment: a worker lost the ACK (or a late
	 * copy), so send it again. */
	void resend_ack(FragmentSlot &s, const WorkerSet &c, uint64_t now_us)
	{
		job.st.after_done++;
		/* Multicast: one copy reaches everybody, so n workers resending
		 * at once need one copy (holdoff). Unicast: answer the senders. */
		if (!job.cfg.multicast_ack || now_us - s.last_tx_us >= job.cfg.ack_holdoff_us) {
			send_ack(s, c);
			job.st.ack_resent++;
			s.last_tx_us = now_us;
		}
	}

	/* Flags that travel to the parameter packet. */
	void note_flags(FragmentSlot &s, uint16_t flags, uint32_t index, bool ecn)
	{
		if (ecn)
			s.flags |= kSawEcn;
		if (flags & INA_F_COL)
			s.flags |= kSawCol;
		if (flags & INA_F_COLLISION) {
			s.flags |= kSawCollision;
			s.collided_index = index;
		}
		if (index < job.cfg.aggregators)
			s.agg_index = index;
	}

	/* The fragments a bypass split that waited past the hold-off: the
	 * workers whose copies are missing are asked for them again, in int32
	 * as first sent. A copy that waits in a switch aggregator comes back
	 * as a resend, which flushes the aggregator's partial sum here (ATP
	 * Figure 17); a lost one comes back whole. A fragment still
	 * incomplete a hold-off later is asked for again. */
	void ask_split(uint64_t now_us)
	{
		const uint64_t holdoff = std::max<uint64_t>(job.cfg.bypass_holdoff_us,
							    static_cast<uint64_t>(2 * job.gather_us));
		const uint32_t n = job.mask + 1;
		for (uint32_t left = job.split_len; left > 0; left--) {
			FragmentSlot *s = split_head_slot();
			if (s) {
				if (now_us - job.split_wait[job.split_head].since_us < holdoff ||
				    tx.room() < job.cfg.workers.size())
					return;
				send_requests(*s, INA_F_RESEND | INA_F_BYPASS);
				if (job.split_wait[job.split_head].asked++ == 0)
					job.st.split_recoveries++;
				/* Back of the queue, for another try if need be. */
				SplitWait w = job.split_wait[job.split_head];
				w.since_us = now_us;
				split_pop();
				job.split_wait[(job.split_head + job.split_len) % n] = w;
				job.split_len++;
				continue;
			}
			split_pop();
		}
	}

	/* The slot of the FIFO's head if it still waits, else nullptr. */
	FragmentSlot *split_head_slot()
	{
		const SplitWait &w = job.split_wait[job.split_head];
		FragmentSlot &s = job.slots[w.slot];
		return s.seq == w.seq && s.state == kInt && (s.flags & kSplitWait) ? &s : nullptr;
	}

	void split_pop()
	{
		job.split_head = (job.split_head + 1) % (job.mask + 1);
		job.split_len--;
	}

	/* A float answer: added to the fragment's float buffer; the fragment
	 * completes when every worker has answered. */
	void take_float(FragmentSlot &s, const WorkerSet &c, const uint8_t *payload, uint64_t now_us)
	{
		PsJobStats &st = job.st;
		/* An answer before the PS asked (its request crossed a lost
		 * packet, say): take it, and ask the others right after. */
		bool unasked = s.state == kInt;
		if (unasked) {
			if (!enter_float(s, now_us, false))
				return;
			st.overflows++;
		}
		if (c.intersects(s.have)) {
			st.duplicates++;
			return;
		}
		double *acc = &job.float_pool[size_t(s.float_buf) * job.stride];
		for (uint32_t k = 0; k < s.elems; k++) {
			uint32_t bits = ina_load32(payload + 4 * k);
			float x;
			memcpy(&x, &bits, 4);
			acc[k] += x;
		}
		s.have |= c;
		st.float_packets++;
		if (unasked && !(s.have == job.all)) {
			send_float_requests(s);
			s.last_tx_us = now_us;
		}
		if (s.have == job.all) {
			int32_t *v = job.value(s);
			for (uint32_t k = 0; k < s.elems; k++) {
				float x = static_cast<float>(acc[k]);
				memcpy(&v[k], &x, 4);
			}
			release_float(s);
			s.flags |= kFloatResult;
			complete(s, false, now_us);
		}
	}

	/* An int32 partial sum: added to the fragment, which completes when it
	 * holds every worker or moves to the float path on an overflow. */
	void take_int(FragmentSlot &s, const WorkerSet &c, const uint8_t *payload, uint16_t flags, uint64_t now_us)
	{
		PsJobStats &st = job.st;
		/* A partial sum that contains everything the slot has (a worker's
		 * retransmission merged into a switch aggregator, and the worker's
		 * first copy had already reached the PS past a collision) is the
		 * better sum: take it whole. Any other overlap cannot be split. */
		WorkerSet common = c;
		common &= s.have;
		bool superset = !s.have.empty() && common == s.have && !(c == s.have);
		if (c.intersects(s.have) && !superset) {
			st.duplicates++;
			return;
		}
		if (flags & INA_F_OVERFLOW) {
			if (enter_float(s, now_us, true))
				st.overflows++;
			return;
		}
		int32_t *v = job.value(s);
		if (superset) {
			st.superseded++;
			s.have = WorkerSet{};
		}
		bool first = s.have.empty();
		if (first) {
			for (uint32_t k = 0; k < s.elems; k++)
				v[k] = static_cast<int32_t>(ina_load32(payload + 4 * k));
		} else if (add_saturating(v, payload, s.elems)) {
			st.ps_overflows++;
			if (enter_float(s, now_us, true))
				st.overflows++;
			return;
		}
		if (first)
			s.first_us = now_us;
		if ((flags & (INA_F_BYPASS | INA_F_RESEND)) != INA_F_BYPASS || c.count() != 1)
			s.flags |= kNotAllBypass;
		s.have |= c;
		if (s.have == job.all) {
			complete(s, first && job.cfg.workers.size() > 1, now_us);
			return;
		}
		/* A worker sent its copy straight to the PS (A2TP's aggregator
		 * window): the others may have sent theirs to the switch, where
		 * they wait for it. tick() asks for the fragment if the rest does
		 * not come. */
		const uint32_t n = job.mask + 1;
		while (job.split_len == n && !split_head_slot())
			split_pop();
		if ((flags & INA_F_BYPASS) && !(s.flags & kSplitWait) && job.cfg.bypass_holdoff_us &&
		    job.split_len < n) {
			job.split_wait[(job.split_head + job.split_len) % n] =
				SplitWait{static_cast<uint32_t>(&s - job.slots.get()), s.seq, now_us, 0};
			job.split_len++;
			s.flags |= kSplitWait;
		}
	}
};

void ParameterServer::handle(const RxFrame &rx, uint64_t now_ns, TxQueue &tx)
{
	if (!is_data_frame(rx, stats_))
		return;
	const InaFrame &f = rx.ina;
	Job *jp = jobs_[f.hdr.job_id].get();
	if (!jp) {
		stats_.unknown_job++;
		return;
	}
	PsPath path{*jp, self_, tx, shard_, shards_, now_ns};
	path.take_packet(f, now_ns / 1000);
}

void ParameterServer::tick(uint64_t now_ns, TxQueue &tx)
{
	for (uint16_t id : job_ids_) {
		Job &j = *jobs_[id];
		if (j.split_len == 0)
			continue;
		PsPath path{j, self_, tx, shard_, shards_, now_ns};
		path.ask_split(now_ns / 1000);
	}
}

uint32_t ParameterServer::shard_of(const RxFrame &rx) const
{
	if (shards_ == 1 || !rx.is(INA_TYPE_DATA))
		return 0;
	const Job *jp = jobs_[rx.ina.hdr.job_id].get();
	if (!jp)
		return 0;
	return ps_shard(rx.ina.hdr.seq, jp->cfg.ps_count, shards_);
}

const std::vector<PsCounterInfo> &ps_job_counters()
{
	static const std::vector<PsCounterInfo> list = {
#define INA_X(name, help) {#name, help, &PsJobStats::name},
		INA_PS_JOB_COUNTERS(INA_X)
#undef INA_X
	};
	return list;
}

} /* namespace ina */
