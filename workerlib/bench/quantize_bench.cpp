/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Quantization throughput: the dispatched loops (AVX2 when present) against
 * the portable ones measured in the same run, as a ratio, plus a naive
 * per-element lrint + bswap loop as the baseline any vectorisation must beat.
 *   ina-worker-quantize-bench [values] [reps]
 */
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ina/worker/quantize.h"

namespace {

__attribute__((noinline)) void naive(const float *src, uint8_t *dst, size_t n, double scale)
{
	for (size_t i = 0; i < n; i++) {
		double v = src[i] * scale;
		v = v > 2147483647.0 ? 2147483647.0 : v < -2147483648.0 ? -2147483648.0 : v;
		uint32_t q = __builtin_bswap32(static_cast<uint32_t>(static_cast<int32_t>(std::lrint(v))));
		memcpy(dst + 4 * i, &q, 4);
	}
}

template <typename F> double seconds(F f, int reps)
{
	auto t0 = std::chrono::steady_clock::now();
	for (int r = 0; r < reps; r++)
		f();
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} /* namespace */

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : 62 * 1024;
	int reps = argc > 2 ? atoi(argv[2]) : 2000;
	std::vector<float> in(n), out(n);
	std::vector<uint8_t> wire(4 * n);
	for (size_t i = 0; i < n; i++)
		in[i] = static_cast<float>((static_cast<int>(i % 2001) - 1000) * 1e-4);

	double t_naive = seconds([&] { naive(in.data(), wire.data(), n, 1e8); }, reps);
	ina::quantize_force_scalar(true);
	double t_scalar_q = seconds([&] { ina::quantize_to_wire(in.data(), wire.data(), n, 1e8); }, reps);
	double t_scalar_d = seconds([&] { ina::dequantize_from_wire(wire.data(), out.data(), n, 1e8); }, reps);
	ina::quantize_force_scalar(false);
	double t_q = seconds([&] { ina::quantize_to_wire(in.data(), wire.data(), n, 1e8); }, reps);
	double t_d = seconds([&] { ina::dequantize_from_wire(wire.data(), out.data(), n, 1e8); }, reps);

	double gv = static_cast<double>(n) * reps / 1e9;
	printf("quantize %s: %.2f Gvalues/s; x%.2f vs portable, x%.2f vs naive lrint loop\n", ina::quantize_impl(),
	       gv / t_q, t_scalar_q / t_q, t_naive / t_q);
	printf("dequantize %s: %.2f Gvalues/s; x%.2f vs portable\n", ina::quantize_impl(), gv / t_d,
	       t_scalar_d / t_d);
	return 0;
}
