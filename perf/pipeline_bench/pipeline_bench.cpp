/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pipeline_bench: ina::process() throughput on one core, in process.
 *
 * Synthetic multi-job traffic: J jobs of W workers, each job with a window of
 * in-flight fragments. Frames are built once. One round sends, for every
 * fragment of every job's window, the W gradient packets (interleaved across
 * jobs and workers, as they would arrive), then the PS's parameter packet
 * that frees the aggregator, so the table is in steady state: every fragment
 * is claimed, aggregated W times, completed and freed. A completed packet is
 * rewritten in place; it is restored from its pristine copy (that copy, one
 * per W + 1 packets, is inside the timing, standing in for the transmit).
 *
 * Every configuration runs on the scalar path and on each SIMD path the CPU
 * has, in the same run, so the speed-up is a ratio measured here and now.
 * Rates are taken at the 10th percentile of per-round times (see run());
 * "mean Mpps" is the plain average over the run, other load included.
 * Output: Mpps, the equivalent wire rate (frame + 20 B preamble and
 * inter-frame gap), ns per packet, speed-up over scalar; --json prints one
 * object per configuration.
 */
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ina/cli.h"
#include "ina/codec.h"
#include "ina/hash.h"
#include "ina/pipeline.h"
#include "ina/wire.h"
#include "roce_bench.h"

