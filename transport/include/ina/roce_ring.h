/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NetReduce's host transport (§3.1-3.2): one worker's place on a ring of RoCE
 * RC connections. The worker has one RC QP to its ring successor, on which
 * it sends its gradient messages, and one from its predecessor, on which the
 * switch delivers the aggregated results (the switch splices the flow
 * predecessor -> successor through its aggregators; the hosts see ordinary
 * RC connections). Messages are RC SENDs of RoceWindowConfig::msg_bytes:
 * nr_hdr + float32 values, paced by RoceWindow.
 *
 *   RoceRingConfig cfg;  ... ring, rank, successor, window ...
 *   auto r = open_roce_ring(cfg, &err);   // nullptr + one line without a device
 *   r->allreduce(grad, n, &err);          // grad now holds the ring's sum
 *
 * The two QPs are brought up with the neighbours' parameters exchanged over
 * TCP (ina/roce_msg.h RoceConnInfo): each worker listens on `listen_port`,
 * connects to its successor's, sends its send-QP parameters, and answers its
 * predecessor with its receive-QP parameters.
 */
#ifndef INA_ROCE_RING_H
#define INA_ROCE_RING_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ina/roce_window.h"

namespace ina {

/* TCP port of the connection set-up exchange unless configured. */
constexpr uint16_t kRoceSetupPort = 18767;

struct RoceRingConfig {
	/* RDMA device (mlx5_0), empty: the first; its port, and the GID
	 * index (-1: the first RoCEv2 GID with an IPv4 address). */
	std::string device;
	uint8_t port = 1;
	int gid_index = -1;
	uint16_t ring_id = 0;
	uint8_t rank = 0;
	uint8_t ranks = 1;
	/* IPv4 (host order) of the successor's set-up listener, and ours. */
	uint32_t successor_ip = 0;
	uint16_t successor_port = kRoceSetupPort;
	uint32_t listen_ip = 0; /* 0: any */
	uint16_t listen_port = kRoceSetupPort;
	/* How long the set-up exchange may take. */
	uint32_t setup_timeout_ms = 30000;
	/* A tensor fails when no result arrives for this long. */
	uint64_t stall_timeout_ns = 60'000'000'000ull;
	/* N, message size, MTU, resend timeout. header_bytes and msg_id_bits
	 * are set from ina/roce.h by open_roce_ring(). */
	RoceWindowConfig window;
};

/* Checks the parts of a config that need no device; false with one line. */
bool roce_ring_check(const RoceRingConfig &cfg, std::string *error);

struct RoceRingStats {
	RoceWindowStats window;
	uint64_t rx_messages = 0;  /* receive completions */
	uint64_t rx_malformed = 0; /* refused by roce_msg_check */
	uint64_t rx_errors = 0;    /* receive completions with an error status */
	uint64_t bytes_reduced = 0;
};

class RoceRing {
public:
	virtual ~RoceRing() = default;
	/* Sums data[0..n) over the ring, in place; blocks. false with one
	 * line when a QP fails or no result comes for stall_timeout_ns. */
	virtual bool allreduce(float *data, size_t n, std::string *error) = 0;
	virtual RoceRingStats stats() const = 0;
};

/* Opens the device, creates both QPs and connects them to the neighbours.
 * nullptr and one line saying what is missing on failure, starting
 * "roce transport: " (no RDMA device, built without libibverbs, no RoCEv2
 * GID, neighbour not reachable, ...). */
std::unique_ptr<RoceRing> open_roce_ring(const RoceRingConfig &cfg, std::string *error);

} /* namespace ina */

#endif /* INA_ROCE_RING_H */
