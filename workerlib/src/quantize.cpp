/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/worker/quantize.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>

namespace ina {

namespace {

/* Bounds in the double domain: both are exact int32 values, so clamping
 * before the conversion can never produce cvt's "integer indefinite". */
constexpr double kMax = 2147483647.0;
constexpr double kMin = -2147483648.0;

inline int32_t quantize_one(float x, double scale, uint32_t *saturated)
{
	double v = static_cast<double>(x) * scale;
	if (!(v == v)) /* NaN */
		return 0;
	if (v >= kMax) {
		*saturated += v > kMax;
		return INT32_MAX;
	}
	if (v <= kMin) {
		*saturated += v < kMin;
		return INT32_MIN;
	}
	/* Round half to even, as cvtpd2dq does in the AVX2 path. */
	return static_cast<int32_t>(std::nearbyint(v));
}

uint32_t quantize_scalar(const float *src, uint8_t *dst, size_t n, double scale)
{
	uint32_t saturated = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = __builtin_bswap32(static_cast<uint32_t>(quantize_one(src[i], scale, &saturated)));
		memcpy(dst + 4 * i, &v, 4);
	}
	return saturated;
}

void dequantize_scalar(const uint8_t *src, float *dst, size_t n, double scale)
{
	const double inv = 1.0 / scale;
	for (size_t i = 0; i < n; i++) {
		uint32_t v;
		memcpy(&v, src + 4 * i, 4);
		dst[i] = static_cast<float>(static_cast<int32_t>(__builtin_bswap32(v)) * inv);
	}
}

__attribute__((target("avx2"))) uint32_t quantize_avx2(const float *src, uint8_t *dst, size_t n, double scale)
{
	const __m256d vscale = _mm256_set1_pd(scale);
	const __m256d vmax = _mm256_set1_pd(kMax);
	const __m256d vmin = _mm256_set1_pd(kMin);
	/* Byte swap within each 32-bit lane. */
	const __m128i bswap = _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
	__m256d sat = _mm256_setzero_pd();
	const __m256d one = _mm256_set1_pd(1.0);
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		__m256d v = _mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(src + i)), vscale);
		__m256d ord = _mm256_cmp_pd(v, v, _CMP_ORD_Q);
		__m256d over = _mm256_or_pd(_mm256_cmp_pd(v, vmax, _CMP_GT_OQ), _mm256_cmp_pd(v, vmin, _CMP_LT_OQ));
		sat = _mm256_add_pd(sat, _mm256_and_pd(over, one));
		v = _mm256_min_pd(_mm256_max_pd(v, vmin), vmax);
		v = _mm256_and_pd(v, ord); /* NaN -> 0 */
		__m128i q = _mm256_cvtpd_epi32(v);
		_mm_storeu_si128(reinterpret_cast<__m128i *>(dst + 4 * i), _mm_shuffle_epi8(q, bswap));
	}
	double s[4];
	_mm256_storeu_pd(s, sat);
	uint32_t saturated = static_cast<uint32_t>(s[0] + s[1] + s[2] + s[3]);
	return saturated + quantize_scalar(src + i, dst + 4 * i, n - i, scale);
}

__attribute__((target("avx2"))) void dequantize_avx2(const uint8_t *src, float *dst, size_t n, double scale)
{
	const __m256d inv = _mm256_set1_pd(1.0 / scale);
	const __m128i bswap = _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		__m128i q = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(src + 4 * i)), bswap);
		__m256d v = _mm256_mul_pd(_mm256_cvtepi32_pd(q), inv);
		_mm_storeu_ps(dst + i, _mm256_cvtpd_ps(v));
	}
	dequantize_scalar(src + 4 * i, dst + i, n - i, scale);
}

/* Plain byte-swapping copies; the compiler vectorises these (pshufb). */
void bswap32_copy(const uint8_t *src, uint8_t *dst, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v;
		memcpy(&v, src + 4 * i, 4);
		v = __builtin_bswap32(v);
		memcpy(dst + 4 * i, &v, 4);
	}
}

bool use_avx2()
{
	static const bool has = __builtin_cpu_supports("avx2");
	return has;
}

bool g_force_scalar = false;

} /* namespace */

uint32_t quantize_to_wire(const float *src, void *dst, size_t n, double scale)
{
	if (use_avx2() && !g_force_scalar)
		return quantize_avx2(src, static_cast<uint8_t *>(dst), n, scale);
	return quantize_scalar(src, static_cast<uint8_t *>(dst), n, scale);
}

void dequantize_from_wire(const void *src, float *dst, size_t n, double scale)
{
	if (use_avx2() && !g_force_scalar)
		dequantize_avx2(static_cast<const uint8_t *>(src), dst, n, scale);
	else
		dequantize_scalar(static_cast<const uint8_t *>(src), dst, n, scale);
}

void floats_to_wire(const float *src, void *dst, size_t n)
{
	bswap32_copy(reinterpret_cast<const uint8_t *>(src), static_cast<uint8_t *>(dst), n);
}

void floats_from_wire(const void *src, float *dst, size_t n)
{
	bswap32_copy(static_cast<const uint8_t *>(src), reinterpret_cast<uint8_t *>(dst), n);
}

const char *quantize_impl()
{
	return use_avx2() && !g_force_scalar ? "avx2" : "scalar";
}

void quantize_force_scalar(bool on)
{
	g_force_scalar = on;
}

} /* namespace ina */