namespace {

struct Options {
	uint32_t workers = 8;
	uint32_t jobs = 4;
	uint32_t window = 128;
	uint32_t aggregators = 16384;
	std::vector<uint32_t> elements = {62, 256};
	std::vector<std::string> simd; /* empty: scalar + every path the CPU has */
	double seconds = 1.0;
	bool hash = false; /* CRC-32 indices (collisions included) instead of disjoint ones */
	bool json = false;
	bool no_baseline = false; /* for profiling one path */
	bool roce = false;        /* the NetReduce (RoCEv2) path too */
	RoceBenchOptions roce_opt;
};

struct Traffic {
	std::vector<uint8_t> frames;	/* all frames, back to back */
	std::vector<uint8_t> pristine;	/* the same, never processed */
	std::vector<uint32_t> offset;	/* frame i starts at frames[offset[i]] */
	uint32_t frame_len = 0;
	uint64_t wire_bytes = 0;	/* per round, with 20 B preamble + IFG each */
	uint64_t completions = 0;	/* per round */
};

/* Worker w's value of element e of fragment seq: small, of both signs, so
 * the steady-state path never saturates. */
int32_t gradient_value(uint32_t seq, uint32_t e, uint32_t worker)
{
	return static_cast<int32_t>((seq * 31 + e * 7 + worker) % 2001) - 1000;
}

void put_frame(uint8_t *f, uint16_t job, uint32_t seq, uint32_t index, uint16_t flags, uint32_t bitmap,
	       uint8_t fan_in, uint32_t elements, uint32_t worker)
{
	std::memset(f, 0, INA_FRAME_LEN(elements));
	ina::Endpoint src{{0x02, 0, 0, 0, 0, 0x01}, 0x0A000001u + worker, ina::steering_src_port(index)};
	ina::Endpoint dst{{0x02, 0, 0, 0, 0, 0x02}, 0x0A000064u, INA_UDP_PORT};
	ina::InaHeader h;
	h.flags = flags;
	h.job_id = job;
	h.seq = seq;
	h.agg_index = index;
	h.elem_count = static_cast<uint16_t>(elements);
	h.levels = 1;
	h.bitmap[0] = bitmap;
	h.fan_in[0] = fan_in;
	ina::write_ina_frame(f, src, dst, h);
	for (uint32_t e = 0; e < elements; e++)
		ina_store32(f + INA_PAYLOAD_OFFSET + 4 * e, static_cast<uint32_t>(gradient_value(seq, e, worker)));
}

Traffic build_traffic(const Options &o, uint32_t elements)
{
	Traffic t;
	t.frame_len = INA_FRAME_LEN(elements);
	uint32_t slot = (t.frame_len + 63) & ~63u; /* each frame on its own cache lines, like mbufs */
	uint64_t n = uint64_t(o.jobs) * o.window * (o.workers + 1);
	t.frames.resize(n * slot);
	uint32_t i = 0;
	auto add = [&](uint16_t job, uint32_t seq, uint32_t index, uint16_t flags, uint32_t bitmap, uint32_t w) {
		t.offset.push_back(i * slot);
		put_frame(&t.frames[size_t(i) * slot], job, seq, index, flags, bitmap,
			  static_cast<uint8_t>(o.workers), elements, w);
		i++;
	};
	auto index_of = [&](uint16_t job, uint32_t seq) {
		return o.hash ? ina::aggregator_index(job, seq, o.aggregators)
			      : ((job - 1u) * o.window + seq) % o.aggregators;
	};
	/* Gradients: fragment by fragment, jobs and workers interleaved. */
	for (uint32_t s = 0; s < o.window; s++)
		for (uint32_t w = 0; w < o.workers; w++)
			for (uint32_t j = 1; j <= o.jobs; j++)
				add(static_cast<uint16_t>(j), s, index_of(uint16_t(j), s), 0, 1u << w, w);
	/* Then the parameter packets, which free the aggregators. */
	for (uint32_t s = 0; s < o.window; s++)
		for (uint32_t j = 1; j <= o.jobs; j++)
			add(static_cast<uint16_t>(j), s, index_of(uint16_t(j), s), INA_F_ACK, 0, 0);
	t.pristine = t.frames;
	t.wire_bytes = uint64_t(t.offset.size()) * (t.frame_len + 20);
	t.completions = uint64_t(o.jobs) * o.window;
	return t;
}

struct Measured {
	double mpps = 0, gbps = 0, ns_per_packet = 0, seconds = 0;
	double mpps_mean = 0;	/* over the whole run, slow rounds included */
	double mpps_median = 0; /* at the median round time */
	uint64_t rounds = 0;
	uint64_t packets = 0, completed = 0, expected_completed = 0;
	uint64_t results_checked = 0, results_wrong = 0;
};

/* One more round, untimed, that checks every complete result against the
 * exact sum of its workers' values: what the timed rounds measured is the
 * path that aggregates, not one that drops or corrupts. */
void verify_round(ina::AggregatorTable &table, ina::PipelineCounters &ctr, Traffic &t, uint64_t now,
		  uint32_t workers, Measured *m)
{
	const uint32_t all = workers == 32 ? ~0u : (1u << workers) - 1u;
	for (uint32_t off : t.offset) {
		uint8_t *f = t.frames.data() + off;
		ina::Result r = ina::process(table, ctr, f, t.frame_len, now);
		ina::InaFrame x;
		if (r.verdict == ina::Verdict::kDownstream &&
		    ina::parse_ina_frame(f, t.frame_len, &x) == ina::FrameVerdict::kOk &&
		    !(x.hdr.flags & (INA_F_ACK | INA_F_COLLISION)) && x.hdr.bitmap[0] == all) {
			m->results_checked++;
			for (uint32_t e = 0; e < x.hdr.elem_count; e++) {
				int64_t sum = 0;
				for (uint32_t w = 0; w < workers; w++)
					sum += gradient_value(x.hdr.seq, e, w);
				if (static_cast<int32_t>(ina_load32(x.payload + 4 * e)) != sum) {
					m->results_wrong++;
					break;
				}
			}
		}
		if (r.verdict == ina::Verdict::kDownstream)
			std::memcpy(f, t.pristine.data() + off, t.frame_len);
	}
}

/* One round through all frames; returns the number of packets. */
inline uint64_t round_trip(ina::AggregatorTable &table, ina::PipelineCounters &ctr, Traffic &t, uint64_t now)
{
	const uint32_t len = t.frame_len;
	uint8_t *base = t.frames.data();
	const uint8_t *clean = t.pristine.data();
	for (uint32_t off : t.offset) {
		ina::Result r = ina::process(table, ctr, base + off, len, now);
		if (r.verdict == ina::Verdict::kDownstream)
			std::memcpy(base + off, clean + off, len); /* the result left */
	}
	return t.offset.size();
}

Measured run(const Options &o, uint32_t elements, ina::SimdLevel simd, Traffic &t)
{
	ina::PipelineConfig cfg;
	cfg.aggregators = o.aggregators;
	cfg.elements = static_cast<uint16_t>(elements);
	ina::AggregatorTable table(cfg, simd);
	ina::PipelineCounters ctr;
	t.frames = t.pristine;

	uint64_t now = 1;
	round_trip(table, ctr, t, now++); /* warm caches and branch predictors */
	ina::PipelineCounters base = ctr;

	/* Each round is timed on its own (a round is a few hundred microseconds,
	 * shorter than a scheduler time slice). The rate is taken at the 10th
	 * percentile of round times: on a shared machine other processes only
	 * ever slow a round down, so the fast rounds measure the pipeline and
	 * the slow ones the neighbours. The plain mean is reported as well. */
	using clock = std::chrono::steady_clock;
	std::vector<double> round_s;
	uint64_t packets = 0;
	double wall = 0;
	auto start = clock::now();
	do {
		auto r0 = clock::now();
		packets += round_trip(table, ctr, t, now++);
		auto r1 = clock::now();
		round_s.push_back(std::chrono::duration<double>(r1 - r0).count());
		wall = std::chrono::duration<double>(r1 - start).count();
	} while (wall < o.seconds || round_s.size() < 20);
	uint64_t rounds = round_s.size();
	std::vector<double> sorted = round_s;
	std::sort(sorted.begin(), sorted.end());
	double p10 = sorted[sorted.size() / 10];
	double per_round = double(t.offset.size());

	Measured m;
	m.packets = packets;
	m.seconds = wall;
	m.rounds = rounds;
	m.mpps = per_round / p10 / 1e6;
	m.mpps_mean = packets / wall / 1e6;
	m.mpps_median = per_round / sorted[sorted.size() / 2] / 1e6;
	m.gbps = double(t.wire_bytes) / p10 * 8 / 1e9;
	m.ns_per_packet = p10 * 1e9 / per_round;
	m.completed = ctr[ina::Counter::completed] - base[ina::Counter::completed];
	m.expected_completed = o.hash ? 0 : t.completions * rounds;
	if (table.occupied() != 0 && !o.hash)
		throw std::runtime_error("aggregators left occupied after a round: traffic is not steady");
	verify_round(table, ctr, t, now, o.workers, &m);
	return m;
}

/* What the run did against what it should have done; prints each problem
 * and returns how many. */
int problems(const Options &o, uint32_t elements, ina::SimdLevel l, const Measured &m, const Traffic &t)
{
	int bad = 0;
	if (m.expected_completed && m.completed != m.expected_completed) {
		std::fprintf(stderr, "pipeline_bench: %u elements %s: %llu completions, expected %llu\n", elements,
			     ina::simd_name(l), (unsigned long long)m.completed,
			     (unsigned long long)m.expected_completed);
		bad++;
	}
	/* With CRC-32 indices some fragments collide and complete at the PS. */
	if (m.results_wrong || !m.results_checked || (!o.hash && m.results_checked != t.completions)) {
		std::fprintf(stderr, "pipeline_bench: %u elements %s: %llu of %llu results not the exact sum "
				     "(expected %llu results)\n",
			     elements, ina::simd_name(l), (unsigned long long)m.results_wrong,
			     (unsigned long long)m.results_checked, (unsigned long long)(o.hash ? 0 : t.completions));
		bad++;
	}
	return bad;
}

bool parse_simd(const std::string &s, ina::SimdLevel *out)
{
	for (ina::SimdLevel l : {ina::SimdLevel::kScalar, ina::SimdLevel::kAvx2, ina::SimdLevel::kAvx512}) {
		if (s == ina::simd_name(l)) {
			*out = l;
			return true;
		}
	}
	return false;
}

/* The RoCE path, and the INA path at the same payload (elements = payload
 * / 4, the best SIMD path) in the same run for the ratio. */
int roce_rows(const Options &o, ina::SimdLevel simd, nlohmann::json *out)
{
	RoceBenchOptions ro = o.roce_opt;
	ro.rings = o.jobs;
	ro.ranks = std::max<uint32_t>(2, o.workers);
	int bad = 0;
	std::vector<RoceBenchRow> rows;
	try {
		rows = roce_bench(ro);
		ro.check_icrc = false; /* the cost of the arrival check, in the same run */
		for (const RoceBenchRow &r : roce_bench(ro))
			rows.push_back(r);
		ro.check_icrc = true;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "pipeline_bench: roce: %s\n", e.what());
		return 1;
	}
	if (!o.json)
		std::printf("\nroce (NetReduce): %u rings x %u ranks, window %u messages of %u packets, float32, "
			    "arrival ICRC checked or trusted, results' ICRC recomputed, one result out per packet in\n"
			    "%8s %9s %9s %8s %9s %10s %10s %10s\n",
			    ro.rings, ro.ranks, ro.window, ro.msg_len, "payload", "icrc in", "Mpps", "ns/pkt",
			    "frame B", "median", "ina Mpps", "roce/ina");
	for (const RoceBenchRow &r : rows) {
		if (r.completed != r.expected_completed || r.icrc_bad || r.results_out != r.packets_in) {
			std::fprintf(stderr, "pipeline_bench: roce %u B: %llu completions (expected %llu), %llu results "
					     "for %llu packets, %llu bad ICRC\n",
				     r.payload, (unsigned long long)r.completed, (unsigned long long)r.expected_completed,
				     (unsigned long long)r.results_out, (unsigned long long)r.packets_in,
				     (unsigned long long)r.icrc_bad);
			bad++;
		}
		Traffic t = build_traffic(o, r.payload / 4);
		const Measured ina_m = run(o, r.payload / 4, simd, t);
		const double ratio = ina_m.mpps > 0 ? r.mpps / ina_m.mpps : 0;
		if (o.json)
			out->push_back({{"path", "roce"},
					{"payload_bytes", r.payload},
					{"mpps", r.mpps},
					{"mpps_median", r.mpps_median},
					{"ns_per_packet", r.ns_per_packet},
					{"frame_bytes", r.frame_bytes},
					{"ina_mpps_same_payload", ina_m.mpps},
					{"ina_simd", ina::simd_name(simd)},
					{"ratio_vs_ina", ratio},
					{"check_icrc", r.check_icrc},
					{"rings", ro.rings},
					{"ranks", ro.ranks},
					{"window", ro.window},
					{"msg_len", ro.msg_len},
					{"rounds", r.rounds}});
		else
			std::printf("%8u %9s %9.2f %8.1f %9u %10.2f %10.2f %9.2fx\n", r.payload,
				    r.check_icrc ? "checked" : "trusted", r.mpps, r.ns_per_packet, r.frame_bytes,
				    r.mpps_median, ina_m.mpps, ratio);
	}
	return bad;
}

} /* namespace */

