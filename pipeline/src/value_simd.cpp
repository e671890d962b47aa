/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The value stage's kernels: byte-swap big-endian int32 from the packet and
 * add with signed saturation into the aggregator's registers. Three builds of
 * the same arithmetic: scalar, AVX2 and AVX-512 (F + BW), compiled per
 * function with target attributes so the library itself keeps a portable
 * baseline, and chosen at run time. All three give bit-identical results:
 * saturating addition is exact, there is no rounding to differ.
 *
 * Saturation holds (ATP §3.8): an element at INT32_MAX or INT32_MIN stays
 * there whatever is added, until a claim writes the register again, because
 * a clipped sum has lost what a later add would need to undo it.
 *
 * The clip test is the one a Tofino lane can afford (docs/p4.md, "The
 * overflow test"): an add reports a clip when an element it leaves in the
 * register is at INT32_MAX or INT32_MIN, whether it clipped, was held there,
 * or landed there exactly. It looks at the new word only, the word a
 * stateful ALU returns, and never misses a clip; the cost of the rare sum
 * that lands on a limit exactly is that the PS recomputes that fragment in
 * floating point (OVERFLOW, docs/pipeline.md), which is exact anyway.
 */
/* GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own
 * _mm512_undefined_epi32(); the warning is about the header, not this code. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "registers.h"

namespace ina {

namespace {

/* ---------- scalar ---------- */

inline int32_t load_be(const uint8_t *p)
{
	return static_cast<int32_t>(ina_load32(p));
}

inline void store_be(uint8_t *p, int32_t v)
{
	ina_store32(p, static_cast<uint32_t>(v));
}

/* Signed saturating add that holds a saturated element; sets *ovf when the
 * element it returns is at INT32_MAX or INT32_MIN. */
inline int32_t sat_add(int32_t a, int32_t b, uint32_t *ovf)
{
	int32_t r;
	if (a == (a < 0 ? INT32_MIN : INT32_MAX))
		r = a;
	else if (__builtin_add_overflow(a, b, &r))
		r = a < 0 ? INT32_MIN : INT32_MAX;
	*ovf |= r == INT32_MAX || r == INT32_MIN;
	return r;
}

void write_scalar(int32_t *reg, const uint8_t *pkt, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		reg[i] = load_be(pkt + 4 * i);
}

bool add_scalar(int32_t *reg, const uint8_t *pkt, uint32_t n)
{
	uint32_t ovf = 0;
	for (uint32_t i = 0; i < n; i++)
		reg[i] = sat_add(reg[i], load_be(pkt + 4 * i), &ovf);
	return ovf != 0;
}

bool add_read_scalar(int32_t *reg, uint8_t *pkt, uint32_t n)
{
	uint32_t ovf = 0;
	for (uint32_t i = 0; i < n; i++) {
		reg[i] = sat_add(reg[i], load_be(pkt + 4 * i), &ovf);
		store_be(pkt + 4 * i, reg[i]);
	}
	return ovf != 0;
}

void read_scalar(const int32_t *reg, uint8_t *pkt, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		store_be(pkt + 4 * i, reg[i]);
}

/* ---------- AVX2: 8 lanes, scalar tail ---------- */

#define INA_AVX2 __attribute__((target("avx2")))

INA_AVX2 inline __m256i bswap_avx2(__m256i v)
{
	const __m256i m = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
					   3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
	return _mm256_shuffle_epi8(v, m);
}

/* sat_add on 8 lanes; ORs the per-lane clip (all ones: the new element is
 * at a limit) into *ovf. `sat` is the limit on a's side, so a lane already
 * at it is held: it takes `sat`, which is a itself. */
INA_AVX2 inline __m256i sat_add_avx2(__m256i a, __m256i b, __m256i *ovf)
{
	__m256i s = _mm256_add_epi32(a, b);
	__m256i o = _mm256_and_si256(_mm256_xor_si256(a, s), _mm256_xor_si256(b, s));
	__m256i sat = _mm256_xor_si256(_mm256_srai_epi32(a, 31), _mm256_set1_epi32(INT32_MAX));
	__m256i held = _mm256_cmpeq_epi32(a, sat);
	__m256i r = _mm256_blendv_epi8(s, sat, _mm256_or_si256(_mm256_srai_epi32(o, 31), held));
	__m256i at_max = _mm256_cmpeq_epi32(r, _mm256_set1_epi32(INT32_MAX));
	__m256i at_min = _mm256_cmpeq_epi32(r, _mm256_set1_epi32(INT32_MIN));
	*ovf = _mm256_or_si256(*ovf, _mm256_or_si256(at_max, at_min));
	return r;
}

INA_AVX2 void write_avx2(int32_t *reg, const uint8_t *pkt, uint32_t n)
{
	uint32_t i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256i p = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(pkt + 4 * i));
		_mm256_storeu_si256(reinterpret_cast<__m256i *>(reg + i), bswap_avx2(p));
	}
	write_scalar(reg + i, pkt + 4 * i, n - i);
}

