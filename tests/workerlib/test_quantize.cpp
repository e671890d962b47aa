/* SPDX-License-Identifier: BSD-3-Clause */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ina/wire.h"
#include "ina/worker/quantize.h"

using namespace ina;

namespace {

struct ScalarGuard {
	explicit ScalarGuard(bool on) { quantize_force_scalar(on); }
	~ScalarGuard() { quantize_force_scalar(false); }
};

int32_t wire_at(const std::vector<uint8_t> &w, size_t i)
{
	return static_cast<int32_t>(ina_load32(w.data() + 4 * i));
}

} /* namespace */

TEST(Quantize, RoundsToNearestBigEndian)
{
	const float in[] = {1.0f, -1.0f, 0.5e-8f, 1.5e-8f, 0.0f, 2.5e-8f, -2.5e-8f, 3e-8f, 12.345678f};
	std::vector<uint8_t> w(sizeof(in));
	EXPECT_EQ(quantize_to_wire(in, w.data(), 9, 1e8), 0u);
	EXPECT_EQ(wire_at(w, 0), 100000000);
	EXPECT_EQ(wire_at(w, 1), -100000000);
	EXPECT_EQ(w[0], 0x05); /* 100000000 = 0x05F5E100, big endian */
	EXPECT_EQ(w[1], 0xF5);
	EXPECT_EQ(w[3], 0x00);
	for (size_t i = 2; i < 9; i++) {
		double exact = static_cast<double>(in[i]) * 1e8;
		EXPECT_LE(std::fabs(wire_at(w, i) - exact), 0.5) << i;
	}
}

TEST(Quantize, SaturatesAndCountsAndNanIsZero)
{
	for (bool scalar : {false, true}) {
		ScalarGuard g(scalar);
		const float in[] = {30.0f, -30.0f, 21.0f, -21.0f, NAN, INFINITY, -INFINITY, 21.474836f};
		std::vector<uint8_t> w(sizeof(in));
		uint32_t sat = quantize_to_wire(in, w.data(), 8, 1e8);
		EXPECT_EQ(sat, 4u) << quantize_impl();
		EXPECT_EQ(wire_at(w, 0), INT32_MAX);
		EXPECT_EQ(wire_at(w, 1), INT32_MIN);
		EXPECT_EQ(wire_at(w, 2), 2100000000);
		EXPECT_EQ(wire_at(w, 3), -2100000000);
		EXPECT_EQ(wire_at(w, 4), 0);
		EXPECT_EQ(wire_at(w, 5), INT32_MAX);
		EXPECT_EQ(wire_at(w, 6), INT32_MIN);
		EXPECT_LE(std::fabs(wire_at(w, 7) - 21.474836f * 1e8), 0.5);
	}
}

TEST(Quantize, VectorAndScalarAgreeBitForBit)
{
	std::mt19937 rng(7);
	std::uniform_real_distribution<float> d(-30.f, 30.f);
	for (size_t n : {0u, 1u, 3u, 4u, 5u, 62u, 63u, 1000u}) {
		std::vector<float> in(n);
		for (auto &x : in)
			x = d(rng) * (rng() % 2 ? 1e-6f : 1.f);
		std::vector<uint8_t> a(4 * n + 4), b(4 * n + 4);
		uint32_t sa, sb;
		{
			ScalarGuard g(true);
			sb = quantize_to_wire(in.data(), b.data(), n, 1e8);
		}
		sa = quantize_to_wire(in.data(), a.data(), n, 1e8);
		EXPECT_EQ(sa, sb);
		EXPECT_EQ(a, b) << "n=" << n;
		std::vector<float> da(n), db(n);
		dequantize_from_wire(a.data(), da.data(), n, 1e8);
		{
			ScalarGuard g(true);
			dequantize_from_wire(a.data(), db.data(), n, 1e8);
		}
		if (n) { /* memcmp wants valid pointers even for 0 bytes */
			EXPECT_EQ(0, memcmp(da.data(), db.data(), n * sizeof(float)));
		}
	}
}

/* The sum of n workers' quantized values, converted back, is within n / s of
 * the exact sum (each rounding is at most 0.5 / s; the final float
 * conversion adds a relative 2^-24). */
TEST(Quantize, ErrorBoundForNWorkers)
{
	std::mt19937 rng(11);
	for (uint32_t workers : {1u, 2u, 8u, 32u}) {
		for (double scale : {1e8, 1e6, 1e4}) {
			const size_t n = 4096;
			const double range = 2.0e9 / scale / workers; /* no saturation */
			std::uniform_real_distribution<double> d(-range, range);
			std::vector<int64_t> sum(n, 0);
			std::vector<double> exact(n, 0);
			std::vector<uint8_t> w(4 * n);
			for (uint32_t r = 0; r < workers; r++) {
				std::vector<float> v(n);
				for (auto &x : v)
					x = static_cast<float>(d(rng));
				ASSERT_EQ(quantize_to_wire(v.data(), w.data(), n, scale), 0u);
				for (size_t i = 0; i < n; i++) {
					sum[i] += wire_at(w, i);
					exact[i] += v[i];
				}
			}
			std::vector<uint8_t> sw(4 * n);
			for (size_t i = 0; i < n; i++) {
				ASSERT_LE(std::llabs(sum[i]), INT32_MAX);
				ina_store32(sw.data() + 4 * i, static_cast<uint32_t>(static_cast<int32_t>(sum[i])));
			}
			std::vector<float> back(n);
			dequantize_from_wire(sw.data(), back.data(), n, scale);
			double worst = 0;
			for (size_t i = 0; i < n; i++) {
				double err = std::fabs(back[i] - exact[i]);
				double bound = workers / (2 * scale) + std::fabs(exact[i]) * 0x1p-24;
				EXPECT_LE(err, bound) << "workers " << workers << " scale " << scale << " i " << i;
				worst = std::max(worst, err - std::fabs(exact[i]) * 0x1p-24);
			}
			/* The headline bound n / s holds with margin. */
			EXPECT_LE(worst, workers / scale);
		}
	}
}

TEST(Quantize, FloatPayloadRoundTrip)
{
	const float in[] = {1.5f, -2.25f, 3e38f, -0.0f, 1e-30f};
	std::vector<uint8_t> w(sizeof(in));
	floats_to_wire(in, w.data(), 5);
	uint32_t bits;
	memcpy(&bits, &in[0], 4);
	EXPECT_EQ(ina_load32(w.data()), bits);
	float out[5];
	floats_from_wire(w.data(), out, 5);
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
}

TEST(Quantize, UsesAvx2WhenAvailable)
{
	EXPECT_STREQ(quantize_impl(), __builtin_cpu_supports("avx2") ? "avx2" : "scalar");
}
