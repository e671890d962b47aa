/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The switch program: ATP Figure 7 (ideal case) and Figure 17 (loss), A2TP's
 * Col bit, GOAT's aggregation-node filter, run as a fixed sequence of stages.
 * Each register array is touched by at most one action per packet, and each
 * action is a single read-modify-write, so that the P4 build can map every
 * action onto one Tofino RegisterAction (docs/pipeline.md).
 */
#include <cstring>

#include "ina/codec.h"
#include "registers.h"

namespace ina {

namespace {

constexpr uint32_t kAllChildren = 0xFFFFFFFFu;
constexpr uint16_t kCarriedFlags = INA_F_ECN | INA_F_COL | INA_F_OVERFLOW;

/* Offsets inside struct ina_hdr. */
constexpr uint32_t kOffFlags = offsetof(struct ina_hdr, flags);
constexpr uint32_t kOffLevel = offsetof(struct ina_hdr, level);
constexpr uint32_t kOffBitmap = offsetof(struct ina_hdr, bitmap);

/* Header fields the stages read, from the packet's decoded view. */
struct Packet {
	uint8_t *ina;     /* INA header */
	uint16_t *view_flags; /* the view's flags, kept equal to the frame's */
	uint8_t *payload; /* elem_count x int32 */
	uint16_t flags;
	uint8_t epoch; /* flags bits 8-15 */
	uint16_t job;
	uint16_t agg_node;
	uint32_t seq;
	uint32_t index;
	uint16_t elems;
	uint8_t type;
	uint8_t level;
	uint8_t levels;
	uint32_t bitmap; /* bitmap[level], when level < levels */
	uint8_t fan_in;  /* fan_in[level], when level < levels */
};

/* Registers of one aggregator, resolved from its index. */
struct AggregatorRegs {
	AggregatorId *id;
	uint32_t *bitmap;
	uint32_t *count;
	uint8_t *flags;
	int32_t *value;
};

inline Result finish(PipelineCounters &ctr, Verdict v, Counter reason)
{
	ctr[reason]++;
	return Result{v, reason};
}

/* ---- stage: parse -------------------------------------------------------- */

/* The packet's fields from its decoded view (no header byte is read
 * here); returns the malformed reason, or Counter::kCount when the packet
 * is sane. */
Counter parse(const AggregatorTable &t, uint8_t *frame, uint32_t len, InaView &v, const Children *children,
	      Packet *p)
{
	if (v.version != INA_VERSION)
		return Counter::malformed_version;
	const uint32_t ina_off = v.ina_offset;
	p->ina = frame + ina_off;
	p->view_flags = &v.flags;
	p->type = v.type;
	if (p->type == INA_TYPE_CONTROL)
		return Counter::kCount;
	if (p->type != INA_TYPE_DATA)
		return Counter::malformed_type;

	p->flags = v.flags;
	p->epoch = ina_flags_epoch(p->flags);
	p->job = v.job;
	p->agg_node = v.agg_node;
	p->seq = v.seq;
	p->index = v.agg_index;
	p->elems = v.elem_count;
	p->level = v.level;
	p->levels = v.levels;
	p->payload = p->ina + INA_HDR_LEN;

	uint32_t need = sizeof(struct ina_udp_hdr) + INA_HDR_LEN + 4u * p->elems;
	if (v.udp_len != need)
		return Counter::malformed_length;
	if (len < ina_off + INA_HDR_LEN + 4u * p->elems)
		return Counter::malformed_short;
	/* More elements than the aggregators hold is no defect of the packet
	 * (its PS may not know this switch's cap): filter sends it on. */
	if (p->job == 0)
		return Counter::malformed_job;
	/* A parameter packet is still delivered when its index means nothing
	 * here (a switch with fewer aggregators on the path): it frees nothing. */
	if (p->index >= t.config().aggregators && !(p->flags & INA_F_ACK))
		return Counter::malformed_index;
	if (p->levels > INA_MAX_LEVELS || p->level > p->levels)
		return Counter::malformed_level;

	if (p->level < p->levels && !(p->flags & INA_F_ACK)) {
		p->bitmap = v.level_bitmap;
		/* GOAT: the plan's children here, when given, not the fragment's. */
		p->fan_in = children ? children->fan_in : v.level_fan_in;
		if (p->fan_in == 0 || p->fan_in > INA_BITMAP_BITS)
			return Counter::malformed_fan_in;
		const uint32_t allowed = children	     ? children->allowed
					 : p->fan_in == 32 ? kAllChildren
							   : (1u << p->fan_in) - 1u;
		if (p->bitmap == 0 || (p->bitmap & ~allowed) != 0)
			return Counter::malformed_bitmap;
	}
	return Counter::kCount;
}

/* ---- stage: deparse helpers --------------------------------------------- */

/* The frame's flags word and the view's stay equal. */
inline void set_flags(Packet &p, uint16_t flags)
{
	p.flags = flags;
	*p.view_flags = flags;
	ina_store16(p.ina + kOffFlags, flags);
}

/* The packet leaves this level: the next one processes it. */
inline void advance_level(Packet &p)
{
	p.ina[kOffLevel] = static_cast<uint8_t>(p.level + 1);
}

/* The packet carries this level's result: bitmap[level] names the children
 * it holds, lower levels become "all children" (contributor rule,
 * docs/protocol.md). */
inline void write_result_bitmaps(Packet &p, uint32_t bitmap)
{
	for (uint32_t i = 0; i < p.level; i++)
		ina_store32(p.ina + kOffBitmap + 4u * i, kAllChildren);
	ina_store32(p.ina + kOffBitmap + 4u * p.level, bitmap);
}

inline uint8_t agg_flags_of(uint16_t pkt_flags)
{
	return ((pkt_flags & INA_F_ECN) ? kAggEcn : 0) | ((pkt_flags & INA_F_COL) ? kAggCol : 0) |
	       ((pkt_flags & INA_F_OVERFLOW) ? kAggOverflow : 0);
}

inline uint16_t pkt_flags_of(uint8_t agg)
{
	return ((agg & kAggEcn) ? INA_F_ECN : 0) | ((agg & kAggCol) ? INA_F_COL : 0) |
	       ((agg & kAggOverflow) ? INA_F_OVERFLOW : 0);
}

/* ---- register actions ---------------------------------------------------- */
/* One function per RegisterAction; each reads and writes one register once. */

enum class IdHit : uint8_t { kClaimed, kMatch, kCollide, kRefused, kMiss, kReleased, kReleasedStale };

/* job_held, with the table's occupancy: how many aggregators each job holds
 * here. held_inc on every claim, held_dec on every free, always for the job
 * in the key that is set or cleared. */
struct Held {
	uint32_t *word; /* indexed by job id */
	uint32_t *occupied;
	void inc(uint16_t job) const
	{
		word[job]++;
		(*occupied)++;
	}
	void dec(uint16_t job) const
	{
		word[job]--;
		(*occupied)--;
	}
};

/* aggregator_id: id_claim (empty, and the job below its share) / id_match
 * (same id) / collide; an empty word the job may not claim stays empty. */
inline IdHit id_claim_or_match(AggregatorId &r, uint64_t key, uint64_t now, bool may_claim)
{
	if (r.key == 0) {
		if (!may_claim)
			return IdHit::kRefused;
		r.key = key;
		r.timestamp = now;
		return IdHit::kClaimed;
	}
	if (r.key == key) {
		r.timestamp = now;
		return IdHit::kMatch;
	}
	return IdHit::kCollide;
}

/* aggregator_id: id_release on a matching resent gradient; reports whether
 * another <job, seq> holds it. */
inline IdHit id_release(AggregatorId &r, uint64_t key)
{
	if (r.key == key) {
		r.key = 0;
		return IdHit::kReleased;
	}
	return r.key == 0 ? IdHit::kMiss : IdHit::kCollide;
}

/* aggregator_id: parameter packet frees its own aggregator, or a foreign
 * one idle for longer than the GC timeout (ATP §3.7); *holder is the job
 * whose key it cleared. */
inline IdHit id_release_ack(AggregatorId &r, uint64_t key, uint64_t now, uint64_t timeout,
			    uint16_t *holder)
{
	if (r.key == 0)
		return IdHit::kMiss;
	*holder = key_job(r.key);
	if (r.key == key) {
		r.key = 0;
		return IdHit::kReleased;
	}
	if (timeout != 0 && now > r.timestamp && now - r.timestamp > timeout) {
		r.key = 0;
		return IdHit::kReleasedStale;
	}
	return IdHit::kMiss;
}

inline uint32_t bitmap_or(uint32_t &r, uint32_t b)
{
	uint32_t old = r;
	r = old | b;
	return old;
}

inline uint32_t bitmap_read_clear(uint32_t &r)
{
	uint32_t old = r;
	r = 0;
	return old;
}

inline uint32_t count_add(uint32_t &r)
{
	return ++r;
}

inline uint8_t flags_merge(uint8_t &r, uint8_t f)
{
	r |= f;
	return r;
}

inline uint8_t flags_read_clear(uint8_t &r, uint8_t f)
{
	uint8_t v = r | f;
	r = 0;
	return v;
}

/* ---- the gradient paths -------------------------------------------------- */

/* A gradient wider than the aggregators: no aggregator here can hold it,
 * so it goes on unaggregated as a collision does, RESEND so that no later
 * level claims for it and COLLISION so that the PS sums it; no register is
 * touched. Starving the job by dropping it would tell nobody. */
Result too_wide(PipelineCounters &ctr, Packet &p)
{
	set_flags(p, p.flags | INA_F_RESEND | INA_F_COLLISION);
	advance_level(p);
	return finish(ctr, Verdict::kDownstream, Counter::too_wide);
}

/* ATP Figure 17: a resent gradient. The first level merges it into what the
 * aggregator holds and flushes the (maybe partial) result; higher levels
 * only free the aggregator, because their bitmap has one bit per lower
 * switch and cannot describe a partial child. Either way the packet goes
 * on; a resent packet never claims an aggregator. */
Result resend(const ValueKernels &k, const AggregatorRegs &s, const Held &held, PipelineCounters &ctr, Packet &p)
{
	IdHit hit = id_release(*s.id, aggregator_key(p.epoch, p.job, p.seq));
	if (hit == IdHit::kMiss) {
		advance_level(p);
		return finish(ctr, Verdict::kDownstream, Counter::resend_forwarded);
	}
	if (hit == IdHit::kCollide) {
		/* Someone else's aggregator: a collision like Figure 7's box 2, so
		 * the holder learns of it (A2TP Col) and the PS re-hashes. */
		*s.flags |= kAggCol;
		set_flags(p, p.flags | INA_F_COLLISION);
		advance_level(p);
		return finish(ctr, Verdict::kDownstream, Counter::collision);
	}
	held.dec(p.job);
	if (p.level != 0) {
		/* The partial sum is discarded (the PS completes from the resent
		 * packets), but its congestion and collision marks travel on. */
		*s.bitmap = 0;
		*s.count = 0;
		uint8_t f = flags_read_clear(*s.flags, 0);
		set_flags(p, p.flags | pkt_flags_of(f));
		advance_level(p);
		return finish(ctr, Verdict::kDownstream, Counter::resend_flushed);
	}
	uint32_t old = bitmap_read_clear(*s.bitmap);
	*s.count = 0;
	bool fresh = (old & p.bitmap) == 0;
	bool clipped = false;
	if (fresh) {
		clipped = k.add_read(s.value, p.payload, p.elems);
		ctr[Counter::aggregated]++;
	} else {
		k.read(s.value, p.payload, p.elems);
	}
	if (clipped)
		ctr[Counter::overflow]++;
	uint8_t f = flags_read_clear(*s.flags, agg_flags_of(p.flags) | (clipped ? kAggOverflow : 0));
	set_flags(p, p.flags | pkt_flags_of(f));
	write_result_bitmaps(p, old | p.bitmap);
	advance_level(p);
	return finish(ctr, Verdict::kDownstream, Counter::resend_merged);
}

/* ATP Figure 7: first come, first served, no pre-emption; a job claims no
 * more than its share (docs/pipeline.md, "Fair share"). */
Result gradient(const ValueKernels &k, const AggregatorRegs &s, const Held &held, PipelineCounters &ctr,
		Packet &p, uint64_t now, uint32_t elements, uint32_t share)
{
	const bool may_claim = held.word[p.job] < share;
	IdHit hit = id_claim_or_match(*s.id, aggregator_key(p.epoch, p.job, p.seq), now, may_claim);

	if (hit == IdHit::kRefused) {
		/* Like box 2, but the aggregator is empty: no holder to tell, so
		 * no register changes (Col stays clear). The PS sums it. */
		set_flags(p, p.flags | INA_F_RESEND | INA_F_COLLISION);
		advance_level(p);
		return finish(ctr, Verdict::kDownstream, Counter::share_refusals);
	}

	if (hit == IdHit::kCollide) {
		/* Box 2: on to the PS marked as resent so that later levels do not
		 * aggregate it; the holder learns of the collision via Col (A2TP). */
		*s.flags |= kAggCol;
		set_flags(p, p.flags | INA_F_RESEND | INA_F_COLLISION);
		advance_level(p);
		return finish(ctr, Verdict::kDownstream, Counter::collision);
	}

	uint32_t count;
	uint32_t merged;
	bool clipped = false;
	uint8_t carried = agg_flags_of(p.flags);
	if (hit == IdHit::kClaimed) {
		held.inc(p.job);
		ctr[Counter::claimed]++;
		*s.bitmap = p.bitmap;
		merged = p.bitmap;
		count = *s.count = 1;
		k.write(s.value, p.payload, p.elems);
		/* The claim owns the whole row: a longer packet of the same
		 * fragment must add onto zeros, not onto the last holder's sum. */
		if (p.elems < elements)
			std::memset(s.value + p.elems, 0, sizeof(int32_t) * (elements - p.elems));
		/* The claim's flags are written below with the completion check. */
	} else {
		uint32_t old = bitmap_or(*s.bitmap, p.bitmap);
		if (old & p.bitmap) {
			/* Box 7: already aggregated; keep its congestion mark. */
			flags_merge(*s.flags, carried & kAggEcn);
			return finish(ctr, Verdict::kDrop, Counter::duplicate);
		}
		merged = old | p.bitmap;
		count = count_add(*s.count);
	}

	bool complete = count >= p.fan_in;
	if (hit == IdHit::kMatch)
		clipped = complete ? k.add_read(s.value, p.payload, p.elems)
				   : k.add(s.value, p.payload, p.elems);
	if (clipped)
		ctr[Counter::overflow]++;
	carried |= clipped ? kAggOverflow : 0;
	uint8_t f = hit == IdHit::kClaimed ? (*s.flags = carried) : flags_merge(*s.flags, carried);

	if (!complete)
		return finish(ctr, Verdict::kDrop, Counter::aggregated);

	/* Box 6 -> complete: the result leaves; the aggregator stays allocated
	 * until the parameter packet frees it. */
	ctr[Counter::aggregated]++;
	set_flags(p, p.flags | pkt_flags_of(f));
	write_result_bitmaps(p, merged);
	advance_level(p);
	return finish(ctr, Verdict::kDownstream, Counter::completed);
}

/* Parameter packet: free (box 8) or garbage-collect, then multicast. */
Result parameter(AggregatorTable &t, const AggregatorRegs &s, const Held &held, PipelineCounters &ctr, Packet &p,
		 uint64_t now)
{
	uint16_t holder = 0;
	IdHit hit = id_release_ack(*s.id, aggregator_key(p.epoch, p.job, p.seq), now, t.config().gc_timeout,
				   &holder);
	Counter reason = Counter::ack_unmatched;
	if (hit != IdHit::kMiss) {
		*s.bitmap = 0;
		*s.count = 0;
		*s.flags = 0;
		held.dec(holder);
		reason = hit == IdHit::kReleased ? Counter::ack_freed : Counter::gc_freed;
	}
	ctr[Counter::multicast]++;
	return finish(ctr, Verdict::kMulticast, reason);
}

} /* namespace */

/* Grants the stage functions access to the table's registers. */
struct PipelineStages {
	static AggregatorTable::Registers &registers(AggregatorTable &t) { return *t.reg_; }
	static Held held(AggregatorTable &t) { return Held{t.reg_->held.get(), &t.occupied_}; }
};

Result process(AggregatorTable &table, PipelineCounters &ctr, uint8_t *frame, uint32_t len, uint64_t now,
	       uint32_t share, const Children *children)
{
	uint32_t ina_off;
	if (!find_ina_header(frame, len, &ina_off))
		return finish(ctr, Verdict::kPass, Counter::pass_through);
	InaView view;
	if (!decode_view(frame, len, ina_off, &view))
		return finish(ctr, Verdict::kDrop, Counter::malformed_short);
	return process(table, ctr, frame, len, view, now, share, children);
}

Result process(AggregatorTable &table, PipelineCounters &ctr, uint8_t *frame, uint32_t len, InaView &view,
	       uint64_t now, uint32_t share, const Children *children)
{
	/* parse */
	const uint32_t ina_off = view.ina_offset;
	Packet p{};
	Counter bad = parse(table, frame, len, view, children, &p);
	if (bad != Counter::kCount)
		return finish(ctr, Verdict::kDrop, bad);

	/* filter */
	if (p.type == INA_TYPE_CONTROL)
		return finish(ctr, Verdict::kControl, Counter::control);
	/* Every INA packet leaves with UDP checksum 0 (docs/protocol.md): the
	 * stages rewrite its header and payload, and replication its IP
	 * destination, so a sender's checksum would be wrong after any hop
	 * and the receiving kernel would drop the datagram. */
	ina_store16(frame + ina_off - 2, 0);
	bool ack = p.flags & INA_F_ACK;
	if (!ack) {
		if (p.flags & INA_F_BYPASS)
			return finish(ctr, Verdict::kDownstream, Counter::bypass);
		if (p.flags & INA_F_FLOAT)
			return finish(ctr, Verdict::kDownstream, Counter::float_forwarded);
		if (p.agg_node != INA_AGG_NODE_ANY && p.agg_node != table.config().switch_id)
			return finish(ctr, Verdict::kDownstream, Counter::goat_forwarded);
		if (p.level >= p.levels)
			return finish(ctr, Verdict::kDownstream, Counter::past_levels);
		if (p.elems > table.config().elements)
			return too_wide(ctr, p);
	}
	/* A parameter packet of any width frees its aggregator (it reads no
	 * value) and reaches the workers: a job too wide for this switch
	 * completes through its PS. */
	if (ack && p.index >= table.config().aggregators) {
		ctr[Counter::multicast]++;
		return finish(ctr, Verdict::kMulticast, Counter::ack_unmatched);
	}
	if (!table.owns(p.index))
		return finish(ctr, Verdict::kDrop, Counter::misrouted);

	auto &reg = PipelineStages::registers(table);
	uint32_t i = p.index / table.config().stride;
	AggregatorRegs s{&reg.id[i], &reg.bitmap[i], &reg.count[i], &reg.flags[i],
	       &reg.value[size_t(i) * reg.value_stride]};
	const Held held = PipelineStages::held(table);

	if (ack)
		return parameter(table, s, held, ctr, p, now);
	if (p.flags & INA_F_RESEND)
		return resend(*reg.kernels, s, held, ctr, p);
	return gradient(*reg.kernels, s, held, ctr, p, now, table.config().elements, share);
}

} /* namespace ina */