INA_AVX2 bool add_avx2(int32_t *reg, const uint8_t *pkt, uint32_t n)
{
	__m256i ovf = _mm256_setzero_si256();
	uint32_t i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256i p = bswap_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(pkt + 4 * i)));
		__m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(reg + i));
		_mm256_storeu_si256(reinterpret_cast<__m256i *>(reg + i), sat_add_avx2(r, p, &ovf));
	}
	bool tail = add_scalar(reg + i, pkt + 4 * i, n - i);
	return tail || _mm256_movemask_ps(_mm256_castsi256_ps(ovf)) != 0;
}

INA_AVX2 bool add_read_avx2(int32_t *reg, uint8_t *pkt, uint32_t n)
{
	__m256i ovf = _mm256_setzero_si256();
	uint32_t i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256i p = bswap_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(pkt + 4 * i)));
		__m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(reg + i));
		r = sat_add_avx2(r, p, &ovf);
		_mm256_storeu_si256(reinterpret_cast<__m256i *>(reg + i), r);
		_mm256_storeu_si256(reinterpret_cast<__m256i *>(pkt + 4 * i), bswap_avx2(r));
	}
	bool tail = add_read_scalar(reg + i, pkt + 4 * i, n - i);
	return tail || _mm256_movemask_ps(_mm256_castsi256_ps(ovf)) != 0;
}

INA_AVX2 void read_avx2(const int32_t *reg, uint8_t *pkt, uint32_t n)
{
	uint32_t i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(reg + i));
		_mm256_storeu_si256(reinterpret_cast<__m256i *>(pkt + 4 * i), bswap_avx2(r));
	}
	read_scalar(reg + i, pkt + 4 * i, n - i);
}

/* ---------- AVX-512 (F + BW): 16 lanes, masked tail ---------- */

#define INA_AVX512 __attribute__((target("avx512f,avx512bw")))

INA_AVX512 inline __m512i bswap_avx512(__m512i v)
{
	const __m512i m = _mm512_broadcast_i32x4(
		_mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
	return _mm512_shuffle_epi8(v, m);
}

/* sat_add on 16 lanes, as sat_add_avx2. */
INA_AVX512 inline __m512i sat_add_avx512(__m512i a, __m512i b, __mmask16 *ovf)
{
	__m512i s = _mm512_add_epi32(a, b);
	__m512i o = _mm512_and_si512(_mm512_xor_si512(a, s), _mm512_xor_si512(b, s));
	__mmask16 k = _mm512_cmplt_epi32_mask(o, _mm512_setzero_si512());
	__m512i sat = _mm512_xor_si512(_mm512_srai_epi32(a, 31), _mm512_set1_epi32(INT32_MAX));
	__mmask16 held = _mm512_cmpeq_epi32_mask(a, sat);
	__m512i r = _mm512_mask_mov_epi32(s, k | held, sat);
	*ovf |= _mm512_cmpeq_epi32_mask(r, _mm512_set1_epi32(INT32_MAX)) |
		_mm512_cmpeq_epi32_mask(r, _mm512_set1_epi32(INT32_MIN));
	return r;
}

inline __mmask16 tail_mask(uint32_t left)
{
	return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
}

INA_AVX512 void write_avx512(int32_t *reg, const uint8_t *pkt, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += 16) {
		__mmask16 k = tail_mask(n - i);
		__m512i p = _mm512_maskz_loadu_epi32(k, pkt + 4 * i);
		_mm512_mask_storeu_epi32(reg + i, k, bswap_avx512(p));
	}
}

