/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Runs conformance vectors (tests/vectors/README.md) against ina::process():
 * every file, with every SIMD path this CPU has. Prints one line per file and
 * path, every field that differed, and "N passed, N failed" at the end.
 *
 *   vector_runner [--simd scalar|avx2|avx512|all] [-v] <file.vec | dir>...
 *   vector_runner --dump-seeds <out dir> <file.vec | dir>...
 *   vector_runner --expect-fail <file.vec | dir>...
 *
 * --dump-seeds writes each vector's input frames as one libFuzzer seed in
 * the format of tests/fuzz/pipeline_fuzz.cpp. --expect-fail checks the
 * runner itself: every file (tests/vectors/selftest/, each wrong in one
 * way) must fail or be rejected, or the run fails.
 */
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ina/pipeline.h"
#include "vector_file.h"

using namespace inavec;

namespace {

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xA5;

struct Report {
	std::vector<std::string> lines;
	void add(const std::string &s) { lines.push_back(s); }
	bool ok() const { return lines.empty(); }
};

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, f);
	std::vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return buf;
}

/* Decoded INA header of a frame (standard offsets). */
struct Decoded {
	uint8_t version, type, level, levels;
	uint16_t flags, job, agg_node, elems;
	uint32_t seq, index, remap;
	uint32_t bitmaps[INA_MAX_LEVELS];
	uint8_t fan_ins[INA_MAX_LEVELS];
};

Decoded decode(const std::vector<uint8_t> &b)
{
	const uint8_t *h = &b[INA_HDR_OFFSET];
	Decoded d;
	d.version = h[offsetof(ina_hdr, version)];
	d.type = h[offsetof(ina_hdr, type)];
	d.flags = ina_load16(h + offsetof(ina_hdr, flags));
	d.job = ina_load16(h + offsetof(ina_hdr, job_id));
	d.agg_node = ina_load16(h + offsetof(ina_hdr, agg_node));
	d.seq = ina_load32(h + offsetof(ina_hdr, seq));
	d.index = ina_load32(h + offsetof(ina_hdr, agg_index));
	d.remap = ina_load32(h + offsetof(ina_hdr, remap_index));
	d.elems = ina_load16(h + offsetof(ina_hdr, elem_count));
	d.level = h[offsetof(ina_hdr, level)];
	d.levels = h[offsetof(ina_hdr, levels)];
	for (uint32_t i = 0; i < INA_MAX_LEVELS; i++) {
		d.bitmaps[i] = ina_load32(h + offsetof(ina_hdr, bitmap) + 4 * i);
		d.fan_ins[i] = h[offsetof(ina_hdr, fan_in) + i];
	}
	return d;
}

std::string bitmaps_str(const uint32_t *b)
{
	return fmt("0x%x,0x%x,0x%x,0x%x", b[0], b[1], b[2], b[3]);
}

std::string fan_ins_str(const uint8_t *f)
{
	return fmt("%u,%u,%u,%u", f[0], f[1], f[2], f[3]);
}

