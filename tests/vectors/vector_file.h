/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Conformance vector files (tests/vectors/README.md): parser and frame
 * builder. Used by the vector runner, and by the fuzz harness's seed export.
 */
#ifndef INA_TESTS_VECTOR_FILE_H
#define INA_TESTS_VECTOR_FILE_H

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ina/pipeline.h"

namespace inavec {

/* The fields a frame is built from (`in:` keys, and `out:` keys). */
struct FrameFields {
	uint8_t version = INA_VERSION;
	uint8_t type = INA_TYPE_DATA;
	uint16_t flags = 0;
	uint16_t job = 0;
	uint16_t agg_node = 0;
	uint32_t seq = 0;
	uint32_t index = 0;
	uint32_t remap = INA_NO_REMAP;
	std::optional<uint16_t> elems; /* default: values.size() */
	uint8_t level = 0;
	uint8_t levels = 1;
	uint32_t bitmaps[INA_MAX_LEVELS] = {};
	uint8_t fan_ins[INA_MAX_LEVELS] = {};
	std::vector<int32_t> values;
	bool values_given = false;
	/* Outer-header overrides. */
	std::optional<uint16_t> eth_type;
	std::optional<uint8_t> ip_vihl;
	std::optional<uint8_t> ip_tos;
	std::optional<uint16_t> ip_len;
	std::optional<uint8_t> ip_proto;
	std::optional<uint16_t> udp_dport;
	std::optional<uint16_t> udp_len;
	std::optional<uint32_t> frame_len;
};

struct InPacket {
	int line = 0;
	uint64_t now = 0;
	std::vector<uint8_t> frame;
};

struct OutSpec {
	int line = 0;
	ina::Verdict verdict = ina::Verdict::kDrop;
	ina::Counter reason = ina::Counter::kCount;
	FrameFields fields; /* downstream / multicast only */
};

struct AggSpec {
	int line = 0;
	uint32_t index = 0;
	bool empty = false;
	uint8_t epoch = 0;
	uint16_t job = 0;
	uint32_t seq = 0;
	uint64_t timestamp = 0;
	uint32_t bitmap = 0;
	uint32_t count = 0;
	bool ecn = false;
	bool col = false;
	bool overflow = false;
	std::vector<int32_t> values;
};

struct Step {
	InPacket in;
	OutSpec out;
};

struct Vector {
	std::string path;
	std::string name;
	std::vector<std::string> doc;
	std::set<std::string> targets;
	std::map<std::string, std::string> skip; /* target -> reason */
	ina::PipelineConfig config;
	/* config max_aggregators=<job>:<n>,...: each job's share of the table
	 * (process()'s `share`); a job not listed has no limit. */
	std::map<uint16_t, uint32_t> max_aggregators;
	std::vector<AggSpec> before;
	std::vector<AggSpec> after;
	std::vector<Step> steps;
	std::map<ina::Counter, uint64_t> counters;
};

/* Parses one file; on error returns false with "path:line: message". */
bool parse_vector_file(const std::string &path, Vector *out, std::string *err);

/* Builds the frame the fields describe (README "in: a packet"). */
std::vector<uint8_t> build_frame(const FrameFields &f);

/* Builds the frame an `out:` line expects, with the outer headers (the
 * bytes before the INA header) of the frame that went in. */
std::vector<uint8_t> build_expected(const FrameFields &f, const std::vector<uint8_t> &in_frame);

const char *verdict_name(ina::Verdict v);
std::string flags_string(uint16_t flags);

} /* namespace inavec */

#endif /* INA_TESTS_VECTOR_FILE_H */
