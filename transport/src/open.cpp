/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/transport.h"
#include "ina/transport_faults.h"
#include "transports.h"

#include "ina/wire.h"

namespace ina {

uint32_t frame_elements(uint32_t max_frame)
{
	if (max_frame < INA_FRAME_LEN(1))
		return 0;
	const uint32_t n = (max_frame - INA_PAYLOAD_OFFSET) / 4u;
	return n < INA_MAX_ELEMENTS ? n : INA_MAX_ELEMENTS;
}

static std::unique_ptr<Transport> open_kind(const TransportConfig &cfg, std::string *error)
{
	const std::string &k = cfg.kind;
	if (k == "udp")
		return open_udp(cfg, error);
	if (k == "af_packet")
		return open_af_packet(cfg, error);
	if (k == "af_xdp")
		return open_af_xdp(cfg, error);
	if (k == "dpdk")
		return open_dpdk(cfg, error);
	if (k == "rdma")
		return open_rdma(cfg, error);
	if (k == "auto") {
		/* The fastest kernel path that works here; each failure is kept
		 * so that the final message says why every one was passed over. */
		std::string why;
		const char *kinds[] = {"af_xdp", "af_packet", "udp"};
		for (const char *kind : kinds) {
			TransportConfig c = cfg;
			c.kind = kind;
			std::string e;
			auto t = open_kind(c, &e);
			if (t)
				return t;
			why += (why.empty() ? "" : "; ") + e;
		}
		*error = "no transport could be opened: " + why;
		return nullptr;
	}
	if (k == "roce") {
		*error = "roce is not a frame transport: it is the worker library's NetReduce ring "
			 "(ina/roce_ring.h, worker config transport=roce)";
		return nullptr;
	}
	*error = "unknown transport kind '" + k +
		 "' (auto, af_xdp, af_packet, udp, dpdk, rdma)";
	return nullptr;
}

std::unique_ptr<Transport> open_transport(const TransportConfig &cfg, std::string *error)
{
	std::string scratch;
	if (!error)
		error = &scratch;
	for (double p : {cfg.drop, cfg.duplicate, cfg.reorder}) {
		if (!(p >= 0.0 && p <= 1.0)) {
			*error = "fault probabilities must be within [0, 1]";
			return nullptr;
		}
	}
	auto t = open_kind(cfg, error);
	if (t && (cfg.drop > 0 || cfg.duplicate > 0 || cfg.reorder > 0))
		t = wrap_faults(std::move(t), cfg);
	return t;
}

std::vector<std::unique_ptr<Transport>> open_transport_queues(const TransportConfig &cfg, uint32_t queues,
							       std::string *error)
{
	std::string scratch;
	if (!error)
		error = &scratch;
	std::vector<std::unique_ptr<Transport>> out;
	if (queues == 0) {
		*error = "at least one queue";
		return out;
	}
	if (queues == 1 || cfg.kind != "udp") {
		auto t = open_transport(cfg, error);
		if (t)
			out.push_back(std::move(t));
		return out;
	}
	for (double p : {cfg.drop, cfg.duplicate, cfg.reorder}) {
		if (!(p >= 0.0 && p <= 1.0)) {
			*error = "fault probabilities must be within [0, 1]";
			return out;
		}
	}
	out = open_udp_queues(cfg, queues, error);
	if (cfg.drop > 0 || cfg.duplicate > 0 || cfg.reorder > 0) {
		for (uint32_t q = 0; q < out.size(); q++) {
			TransportConfig c = cfg;
			c.seed = cfg.seed + q; /* independent faults per queue */
			out[q] = wrap_faults(std::move(out[q]), c);
		}
	}
	return out;
}

} /* namespace ina */