/* Field-by-field difference of an output frame from the expected one. */
void diff_frames(const std::string &where, const std::vector<uint8_t> &want, const std::vector<uint8_t> &got,
		 Report &r)
{
	if (want.size() != got.size()) {
		r.add(fmt("%s: frame length: expected %zu, got %zu", where.c_str(), want.size(), got.size()));
		return;
	}
	if (want == got)
		return;
	for (size_t i = 0; i < INA_HDR_OFFSET && i < want.size(); i++) {
		if (want[i] != got[i]) {
			r.add(fmt("%s: outer header byte %zu changed: expected 0x%02x, got 0x%02x", where.c_str(), i,
				  want[i], got[i]));
			return;
		}
	}
	if (want.size() < INA_PAYLOAD_OFFSET) {
		r.add(where + ": frame bytes differ");
		return;
	}
	Decoded w = decode(want), g = decode(got);
	auto field = [&](const char *name, const std::string &ws, const std::string &gs) {
		if (ws != gs)
			r.add(fmt("%s: %s: expected %s, got %s", where.c_str(), name, ws.c_str(), gs.c_str()));
	};
	field("version", std::to_string(w.version), std::to_string(g.version));
	field("type", std::to_string(w.type), std::to_string(g.type));
	field("flags", flags_string(w.flags), flags_string(g.flags));
	field("job", std::to_string(w.job), std::to_string(g.job));
	field("agg_node", std::to_string(w.agg_node), std::to_string(g.agg_node));
	field("seq", std::to_string(w.seq), std::to_string(g.seq));
	field("index", std::to_string(w.index), std::to_string(g.index));
	field("remap", fmt("0x%x", w.remap), fmt("0x%x", g.remap));
	field("elems", std::to_string(w.elems), std::to_string(g.elems));
	field("level", std::to_string(w.level), std::to_string(g.level));
	field("levels", std::to_string(w.levels), std::to_string(g.levels));
	field("bitmaps", bitmaps_str(w.bitmaps), bitmaps_str(g.bitmaps));
	field("fan_ins", fan_ins_str(w.fan_ins), fan_ins_str(g.fan_ins));
	size_t shown = 0, differing = 0;
	for (size_t off = INA_PAYLOAD_OFFSET; off + 4 <= want.size(); off += 4) {
		int32_t wv = static_cast<int32_t>(ina_load32(&want[off]));
		int32_t gv = static_cast<int32_t>(ina_load32(&got[off]));
		if (wv != gv) {
			differing++;
			if (shown++ < 4)
				r.add(fmt("%s: values[%zu]: expected %d, got %d", where.c_str(),
					  (off - INA_PAYLOAD_OFFSET) / 4, wv, gv));
		}
	}
	if (differing > shown)
		r.add(fmt("%s: ... %zu values differ in all", where.c_str(), differing));
	for (size_t i = INA_PAYLOAD_OFFSET + (want.size() - INA_PAYLOAD_OFFSET) / 4 * 4; i < want.size(); i++) {
		if (want[i] != got[i]) {
			r.add(fmt("%s: trailing byte %zu changed", where.c_str(), i));
			break;
		}
	}
}

void compare_agg(const AggSpec &want, const ina::AggregatorState &got, uint16_t elements, Report &r)
{
	std::string where = fmt("line %d: aggregator %u", want.line, want.index);
	if (want.empty) {
		if (got.occupied)
			r.add(fmt("%s: expected empty, holds job=%u seq=%u", where.c_str(), got.job, got.seq));
		return;
	}
	if (!got.occupied) {
		r.add(where + ": expected occupied, is empty");
		return;
	}
	auto field = [&](const char *name, uint64_t w, uint64_t g) {
		if (w != g)
			r.add(fmt("%s: %s: expected %" PRIu64 " (0x%" PRIx64 "), got %" PRIu64 " (0x%" PRIx64 ")",
				  where.c_str(), name, w, w, g, g));
	};
	field("epoch", want.epoch, got.epoch);
	field("job", want.job, got.job);
	field("seq", want.seq, got.seq);
	field("timestamp", want.timestamp, got.timestamp);
	field("bitmap", want.bitmap, got.bitmap);
	field("count", want.count, got.count);
	field("ecn", want.ecn, got.ecn);
	field("col", want.col, got.col);
	field("overflow", want.overflow, got.overflow);
	if (want.values.size() > elements) {
		r.add(fmt("%s: values lists %zu items, the register has %u", where.c_str(), want.values.size(),
			  elements));
		return;
	}
	size_t shown = 0, differing = 0;
	for (size_t i = 0; i < want.values.size(); i++) {
		if (want.values[i] != got.value[i]) {
			differing++;
			if (shown++ < 4)
				r.add(fmt("%s: values[%zu]: expected %d, got %d", where.c_str(), i, want.values[i],
					  got.value[i]));
		}
	}
	if (differing > shown)
		r.add(fmt("%s: ... %zu values differ in all", where.c_str(), differing));
}

