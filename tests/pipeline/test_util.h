/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Helpers shared by the pipeline unit tests: frames built with the vector
 * files' builder (tests/vectors/vector_file.h), header field access, and a
 * table + counters fixture.
 */
#ifndef INA_TESTS_PIPELINE_TEST_UTIL_H
#define INA_TESTS_PIPELINE_TEST_UTIL_H

#include <cstdint>
#include <memory>
#include <vector>

#include "ina/pipeline.h"
#include "vector_file.h"

namespace inatest {

using Frame = std::vector<uint8_t>;

/* A gradient of `elements` values all equal to `value` (fields as named). */
inline inavec::FrameFields gradient(uint16_t job, uint32_t seq, uint32_t index, uint32_t bitmap, uint8_t fan_in,
				    uint32_t elements = 62, int32_t value = 1)
{
	inavec::FrameFields f;
	f.job = job;
	f.seq = seq;
	f.index = index;
	f.levels = 1;
	f.bitmaps[0] = bitmap;
	f.fan_ins[0] = fan_in;
	f.values.assign(elements, value);
	f.values_given = true;
	return f;
}

inline inavec::FrameFields parameter(uint16_t job, uint32_t seq, uint32_t index, uint32_t elements = 62)
{
	inavec::FrameFields f;
	f.flags = INA_F_ACK;
	f.job = job;
	f.seq = seq;
	f.index = index;
	f.levels = 1;
	f.values.assign(elements, 0);
	f.values_given = true;
	return f;
}

inline const uint8_t *ina_hdr_of(const Frame &f) { return f.data() + INA_HDR_OFFSET; }
inline uint16_t flags_of(const Frame &f) { return ina_load16(ina_hdr_of(f) + offsetof(ina_hdr, flags)); }
inline uint8_t level_of(const Frame &f) { return ina_hdr_of(f)[offsetof(ina_hdr, level)]; }
inline uint32_t bitmap_of(const Frame &f, int level)
{
	return ina_load32(ina_hdr_of(f) + offsetof(ina_hdr, bitmap) + 4 * level);
}
inline int32_t value_of(const Frame &f, size_t i)
{
	return static_cast<int32_t>(ina_load32(f.data() + INA_PAYLOAD_OFFSET + 4 * i));
}

struct Switch {
	ina::PipelineConfig cfg;
	std::unique_ptr<ina::AggregatorTable> table;
	ina::PipelineCounters ctr;

	explicit Switch(ina::PipelineConfig c = default_config(), ina::SimdLevel simd = ina::simd_best())
		: cfg(c), table(std::make_unique<ina::AggregatorTable>(c, simd))
	{
	}
	static ina::PipelineConfig default_config()
	{
		ina::PipelineConfig c;
		c.aggregators = 64;
		return c;
	}
	ina::Result run(Frame &f, uint64_t now = 1)
	{
		return ina::process(*table, ctr, f.data(), static_cast<uint32_t>(f.size()), now);
	}
	/* Builds and runs; the rewritten frame is left in *out when given. */
	ina::Result run(const inavec::FrameFields &fields, uint64_t now = 1, Frame *out = nullptr)
	{
		Frame f = inavec::build_frame(fields);
		ina::Result r = run(f, now);
		if (out)
			*out = f;
		return r;
	}
	uint64_t count(ina::Counter c) const { return ctr[c]; }
	ina::AggregatorState agg(uint32_t i) const { return table->read(i); }
};

} /* namespace inatest */

#endif /* INA_TESTS_PIPELINE_TEST_UTIL_H */
