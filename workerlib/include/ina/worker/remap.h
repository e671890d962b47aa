/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Aggregator index of a fragment at the worker (ATP §3.6): the CRC-32 hash of
 * <job, slot> modulo the aggregator count (ina/hash.h), rewritten by the PS's
 * collision hints. A fragment's slot is its seq modulo the job's in-flight
 * span S (at most the aggregator count): ATP's end host hashes the position
 * in its window, not the bare sequence number, and draws the S indices of a
 * job without repeats (a salt is added to the key until the index is one the
 * job does not use yet). So a job's fragments in flight never collide with
 * one another, a job holds the same S aggregators all its life, and the PS's
 * hints move those few until the jobs sharing a switch stop meeting: the
 * convergence of ATP's Figure 13b. Hashing the bare sequence number instead
 * made a job's own fragments collide (255 in flight over 256 aggregators
 * leave a third in collision) and gave every window a fresh set to collide
 * on, so the hints never converged (docs/worker.md, "Aggregator index").
 *
 * Every worker of a job must send a fragment to the same aggregator, or the
 * fragment splits over two aggregators that never complete. Hints reach the
 * workers at different moments, so a hint cannot take effect "now": the hint
 * carried by the ACK of fragment s (job-wide number) moves the original index
 * of s's slot for the fragments of epoch(s) + 2 onwards, where an
 * epoch is `epoch_fragments` consecutive fragment numbers (a power of two at
 * least the in-flight span: no worker sends fragment q before it has the ACK
 * of every fragment at or below q - span). Then every worker knows every hint
 * that concerns a fragment before it first sends it, and the index of a
 * fragment never changes, also for its retransmissions. The new index is
 * rehash(index the fragment used), a function of facts all workers share, so
 * the order in which hints arrive does not matter.
 *
 * Per original index the table keeps the index before any change (`base`)
 * and the last few changes as <first epoch, index>; older changes fold into
 * `base`, which is safe because in-flight fragments span at most two epochs.
 * Sender threads share the table: lookups are lock-free (a sequence counter,
 * retried in the rare case a hint was being written), hints take a mutex.
 *
 * Two other policies exist to compare against (ATP §5.4.2, Figure 14;
 * docs/worker.md, "Aggregator index"): `linear`, index = seq mod N, and
 * `static`, SwitchML's equal partition, index = first + seq mod (end -
 * first) in the job's own aggregators. Their index is the formula and
 * nothing else: they take no hints.
 */
#ifndef INA_WORKER_REMAP_H
#define INA_WORKER_REMAP_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ina/worker/index_policy.h"

namespace ina {

class RemapTable {
public:
	/* epoch_fragments is rounded up to a power of two (at least 1). A
	 * Static policy's range must lie in [0, aggregators) (the worker's
	 * validate() checks it); an empty one falls back to all of them. */
	RemapTable(uint16_t job, uint32_t aggregators, uint64_t epoch_fragments, IndexPolicy policy = {});

	uint32_t aggregators() const { return n_; }
	uint64_t epoch_fragments() const { return 1ull << epoch_shift_; }
	/* The index before any remap: the hash of seq's slot (above), or the
	 * policy's. */
	uint32_t original_index(uint32_t seq) const;
	/* Hash policy: the slots S, seq mod S naming a fragment's slot. */
	uint32_t slots() const { return static_cast<uint32_t>(slot_index_.size()); }
	/* The index of fragment `frag` (job-wide number; its wire seq is
	 * frag mod 2^32). */
	uint32_t index(uint64_t frag) const;
	/* The hint of the ACK of fragment `frag`: new_index replaces the
	 * index of frag's original index from epoch(frag) + 2 on. False (and
	 * no change) when new_index is INA_NO_REMAP, out of range or already
	 * known. */
	bool apply_hint(uint64_t frag, uint32_t new_index);

private:
	static constexpr uint32_t kChanges = 4;
	struct Entry {
		std::atomic<uint32_t> base;
		std::atomic<uint32_t> count{0};
		std::atomic<uint32_t> epoch[kChanges];
		std::atomic<uint32_t> index[kChanges];
	};
	uint32_t epoch_of(uint64_t frag) const { return static_cast<uint32_t>(frag >> epoch_shift_); }
	uint32_t lookup(const Entry &e, uint32_t epoch) const;

	uint16_t job_;
	uint32_t n_;
	IndexPolicy policy_;
	uint32_t epoch_shift_;
	std::unique_ptr<Entry[]> map_;
	std::vector<uint32_t> slot_index_; /* Hash: slot -> original index, no repeats */
	std::atomic<uint32_t> version_{0}; /* odd while a hint is written */
	std::mutex write_m_;
};

} /* namespace ina */

#endif /* INA_WORKER_REMAP_H */