/* job_held must name, per job, exactly the aggregators its key holds. */
void check_held(const ina::AggregatorTable &table, uint32_t aggregators, Report &r)
{
	std::map<uint16_t, uint32_t> keys;
	for (uint32_t i = 0; i < aggregators; i++) {
		if (!table.owns(i))
			continue;
		const ina::AggregatorState s = table.read(i);
		if (s.occupied)
			keys[s.job]++;
	}
	for (uint32_t job = 1; job <= UINT16_MAX; job++) {
		const auto it = keys.find(static_cast<uint16_t>(job));
		const uint32_t want = it == keys.end() ? 0 : it->second;
		if (table.held(static_cast<uint16_t>(job)) != want)
			r.add(fmt("job_held[%u] is %u, the registers hold %u aggregators of job %u", job,
				  table.held(static_cast<uint16_t>(job)), want, job));
	}
}

/* Runs one vector on one SIMD path. */
Report run(const Vector &v, ina::SimdLevel simd)
{
	Report r;
	std::unique_ptr<ina::AggregatorTable> table;
	try {
		table = std::make_unique<ina::AggregatorTable>(v.config, simd);
	} catch (const std::exception &e) {
		r.add(std::string("config rejected: ") + e.what());
		return r;
	}
	ina::PipelineCounters ctr;
	const uint16_t elements = v.config.elements;

	for (const AggSpec &a : v.before) {
		if (!table->owns(a.index)) {
			r.add(fmt("line %d: aggregator %u is not in this table", a.line, a.index));
			return r;
		}
		ina::AggregatorState s;
		s.occupied = true;
		s.epoch = a.epoch;
		s.job = a.job;
		s.seq = a.seq;
		s.timestamp = a.timestamp;
		s.bitmap = a.bitmap;
		s.count = a.count;
		s.ecn = a.ecn;
		s.col = a.col;
		s.overflow = a.overflow;
		if (a.values.size() > elements) {
			r.add(fmt("line %d: values lists %zu items, the register has %u", a.line, a.values.size(),
				  elements));
			return r;
		}
		std::vector<int32_t> vals(a.values);
		vals.resize(elements, 0);
		table->write(a.index, s, vals.data(), elements);
	}

	for (size_t n = 0; n < v.steps.size(); n++) {
		const Step &st = v.steps[n];
		const std::vector<uint8_t> &in = st.in.frame;
		/* The frame sits between guard bytes: process() must not touch them. */
		std::vector<uint8_t> buf(kGuard + in.size() + kGuard, kGuardByte);
		std::copy(in.begin(), in.end(), buf.begin() + kGuard);
		ina::InaView view{};
		uint32_t share = ina::kNoShareLimit;
		if (ina::peek(in.data(), static_cast<uint32_t>(in.size()), &view)) {
			auto it = v.max_aggregators.find(view.job);
			share = it == v.max_aggregators.end() ? ina::kNoShareLimit : it->second;
		}
		ina::Result res = ina::process(*table, ctr, buf.data() + kGuard, static_cast<uint32_t>(in.size()),
					       st.in.now, share);
		std::string where = fmt("line %d (packet %zu)", st.out.line, n + 1);
		for (size_t i = 0; i < buf.size(); i++) {
			if ((i < kGuard || i >= kGuard + in.size()) && buf[i] != kGuardByte) {
				r.add(where + ": wrote outside the frame");
				break;
			}
		}
		std::vector<uint8_t> got(buf.begin() + kGuard, buf.begin() + kGuard + in.size());
		if (res.verdict != st.out.verdict || res.reason != st.out.reason) {
			r.add(fmt("%s: expected %s %s, got %s %s", where.c_str(), verdict_name(st.out.verdict),
				  ina::counter_name(st.out.reason), verdict_name(res.verdict),
				  ina::counter_name(res.reason)));
		}
		switch (st.out.verdict) {
		case ina::Verdict::kDrop:
			break;
		case ina::Verdict::kPass:
		case ina::Verdict::kControl:
			if (got != in)
				r.add(where + ": frame changed, expected it untouched");
			break;
		case ina::Verdict::kDownstream:
		case ina::Verdict::kMulticast:
			diff_frames(where, build_expected(st.out.fields, in), got, r);
			break;
		}
	}

	/* Registers after: listed ones match, every other one is empty. */
	std::vector<const AggSpec *> listed(v.config.aggregators, nullptr);
	for (const AggSpec &a : v.after) {
		if (a.index >= v.config.aggregators || !table->owns(a.index)) {
			r.add(fmt("line %d: aggregator %u is not in this table", a.line, a.index));
			continue;
		}
		listed[a.index] = &a;
		compare_agg(a, table->read(a.index), elements, r);
	}
	uint32_t occupied = 0;
	for (uint32_t i = 0; i < v.config.aggregators; i++) {
		if (!table->owns(i))
			continue;
		ina::AggregatorState s = table->read(i);
		occupied += s.occupied;
		if (s.occupied && listed[i] == nullptr)
			r.add(fmt("aggregator %u: holds job=%u seq=%u bitmap=0x%x count=%u, but has no after: line",
				  i, s.job, s.seq, s.bitmap, s.count));
	}
	if (occupied != table->occupied())
		r.add(fmt("table reports %u occupied aggregators, registers hold %u", table->occupied(), occupied));
	check_held(*table, v.config.aggregators, r);

	for (size_t c = 0; c < ina::kCounterCount; c++) {
		auto id = static_cast<ina::Counter>(c);
		auto it = v.counters.find(id);
		uint64_t want = it == v.counters.end() ? 0 : it->second;
		if (ctr[id] != want)
			r.add(fmt("counter %s: expected %" PRIu64 ", got %" PRIu64, ina::counter_name(id), want,
				  ctr[id]));
	}
	return r;
}