INA_AVX512 bool add_avx512(int32_t *reg, const uint8_t *pkt, uint32_t n)
{
	__mmask16 ovf = 0;
	for (uint32_t i = 0; i < n; i += 16) {
		__mmask16 k = tail_mask(n - i);
		__m512i p = bswap_avx512(_mm512_maskz_loadu_epi32(k, pkt + 4 * i));
		__m512i r = _mm512_maskz_loadu_epi32(k, reg + i);
		/* Lanes outside k add 0 + 0: 0, at no limit. */
		_mm512_mask_storeu_epi32(reg + i, k, sat_add_avx512(r, p, &ovf));
	}
	return ovf != 0;
}

INA_AVX512 bool add_read_avx512(int32_t *reg, uint8_t *pkt, uint32_t n)
{
	__mmask16 ovf = 0;
	for (uint32_t i = 0; i < n; i += 16) {
		__mmask16 k = tail_mask(n - i);
		__m512i p = bswap_avx512(_mm512_maskz_loadu_epi32(k, pkt + 4 * i));
		__m512i r = _mm512_maskz_loadu_epi32(k, reg + i);
		r = sat_add_avx512(r, p, &ovf);
		_mm512_mask_storeu_epi32(reg + i, k, r);
		_mm512_mask_storeu_epi32(pkt + 4 * i, k, bswap_avx512(r));
	}
	return ovf != 0;
}

INA_AVX512 void read_avx512(const int32_t *reg, uint8_t *pkt, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += 16) {
		__mmask16 k = tail_mask(n - i);
		__m512i r = _mm512_maskz_loadu_epi32(k, reg + i);
		_mm512_mask_storeu_epi32(pkt + 4 * i, k, bswap_avx512(r));
	}
}

constexpr ValueKernels kScalar = {write_scalar, add_scalar, add_read_scalar, read_scalar};
constexpr ValueKernels kAvx2 = {write_avx2, add_avx2, add_read_avx2, read_avx2};
constexpr ValueKernels kAvx512 = {write_avx512, add_avx512, add_read_avx512, read_avx512};

} /* namespace */

const ValueKernels &value_kernels(SimdLevel level)
{
	switch (level) {
	case SimdLevel::kAvx512:
		return kAvx512;
	case SimdLevel::kAvx2:
		return kAvx2;
	default:
		return kScalar;
	}
}

SimdLevel simd_best()
{
	__builtin_cpu_init();
	SimdLevel best = SimdLevel::kScalar;
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
		best = SimdLevel::kAvx512;
	else if (__builtin_cpu_supports("avx2"))
		best = SimdLevel::kAvx2;
	/* INA_SIMD caps the choice, e.g. for valgrind, which lacks AVX-512. */
	const char *cap = std::getenv("INA_SIMD");
	if (cap != nullptr) {
		SimdLevel want = best;
		if (std::strcmp(cap, "scalar") == 0)
			want = SimdLevel::kScalar;
		else if (std::strcmp(cap, "avx2") == 0)
			want = SimdLevel::kAvx2;
		if (static_cast<int>(want) < static_cast<int>(best))
			best = want;
	}
	return best;
}

const char *simd_name(SimdLevel level)
{
	switch (level) {
	case SimdLevel::kAvx512:
		return "avx512";
	case SimdLevel::kAvx2:
		return "avx2";
	default:
		return "scalar";
	}
}

} /* namespace ina */
