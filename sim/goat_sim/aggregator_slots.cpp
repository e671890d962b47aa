/*
 * replay_slots (aggregator_slots.h). Slots never interact, so each is
 * replayed alone: its contributions are the fragments that map to it, each a
 * run of workers already in arrival order (fastest first, since every worker
 * sends fragment f at f * its own period), merged by time.
 */
#include "aggregator_slots.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace goat_sim {
namespace {

/* The contributions of one fragment at one slot. */
struct Run {
	const std::vector<double> *period; /* the stream's workers, fastest first */
	uint64_t fragment = 0;
	size_t next = 0;      /* next worker to arrive */
	size_t resolved = 0;  /* workers whose contribution has arrived */
	size_t merged = 0;    /* of those, in the slot's aggregate */
	double time() const { return double(fragment) * (*period)[next]; }
	bool done() const { return next == period->size(); }
};

/* Earliest pending contribution; equal times: lower fragment first. */
Run *earliest(std::vector<Run> &runs)
{
	Run *best = nullptr;
	for (Run &r : runs) {
		if (r.done())
			continue;
		if (!best || r.time() < best->time() ||
		    (r.time() == best->time() && r.fragment < best->fragment))
			best = &r;
	}
	return best;
}

void replay_one_slot(std::vector<Run> &runs, const Fragments &fragments, SlotTally &t)
{
	Run *held = nullptr;
	while (Run *r = earliest(runs)) {
		const uint64_t bytes = fragments.bytes(r->fragment);
		r->next++;
		t.arrived_bytes += bytes;
		if (!held)
			held = r; /* first come, first served */
		if (held == r) {
			r->merged++;
		} else {
			t.collisions++;
			t.bypass_bytes += bytes;
		}
		r->resolved++;
		if (held == r && r->resolved == r->period->size()) {
			/* Every expected worker has sent it: the aggregate leaves. */
			(r->merged >= 2 ? t.merged_bytes : t.alone_bytes) += r->merged * bytes;
			t.output_bytes += bytes;
			held = nullptr;
		}
	}
	if (held)
		throw std::logic_error("aggregator slot still held after every contribution");
}

} // namespace

SlotTally replay_slots(uint64_t slots, const std::vector<SlotStream> &streams,
		       const Fragments &fragments)
{
	if (slots == 0)
		throw std::invalid_argument("a switch without aggregator slots");
	/* Each stream's workers fastest first: that is their arrival order
	 * for every fragment. */
	std::vector<std::vector<double>> period;
	for (const SlotStream &s : streams) {
		if (s.end > fragments.count() || s.first > s.end)
			throw std::invalid_argument("stream outside the gradient's fragments");
		period.push_back(s.seconds_per_fragment);
		std::sort(period.back().begin(), period.back().end());
	}
	SlotTally t;
	std::vector<Run> runs;
	for (uint64_t slot = 0; slot < slots; slot++) {
		runs.clear();
		for (size_t i = 0; i < streams.size(); i++) {
			const SlotStream &s = streams[i];
			if (period[i].empty() || s.first == s.end)
				continue;
			/* f - first = slot - slot_base (mod slots) */
			const uint64_t offset = ((slot + slots) - s.slot_base % slots) % slots;
			for (uint64_t f = s.first + offset; f < s.end; f += slots)
				runs.push_back(Run{&period[i], f});
		}
		replay_one_slot(runs, fragments, t);
	}
	return t;
}

} // namespace goat_sim
