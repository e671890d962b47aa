/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The fragment size and the epoch of a job, asked of its PS instances
 * before the first fragment (docs/worker.md, "Fragment size";
 * docs/protocol.md): a JOB_QUERY to each PS, repeated every kQueryRetryMs
 * until each has answered with a JOB_INFO or ps_query_timeout_ms passed.
 * Runs once, at open, on the first sender's transport before its thread
 * starts: nothing here is on the data path.
 */
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "ina/codec.h"
#include "worker_impl.h"

namespace ina {
namespace {

constexpr uint32_t kQueryRetryMs = 100;

std::string ip_text(uint32_t ip)
{
	return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
	       std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

uint64_t steady_ms()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
					     std::chrono::steady_clock::now().time_since_epoch())
					     .count());
}

/* The PS instance a frame is a JOB_INFO from for this job and query
 * (`counter`), or -1. Only the PS's own address counts: JOB_INFO is not
 * signed (docs/security.md). */
int info_from(const WorkerConfig &cfg, const uint8_t *frame, uint32_t len, uint32_t self_ip, uint64_t counter,
	      uint16_t *elements, uint8_t *epoch, uint8_t *status)
{
	InaFrame f;
	CtrlMessage m;
	if (parse_ina_frame(frame, len, &f) != FrameVerdict::kOk || f.hdr.type != INA_TYPE_CONTROL ||
	    f.hdr.job_id != cfg.job_id || f.dst_ip != self_ip || f.payload_len == 0 ||
	    f.payload[0] != INA_CTRL_JOB_INFO || decode_ctrl(f.payload, f.payload_len, &m) != CtrlVerdict::kOk ||
	    m.counter != counter || m.ps_ip != f.src_ip)
		return -1;
	for (size_t i = 0; i < cfg.ps.size(); i++)
		if (cfg.ps[i].ip == f.src_ip) {
			*elements = f.hdr.elem_count;
			*epoch = ina_flags_epoch(f.hdr.flags);
			*status = m.status;
			return static_cast<int>(i);
		}
	return -1;
}

} /* namespace */

JobAnswer query_job(Transport &t, const WorkerConfig &cfg, std::string *error, bool *silent)
{
	*silent = false;
	const size_t n = cfg.ps.size();
	std::vector<uint16_t> size(n, 0);
	std::vector<uint8_t> epoch(n, 0);
	size_t answered = 0;
	Endpoint self;
	t.mac(self.mac);
	self.ip = t.ip();
	self.port = INA_UDP_PORT;
	CtrlMessage q;
	q.op = INA_CTRL_JOB_QUERY;
	/* Tells this worker's answers from an earlier run's late ones. */
	q.counter = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
	std::vector<uint8_t> out(kCtrlMaxFrameLen), in(INA_FRAME_LEN(INA_MAX_ELEMENTS));
	const uint64_t start = steady_ms();
	uint64_t next = start;
	while (answered < n) {
		const uint64_t now = steady_ms();
		if (now - start >= cfg.ps_query_timeout_ms) {
			for (size_t i = 0; i < n; i++)
				if (!size[i]) {
					*error = "no answer from the PS " + ip_text(cfg.ps[i].ip) + " to the job query for job " +
						 std::to_string(cfg.job_id) + " within " +
						 std::to_string(cfg.ps_query_timeout_ms) +
						 " ms (is ina-ps running and serving the job? or set elements)";
					break;
				}
			*silent = true;
			return {};
		}
		if (now >= next) {
			for (size_t i = 0; i < n; i++) {
				if (size[i])
					continue;
				q.ps_ip = cfg.ps[i].ip;
				Endpoint dst;
				static const uint8_t zero[6] = {};
				memcpy(dst.mac, memcmp(cfg.next_hop_mac, zero, 6) ? cfg.next_hop_mac : cfg.ps[i].mac, 6);
				dst.ip = cfg.ps[i].ip;
				dst.port = INA_UDP_PORT;
				FrameBuf b{out.data(), write_ctrl_frame(out.data(), static_cast<uint32_t>(out.size()), self,
									 dst, cfg.job_id, q),
					   static_cast<uint32_t>(out.size())};
				t.send(&b, 1);
			}
			next = now + kQueryRetryMs;
		}
		FrameBuf r{in.data(), 0, static_cast<uint32_t>(in.size())};
		if (!t.recv(&r, 1, 10000))
			continue;
		uint16_t elements = 0;
		uint8_t run = 0, status = 0;
		const int i = info_from(cfg, r.data, r.len, self.ip, q.counter, &elements, &run, &status);
		if (i < 0 || size[i])
			continue;
		if (status != INA_CTRL_APPLIED || elements == 0) {
			*error = "the PS " + ip_text(cfg.ps[i].ip) + " does not serve job " + std::to_string(cfg.job_id);
			return {};
		}
		size[i] = elements;
		epoch[i] = run;
		answered++;
	}
	JobAnswer a;
	a.elements = INA_MAX_ELEMENTS;
	a.epoch = epoch[0];
	for (size_t i = 0; i < n; i++) {
		a.elements = size[i] < a.elements ? size[i] : a.elements;
		/* Each PS stamps and requires its own run's epoch: with two, the
		 * job's packets would be stale to one of them. A named epoch is
		 * the user's to choose. */
		if (epoch[i] != a.epoch && !epoch_named(cfg)) {
			*error = "the PS instances of job " + std::to_string(cfg.job_id) + " run different epochs: " +
				 std::to_string(a.epoch) + " at " + ip_text(cfg.ps[0].ip) + ", " +
				 std::to_string(epoch[i]) + " at " + ip_text(cfg.ps[i].ip) +
				 " (every PS of a job must serve the same run)";
			return {};
		}
	}
	return a;
}

} /* namespace ina */