bool ends_with(const std::string &s, const std::string &suffix)
{
	return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void collect(const std::string &arg, std::vector<std::string> &files)
{
	struct stat st;
	if (stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
		DIR *d = opendir(arg.c_str());
		std::vector<std::string> found;
		while (d != nullptr) {
			dirent *e = readdir(d);
			if (e == nullptr)
				break;
			std::string n = e->d_name;
			if (ends_with(n, ".vec"))
				found.push_back(arg + "/" + n);
		}
		if (d != nullptr)
			closedir(d);
		std::sort(found.begin(), found.end());
		files.insert(files.end(), found.begin(), found.end());
	} else {
		files.push_back(arg);
	}
}

std::string base_name(const std::string &path)
{
	size_t s = path.find_last_of('/');
	std::string b = s == std::string::npos ? path : path.substr(s + 1);
	return ends_with(b, ".vec") ? b.substr(0, b.size() - 4) : b;
}

/* Seed format of tests/fuzz/pipeline_fuzz.cpp: a config byte, then records
 * of <u16 length LE, u8 time step, frame>. */
bool dump_seed(const Vector &v, const std::string &dir)
{
	std::vector<uint8_t> out;
	/* Config byte: bit 0 = second lcore of two, bits 1-2 = width (01: 256). */
	out.push_back(static_cast<uint8_t>((v.config.stride > 1 ? 1 : 0) | (v.config.elements > 62 ? 2 : 0)));
	uint64_t now = 0;
	for (const Step &s : v.steps) {
		uint64_t step = s.in.now > now ? s.in.now - now : 0;
		now = s.in.now;
		uint16_t len = static_cast<uint16_t>(std::min<size_t>(s.in.frame.size(), 65535));
		out.push_back(static_cast<uint8_t>(len));
		out.push_back(static_cast<uint8_t>(len >> 8));
		out.push_back(static_cast<uint8_t>(std::min<uint64_t>(step, 255)));
		out.insert(out.end(), s.in.frame.begin(), s.in.frame.begin() + len);
	}
	std::ofstream f(dir + "/" + base_name(v.path), std::ios::binary);
	f.write(reinterpret_cast<const char *>(out.data()), static_cast<std::streamsize>(out.size()));
	return static_cast<bool>(f);
}

} /* namespace */

