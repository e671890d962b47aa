/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The NetReduce value stage: a packet's little-endian elements added into a
 * slot. Out of line with restrict pointers so that the loops vectorize, and
 * cloned per ISA (AVX-512, AVX2, the x86-64-v2 baseline) and picked at load
 * time, like pipeline/src/value_simd.cpp does for the INA path.
 */
#include <climits>
#include <cstring>

#include "nr_registers.h"

namespace ina {

#define NR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

NR_CLONES void nr_add_f32(float *__restrict acc, const uint8_t *__restrict src, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		float v;
		std::memcpy(&v, src + 4 * i, 4);
		acc[i] += v;
	}
}

/* Saturating: an overflow has both operands' sign and the other result
 * sign; it clips to the operands' side. Returns true if any clipped. */
NR_CLONES bool nr_add_i32(int32_t *__restrict acc, const uint8_t *__restrict src, uint32_t n)
{
	uint32_t clipped = 0;
	for (uint32_t i = 0; i < n; i++) {
		int32_t b;
		std::memcpy(&b, src + 4 * i, 4);
		const int32_t a = acc[i];
		const int32_t s = static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
		const int32_t ovf = ((a ^ s) & (b ^ s)) >> 31; /* -1 on overflow */
		const int32_t lim = (a >> 31) ^ INT32_MAX;       /* INT_MAX, or INT_MIN for a < 0 */
		acc[i] = (s & ~ovf) | (lim & ovf);
		clipped |= static_cast<uint32_t>(ovf);
	}
	return clipped != 0;
}

} /* namespace ina */
