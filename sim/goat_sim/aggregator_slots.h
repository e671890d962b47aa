/*
 * One programmable switch's aggregator memory, slot by slot, under
 * first-come-first-served allocation (ATP's and GOAT's data plane alike):
 * a slot holds one fragment from its first contribution until every worker
 * expected there has sent that fragment; a contribution of another fragment
 * that finds the slot held goes on to the PS unaggregated (a collision).
 *
 * Time: a worker sends its gradient as fragments 0, 1, 2, ... back to back
 * at its own constant rate, so fragment f reaches the switch at
 * f * seconds_per_fragment. Latency is the same for everyone and left out;
 * so is the wait for the PS's parameter packet before ATP frees a slot
 * (both only add collisions, so leaving them out favours ATP).
 */
#pragma once

#include <cstdint>
#include <vector>

namespace goat_sim {

/* The gradient as fragments of fragment_bytes; the last may be shorter. */
struct Fragments {
	uint64_t gradient_bytes = 0;
	uint64_t fragment_bytes = 256;
	uint64_t count() const { return (gradient_bytes + fragment_bytes - 1) / fragment_bytes; }
	uint64_t bytes(uint64_t f) const
	{
		return f + 1 < count() ? fragment_bytes : gradient_bytes - f * fragment_bytes;
	}
};

/* Fragments [first, end) that the same workers send to this switch;
 * fragment f uses slot (slot_base + f - first) mod the switch's slots. */
struct SlotStream {
	std::vector<double> seconds_per_fragment; /* one per contributing worker */
	uint64_t first = 0, end = 0;
	uint64_t slot_base = 0;
};

/* What the switch did with every contribution it received. */
struct SlotTally {
	uint64_t arrived_bytes = 0;   /* all contributions, bytes */
	uint64_t merged_bytes = 0;    /* ... merged with another worker's: in-network aggregated */
	uint64_t alone_bytes = 0;     /* ... alone in their slot: passed on, the PS aggregates them */
	uint64_t bypass_bytes = 0;    /* ... that collided and went on to the PS */
	uint64_t output_bytes = 0;    /* what the slots sent to the PS (one fragment per use) */
	uint64_t collisions = 0;      /* contributions that found their slot held */
};

/* Replays every slot of a switch with `slots` slots. */
SlotTally replay_slots(uint64_t slots, const std::vector<SlotStream> &streams,
		       const Fragments &fragments);

} // namespace goat_sim