int main(int argc, char **argv)
{
	Options o;
	CLI::App app{"ina::process() throughput on one core: synthetic multi-job traffic", "pipeline_bench"};
	ina::add_standard_options(app, "pipeline_bench");
	app.add_option("-w,--workers", o.workers, "workers per job (fan-in), 1..32")->check(CLI::Range(1, 32));
	app.add_option("-j,--jobs", o.jobs, "jobs")->check(CLI::Range(1, 1000));
	app.add_option("--window", o.window, "fragments in flight per job")->check(CLI::Range(1, 100000));
	app.add_option("-a,--aggregators", o.aggregators, "aggregators in the table")->check(CLI::Range(1, 1 << 22));
	app.add_option("-e,--elements", o.elements, "elements per packet (repeatable)")
		->check(CLI::Range(1, int(INA_MAX_ELEMENTS)));
	app.add_option("--simd", o.simd, "SIMD paths to run (scalar, avx2, avx512); default all the CPU has")
		->default_str(""); /* all the CPU has, not an empty list */
	app.add_option("-t,--seconds", o.seconds, "seconds per configuration")->check(CLI::Range(0.01, 600.0));
	app.add_flag("--hash", o.hash, "CRC-32 aggregator indices as workers compute them (collisions happen)");
	app.add_flag("--json", o.json, "JSON: one object per configuration");
	app.add_flag("--no-baseline", o.no_baseline, "do not add the scalar baseline (for profiling one path)");
	app.add_flag("--roce", o.roce,
		     "also the NetReduce (RoCEv2) path, ICRC included, with the INA path at the same payload");
	app.add_option("--roce-payload", o.roce_opt.payloads, "RoCE payload bytes per packet (repeatable)")
		->check(CLI::Range(256, 4096));
	app.add_option("--roce-msg-len", o.roce_opt.msg_len, "RoCE packets per message")->check(CLI::Range(1, 1024));
	const int rc = ina::parse_cli("pipeline_bench", app, argc, argv);
	if (rc >= 0)
		return rc;
	o.roce_opt.seconds = o.seconds;

	if (!o.hash && uint64_t(o.jobs) * o.window > o.aggregators) {
		std::fprintf(stderr, "pipeline_bench: jobs x window (%u) exceeds the aggregators (%u)\n",
			     o.jobs * o.window, o.aggregators);
		return 2;
	}
	std::vector<ina::SimdLevel> paths;
	if (o.simd.empty()) {
		for (ina::SimdLevel l : {ina::SimdLevel::kScalar, ina::SimdLevel::kAvx2, ina::SimdLevel::kAvx512})
			if (l <= ina::simd_best())
				paths.push_back(l);
	} else {
		for (const std::string &s : o.simd) {
			ina::SimdLevel l;
			if (!parse_simd(s, &l) || l > ina::simd_best()) {
				std::fprintf(stderr, "pipeline_bench: SIMD path '%s' unknown or not on this CPU\n",
					     s.c_str());
				return 2;
			}
			paths.push_back(l);
		}
	}
	/* The scalar path is the baseline of every speed-up. */
	if (!o.no_baseline && std::find(paths.begin(), paths.end(), ina::SimdLevel::kScalar) == paths.end())
		paths.insert(paths.begin(), ina::SimdLevel::kScalar);

	nlohmann::json out = nlohmann::json::array();
	if (!o.json)
		std::printf("pipeline_bench: %u jobs x %u workers, window %u, %u aggregators, %s indices, %.2f s "
			    "per configuration, one core\n"
			    "%8s %8s %9s %9s %8s %10s %9s %10s %10s\n",
			    o.jobs, o.workers, o.window, o.aggregators, o.hash ? "CRC-32" : "disjoint", o.seconds,
			    "elements", "simd", "Mpps", "Gbps", "ns/pkt", "vs scalar", "frame B", "median", "mean");
	int bad = 0;
	for (uint32_t elements : o.elements) {
		Traffic t = build_traffic(o, elements);
		double scalar_mpps = 0;
		for (ina::SimdLevel l : paths) {
			Measured m;
			try {
				m = run(o, elements, l, t);
			} catch (const std::exception &e) {
				std::fprintf(stderr, "pipeline_bench: %s\n", e.what());
				return 1;
			}
			if (l == ina::SimdLevel::kScalar)
				scalar_mpps = m.mpps;
			bad += problems(o, elements, l, m, t);
			double speedup = scalar_mpps > 0 ? m.mpps / scalar_mpps : 0;
			if (o.json) {
				out.push_back({{"elements", elements},
					       {"simd", ina::simd_name(l)},
					       {"mpps", m.mpps},
					       {"gbps", m.gbps},
					       {"ns_per_packet", m.ns_per_packet},
					       {"mpps_median", m.mpps_median},
					       {"mpps_mean", m.mpps_mean},
					       {"rounds", m.rounds},
					       {"speedup_vs_scalar", speedup},
					       {"frame_bytes", t.frame_len},
					       {"workers", o.workers},
					       {"jobs", o.jobs},
					       {"window", o.window},
					       {"aggregators", o.aggregators},
					       {"hash_indices", o.hash},
					       {"packets", m.packets},
					       {"results_checked", m.results_checked},
					       {"seconds", m.seconds}});
			} else {
				std::printf("%8u %8s %9.2f %9.2f %8.1f %9.2fx %9u %10.2f %10.2f\n", elements,
					    ina::simd_name(l), m.mpps, m.gbps, m.ns_per_packet, speedup, t.frame_len,
					    m.mpps_median, m.mpps_mean);
			}
		}
	}
	if (o.roce)
		bad += roce_rows(o, paths.back(), &out);
	if (o.json) {
		std::printf("[\n");
		for (size_t i = 0; i < out.size(); i++)
			std::printf("  %s%s\n", out[i].dump().c_str(), i + 1 < out.size() ? "," : "");
		std::printf("]\n");
	}
	return bad ? 1 : 0;
}
