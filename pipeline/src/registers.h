/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The register arrays behind an AggregatorTable, and the value stage's
 * vector kernels. Private to the pipeline library.
 */
#ifndef INA_PIPELINE_REGISTERS_H
#define INA_PIPELINE_REGISTERS_H

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "ina/pipeline.h"

namespace ina {

/* aggregator_flags register bits. */
enum : uint8_t {
	kAggEcn = 1u << 0,
	kAggCol = 1u << 1,
	kAggOverflow = 1u << 2,
};

/* aggregator_id register: the identifier <epoch, job, seq> packed as one key
 * (job 0 is reserved, so key 0 means empty) and the time of the last
 * aggregation. The epoch makes a slot left by a dead run of the job a
 * collision for the next run, never a match (docs/security.md). */
struct AggregatorId {
	uint64_t key;
	uint64_t timestamp;
};

inline uint64_t aggregator_key(uint8_t epoch, uint16_t job, uint32_t seq)
{
	return (static_cast<uint64_t>(epoch) << 48) | (static_cast<uint64_t>(job) << 32) | seq;
}

inline uint16_t key_job(uint64_t key)
{
	return static_cast<uint16_t>(key >> 32);
}

inline uint8_t key_epoch(uint64_t key)
{
	return static_cast<uint8_t>(key >> 48);
}

/* Vector kernels of the value stage, one set per SimdLevel. Registers hold
 * host-order int32; packets carry big-endian int32. The adds saturate, and
 * an element at INT32_MAX / INT32_MIN stays there (ATP §3.8). Each returns
 * true if an add left an element at INT32_MAX / INT32_MIN (clipped, held
 * or landed there: the test a Tofino lane can make, docs/p4.md). */
struct ValueKernels {
	/* reg = pkt */
	void (*write)(int32_t *reg, const uint8_t *pkt, uint32_t n);
	/* reg = reg at a limit ? reg : sat(reg + pkt) */
	bool (*add)(int32_t *reg, const uint8_t *pkt, uint32_t n);
	/* as add; pkt = reg */
	bool (*add_read)(int32_t *reg, uint8_t *pkt, uint32_t n);
	/* pkt = reg */
	void (*read)(const int32_t *reg, uint8_t *pkt, uint32_t n);
};

const ValueKernels &value_kernels(SimdLevel level);

/* Gives a register array back to the allocator it came from. */
struct RegisterDeleter {
	RegisterAllocator mem;
	void operator()(void *p) const
	{
		if (mem.free != nullptr)
			mem.free(p, mem.ctx);
		else
			std::free(p);
	}
};

template <typename T> using RegisterArray = std::unique_ptr<T[], RegisterDeleter>;

/* n zeroed elements of T from `mem` (the C heap without an alloc function),
 * rounded up to whole 64-byte lines so that each value row sits on its own
 * cache lines; the bytes taken are added to *total. Throws std::bad_alloc. */
template <typename T>
RegisterArray<T> alloc_registers(size_t n, const RegisterAllocator &mem, size_t *total)
{
	constexpr size_t kAlign = 64;
	size_t bytes = (n * sizeof(T) + kAlign - 1) & ~(kAlign - 1);
	if (bytes == 0)
		bytes = kAlign;
	void *p = mem.alloc != nullptr ? mem.alloc(bytes, kAlign, mem.ctx)
				       : std::aligned_alloc(kAlign, bytes);
	if (p == nullptr)
		throw std::bad_alloc();
	std::memset(p, 0, bytes);
	*total += bytes;
	return RegisterArray<T>(static_cast<T *>(p), RegisterDeleter{mem});
}

struct AggregatorTable::Registers {
	RegisterArray<AggregatorId> id;
	RegisterArray<uint32_t> bitmap;
	RegisterArray<uint32_t> count;
	RegisterArray<uint8_t> flags;
	/* slots x stride int32, each row 64-byte aligned */
	RegisterArray<int32_t> value;
	/* job_held: per job id, how many of this table's slots its key names
	 * (any epoch). Changed only with the id register's key (set_key, and
	 * process()'s claims and frees), so it never drifts from it. */
	RegisterArray<uint32_t> held;
	uint32_t value_stride = 0;
	size_t bytes = 0; /* all six arrays */
	const ValueKernels *kernels = nullptr;
};

} /* namespace ina */

#endif /* INA_PIPELINE_REGISTERS_H */
