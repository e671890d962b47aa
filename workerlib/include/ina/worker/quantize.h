/* SPDX-License-Identifier: BSD-3-Clause
 *
 * float <-> int32 conversion for the wire (ATP §3.8): a float x becomes
 * round(x * scale), saturated to the int32 range, stored big endian; a
 * received int32 sum becomes sum / scale. The product is formed in double so
 * that the only error is the rounding to an integer (at most 0.5 / scale per
 * value): n workers' sum is off by at most n / (2 scale) before the final
 * conversion to float.
 *
 * The loops run an AVX2 version when the CPU has it (chosen once at start-up)
 * and a portable one otherwise; both give bit-identical results.
 */
#ifndef INA_WORKER_QUANTIZE_H
#define INA_WORKER_QUANTIZE_H

#include <cstddef>
#include <cstdint>

namespace ina {

/* Default scaling factor (ATP §3.8). */
constexpr double kDefaultScale = 1e8;

/* Writes n big-endian int32 values round(src[i] * scale) to dst (any
 * alignment). Values beyond the int32 range saturate; NaN becomes 0. Returns
 * how many values saturated. */
uint32_t quantize_to_wire(const float *src, void *dst, size_t n, double scale);

/* Reads n big-endian int32 values from src and writes src[i] / scale. */
void dequantize_from_wire(const void *src, float *dst, size_t n, double scale);

/* float32 payloads (the overflow retry, INA_F_FLOAT): big-endian copies. */
void floats_to_wire(const float *src, void *dst, size_t n);
void floats_from_wire(const void *src, float *dst, size_t n);

/* Name of the implementation in use: "avx2" or "scalar". */
const char *quantize_impl();

/* Forces the portable loops (tests compare the two). */
void quantize_force_scalar(bool on);

} /* namespace ina */

#endif /* INA_WORKER_QUANTIZE_H */
