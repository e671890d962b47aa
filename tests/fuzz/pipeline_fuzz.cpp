/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer harness over ina::peek() and ina::process() (with and without
 * the caller's children).
 *
 * Input: one config byte, then records <u16 length (LE), u8 time step, frame
 * bytes>; the frames run in order through the same tables, so sequences of
 * packets (claim, add, resend, ACK, GC) are explored, not single frames. The
 * seeds are the conformance vectors (vector_runner --dump-seeds).
 *
 * Each frame is processed twice, by a scalar table and by a table on the best
 * SIMD path, and the harness checks:
 *   - nothing outside [frame, frame + len) is read or written: the frame sits
 *     between guard bytes that ASan poisons and that must keep their pattern;
 *   - the outer headers never change but for the UDP checksum, which every
 *     INA data packet that parses leaves with as 0; a frame that is passed
 *     through, handed to control, or dropped before the aggregator stages
 *     (malformed, misrouted) or forwarded untouched is not changed otherwise;
 *   - elem_count never changes (lengths are fixed: process() takes len by value);
 *   - peek() and process() agree on what is INA traffic;
 *   - the reason's counter was bumped;
 *   - both SIMD paths give identical verdicts, frames, counters and registers;
 *   - the table's occupied count matches its registers.
 */
#include <sanitizer/asan_interface.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "ina/pipeline.h"

namespace {

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xA5;
constexpr uint32_t kAggregators = 64;
constexpr uint64_t kGcTimeout = 50;

[[noreturn]] void die(const char *what)
{
	std::fprintf(stderr, "pipeline_fuzz: invariant broken: %s\n", what);
	std::abort();
}

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			die(#cond);       \
	} while (0)

struct Pair {
	std::unique_ptr<ina::AggregatorTable> scalar, simd;
};

/* Config byte: bit 0 = second lcore of two (stride 2, offset 1), bits 1-2 =
 * aggregator width. */
Pair &tables(uint8_t cfg_byte)
{
	static Pair pairs[8];
	Pair &p = pairs[cfg_byte & 7];
	if (!p.scalar) {
		static const uint16_t kElements[4] = {62, 256, 16, 1};
		ina::PipelineConfig c;
		c.aggregators = kAggregators;
		c.stride = (cfg_byte & 1) ? 2 : 1;
		c.offset = (cfg_byte & 1) ? 1 : 0;
		c.elements = kElements[(cfg_byte >> 1) & 3];
		c.switch_id = 1;
		c.gc_timeout = kGcTimeout;
		p.scalar = std::make_unique<ina::AggregatorTable>(c, ina::SimdLevel::kScalar);
		p.simd = std::make_unique<ina::AggregatorTable>(c, ina::simd_best());
	}
	p.scalar->clear();
	p.simd->clear();
	return p;
}

/* A frame between poisoned guard bytes. */
struct Guarded {
	std::vector<uint8_t> buf;
	uint32_t len;
	Guarded(const uint8_t *data, uint32_t n) : buf(kGuard + n + kGuard, kGuardByte), len(n)
	{
		std::memcpy(buf.data() + kGuard, data, n);
		ASAN_POISON_MEMORY_REGION(buf.data(), kGuard);
		ASAN_POISON_MEMORY_REGION(buf.data() + kGuard + n, kGuard);
	}
	~Guarded() { ASAN_UNPOISON_MEMORY_REGION(buf.data(), buf.size()); }
	uint8_t *frame() { return buf.data() + kGuard; }
	void check_guards()
	{
		ASAN_UNPOISON_MEMORY_REGION(buf.data(), buf.size());
		for (size_t i = 0; i < kGuard; i++) {
			CHECK(buf[i] == kGuardByte);
			CHECK(buf[kGuard + len + i] == kGuardByte);
		}
	}
};

/* Paths on which process() stops before it has parsed a data packet: it
 * leaves the frame exactly as it came, UDP checksum included. */
bool before_parse(const ina::Result &r)
{
	using ina::Counter;
	switch (r.reason) {
	case Counter::pass_through:
	case Counter::control:
	case Counter::malformed_short:
	case Counter::malformed_version:
	case Counter::malformed_type:
	case Counter::malformed_length:
	case Counter::malformed_level:
	case Counter::malformed_fan_in:
	case Counter::malformed_bitmap:
	case Counter::malformed_index:
	case Counter::malformed_job:
		return true;
	default:
		return false;
	}
}

/* Paths on which process() leaves the frame as it came but for the UDP
 * checksum, which every parsed data packet leaves with as 0. */
bool untouched(const ina::Result &r)
{
	using ina::Counter;
	switch (r.reason) {
	case Counter::misrouted:
	case Counter::bypass:
	case Counter::float_forwarded:
	case Counter::goat_forwarded:
	case Counter::past_levels:
	case Counter::duplicate:
	case Counter::aggregated:
	case Counter::ack_freed:
	case Counter::gc_freed:
	case Counter::ack_unmatched:
		return true;
	default:
		return before_parse(r);
	}
}

void check_one(const uint8_t *in, uint32_t len, uint64_t now, Pair &p, ina::PipelineCounters &cs,
	       ina::PipelineCounters &cv)
{
	ina::InaView view{};
	bool is_ina = ina::peek(in, len, &view);

	Guarded a(in, len), b(in, len);
	ina::PipelineCounters cs_before = cs;
	/* Odd last byte: the caller's children (GOAT split sub-models), any
	 * fan-in 0..127 and any bits, from the frame's last five bytes. */
	ina::Children children;
	const ina::Children *ch = nullptr;
	if (len >= 5 && (in[len - 1] & 1)) {
		children.fan_in = static_cast<uint8_t>(in[len - 1] >> 1);
		children.allowed = ina_load32(in + len - 5);
		ch = &children;
	}
	ina::Result rs = ina::process(*p.scalar, cs, a.frame(), len, now, ina::kNoShareLimit, ch);
	ina::Result rv = ina::process(*p.simd, cv, b.frame(), len, now, ina::kNoShareLimit, ch);
	a.check_guards();
	b.check_guards();

	/* Both SIMD paths agree. */
	CHECK(rs.verdict == rv.verdict);
	CHECK(rs.reason == rv.reason);
	CHECK(std::memcmp(a.frame(), b.frame(), len) == 0);
	CHECK(std::memcmp(cs.v, cv.v, sizeof(cs.v)) == 0);

	CHECK(static_cast<size_t>(rs.reason) < ina::kCounterCount);
	CHECK(cs[rs.reason] > cs_before[rs.reason]);

	/* peek() and process() classify alike. */
	if (is_ina)
		CHECK(rs.verdict != ina::Verdict::kPass);
	else
		CHECK(rs.verdict == ina::Verdict::kPass || rs.reason == ina::Counter::malformed_short);
	if (rs.verdict == ina::Verdict::kPass)
		CHECK(rs.reason == ina::Counter::pass_through);

	/* What the frame must look like outside the INA header and payload. */
	std::vector<uint8_t> expect(in, in + len);
	if (!before_parse(rs)) {
		CHECK(is_ina && view.ina_offset >= 2);
		expect[view.ina_offset - 2] = expect[view.ina_offset - 1] = 0;
	}
	const uint8_t *want = len ? expect.data() : in; /* an empty vector's data() may be null */
	if (untouched(rs)) {
		CHECK(std::memcmp(a.frame(), want, len) == 0);
	} else {
		/* Rewritten: only the INA header and payload. */
		CHECK(is_ina);
		CHECK(std::memcmp(a.frame(), want, view.ina_offset) == 0);
		ina::InaView after{};
		CHECK(ina::peek(a.frame(), len, &after));
		CHECK(after.elem_count == view.elem_count);
		CHECK(after.job == view.job);
		CHECK(after.seq == view.seq);
		CHECK(after.agg_index == view.agg_index);
		CHECK(after.type == view.type);
		CHECK(rs.verdict == ina::Verdict::kDownstream);
	}
}

void check_tables(const ina::AggregatorTable &s, const ina::AggregatorTable &v)
{
	uint32_t occupied = 0;
	uint16_t n = s.config().elements;
	for (uint32_t i = 0; i < kAggregators; i++) {
		if (!s.owns(i))
			continue;
		ina::AggregatorState x = s.read(i), y = v.read(i);
		CHECK(x.occupied == y.occupied);
		occupied += x.occupied;
		if (!x.occupied)
			continue;
		CHECK(x.job != 0);
		CHECK(x.job == y.job && x.seq == y.seq && x.timestamp == y.timestamp);
		CHECK(x.bitmap == y.bitmap && x.count == y.count);
		CHECK(x.ecn == y.ecn && x.col == y.col && x.overflow == y.overflow);
		CHECK(std::memcmp(x.value, y.value, sizeof(int32_t) * n) == 0);
	}
	CHECK(occupied == s.occupied());
	CHECK(occupied == v.occupied());
}

} /* namespace */

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	Pair &p = tables(data[0]);
	ina::PipelineCounters cs, cv;
	size_t pos = 1;
	uint64_t now = 0;
	while (pos + 3 <= size) {
		size_t len = size_t(data[pos]) | size_t(data[pos + 1]) << 8;
		now += data[pos + 2];
		pos += 3;
		if (len > size - pos)
			len = size - pos;
		check_one(data + pos, static_cast<uint32_t>(len), now, p, cs, cv);
		pos += len;
	}
	check_tables(*p.scalar, *p.simd);
	return 0;
}
