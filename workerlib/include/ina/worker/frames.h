/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The frames a worker writes (gradient fragments, float answers to an
 * overflow) and reads (parameter packets, overflow requests), in the layout of
 * ina/wire.h, written and read with the protocol's codec (ina/codec.h).
 */
#ifndef INA_WORKER_FRAMES_H
#define INA_WORKER_FRAMES_H

#include <cstdint>

#include "ina/codec.h"
#include "ina/wire.h"

namespace ina {

/* The part of a gradient header that is the same for every fragment of a
 * job from one worker. */
struct GradientTemplate {
	uint16_t job_id = 0;
	uint8_t epoch = 0; /* the job's run: flags bits 8-15 of every frame */
	uint16_t agg_node = INA_AGG_NODE_ANY;
	uint8_t level = 0;  /* the worker's start level */
	uint8_t levels = 1; /* in-network levels */
	uint32_t bitmap[INA_MAX_LEVELS] = {0, 0, 0, 0};
	uint8_t fan_in[INA_MAX_LEVELS] = {0, 0, 0, 0};
};

/* bitmap[i] = 1 << bit[i] for start_level <= i < levels, 0xFFFFFFFF below
 * and 0 above (docs/protocol.md, "Levels"). */
void make_bitmaps(uint8_t start_level, uint8_t levels, const uint8_t bit[INA_MAX_LEVELS],
		  uint32_t out[INA_MAX_LEVELS]);

class FrameWriter {
public:
	/* src: the worker (its port is replaced per frame by
	 * steering_src_port(index)); dst: PS IPv4, the next hop's MAC, port 18766. */
	FrameWriter(const Endpoint &src, const Endpoint &dst, const GradientTemplate &t);

	/* Writes a gradient frame of n quantized values; returns its length.
	 * Adds the number of saturated values to *saturated. buf must hold
	 * INA_FRAME_LEN(n) bytes. agg_node: GOAT's node for this fragment;
	 * -1, the template's. */
	uint32_t gradient(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, const float *vals,
			  uint16_t n, double scale, uint32_t *saturated, int agg_node = -1) const;
	/* Writes a float32 frame (INA_F_FLOAT is added to flags). */
	uint32_t floats(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, const float *vals,
			uint16_t n, int agg_node = -1) const;

private:
	uint32_t header(uint8_t *buf, uint32_t seq, uint32_t index, uint16_t flags, uint16_t n,
			int agg_node) const;

	Endpoint src_, dst_;
	InaHeader t_; /* the fields every fragment shares */
};

/* A frame from the PS, checked against the job. */
struct PsMessage {
	uint16_t flags;
	uint32_t seq;
	uint32_t agg_index;
	uint32_t remap_index;
	uint16_t elem_count;
	uint8_t level, levels;
	uint32_t bitmap[INA_MAX_LEVELS];
	uint32_t ps_clock;      /* a parameter packet's PS stamp (wire.h) */
	bool ip_ce;             /* this copy's IP header is CE-marked: a queue
	                           on the way to this worker alone */
	const uint8_t *payload; /* elem_count x 4 bytes */
};

enum class RxVerdict {
	param,            /* a parameter packet (INA_F_ACK) */
	overflow_request, /* the PS asks for float values (docs/ps.md) */
	resend_request,   /* the PS asks for the int32 copy again (docs/ps.md) */
	not_ina,          /* not IPv4/UDP to port 18766: ignored */
	malformed,        /* INA but bad version/type/length */
	other_job,        /* another job's traffic */
	not_from_ps,      /* the job's, but its IPv4 source is none of the job's
	                     PSs: a forged parameter packet or float request */
	not_for_worker,   /* INA traffic that is neither of the above (e.g. a
	                     gradient looped back) */
};

/* A frame from the job's PS: only frames of `job` whose IPv4 source is one
 * of ps_ips[0..n_ps) are taken (switches forward parameter packets with the
 * PS's source address; docs/security.md, "Data plane"). */
RxVerdict parse_from_ps(const uint8_t *frame, uint32_t len, uint16_t job, const uint32_t *ps_ips,
			size_t n_ps, PsMessage *out);

} /* namespace ina */

#endif /* INA_WORKER_FRAMES_H */