int main(int argc, char **argv)
{
	std::vector<ina::SimdLevel> levels;
	std::string simd_arg = "all", seed_dir;
	bool verbose = false, expect_fail = false;
	std::vector<std::string> files;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--simd" && i + 1 < argc) {
			simd_arg = argv[++i];
		} else if (a == "--dump-seeds" && i + 1 < argc) {
			seed_dir = argv[++i];
		} else if (a == "--expect-fail") {
			expect_fail = true;
		} else if (a == "-v") {
			verbose = true;
		} else if (a == "-h" || a == "--help") {
			std::printf("usage: %s [--simd scalar|avx2|avx512|all] [-v] [--dump-seeds DIR] [--expect-fail] "
				    "<file.vec | dir>...\n",
				    argv[0]);
			return 0;
		} else if (!a.empty() && a[0] == '-') {
			std::fprintf(stderr, "vector_runner: unknown option %s\n", a.c_str());
			return 2;
		} else {
			collect(a, files);
		}
	}
	if (files.empty()) {
		std::fprintf(stderr, "vector_runner: no vector files given\n");
		return 2;
	}
	ina::SimdLevel best = ina::simd_best();
	for (ina::SimdLevel l : {ina::SimdLevel::kScalar, ina::SimdLevel::kAvx2, ina::SimdLevel::kAvx512}) {
		if (simd_arg == "all" ? l <= best : simd_arg == ina::simd_name(l))
			levels.push_back(l);
	}
	if (levels.empty()) {
		std::fprintf(stderr, "vector_runner: SIMD path '%s' unknown or not supported by this CPU\n",
			     simd_arg.c_str());
		return 2;
	}

	int passed = 0, failed = 0, skipped = 0, errors = 0;
	for (const std::string &path : files) {
		Vector v;
		std::string err;
		if (!parse_vector_file(path, &v, &err)) {
			if (expect_fail) {
				std::printf("ok    %s rejected: %s\n", base_name(path).c_str(), err.c_str());
				passed++;
				continue;
			}
			std::printf("ERROR %s\n", err.c_str());
			errors++;
			continue;
		}
		if (v.name != base_name(path)) {
			std::printf("ERROR %s: name '%s' does not match the file name\n", path.c_str(), v.name.c_str());
			errors++;
			continue;
		}
		if (!seed_dir.empty()) {
			if (!dump_seed(v, seed_dir)) {
				std::printf("ERROR %s: cannot write seed to %s\n", path.c_str(), seed_dir.c_str());
				errors++;
			}
			continue;
		}
		if (!v.targets.count("cpu")) {
			std::printf("SKIP  %s (%s)\n", v.name.c_str(), v.skip["cpu"].c_str());
			skipped++;
			continue;
		}
		bool ok = true;
		if (expect_fail) {
			for (ina::SimdLevel l : levels) {
				Report r = run(v, l);
				if (r.ok()) {
					ok = false;
					std::printf("FAIL  %s [%s]: a wrong vector passed\n", v.name.c_str(),
						    ina::simd_name(l));
				} else {
					std::printf("ok    %s [%s] caught: %s\n", v.name.c_str(), ina::simd_name(l),
						    r.lines.front().c_str());
				}
			}
			ok ? passed++ : failed++;
			continue;
		}
		for (ina::SimdLevel l : levels) {
			Report r = run(v, l);
			if (!r.ok()) {
				ok = false;
				std::printf("FAIL  %s [%s]\n", v.name.c_str(), ina::simd_name(l));
				for (const std::string &s : r.lines)
					std::printf("      %s: %s\n", path.c_str(), s.c_str());
			} else if (verbose) {
				std::printf("ok    %s [%s]\n", v.name.c_str(), ina::simd_name(l));
			}
		}
		if (ok) {
			passed++;
			std::printf("PASS  %s (%zu packets)\n", v.name.c_str(), v.steps.size());
		} else {
			failed++;
		}
	}
	if (!seed_dir.empty()) {
		std::printf("%zu seeds written to %s, %d errors\n", files.size() - errors, seed_dir.c_str(), errors);
		return errors ? 1 : 0;
	}
	std::printf("%d passed, %d failed, %d skipped, %d unreadable (SIMD paths:", passed, failed, skipped, errors);
	for (ina::SimdLevel l : levels)
		std::printf(" %s", ina::simd_name(l));
	std::printf(")\n");
	return failed || errors ? 1 : 0;
}
