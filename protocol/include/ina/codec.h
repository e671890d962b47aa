/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The INA protocol's one codec: every program that writes or reads an
 * Ethernet/IPv4/UDP/INA frame (worker, PS, switchd, tools, tests) does it
 * through this file, so that the bytes of ina/wire.h are written in one place.
 * The switch program (pipeline/src/process.cpp) rewrites a few fields in
 * place, as the P4 build does, but classifies frames with find_ina_header().
 *
 * No allocation, no exceptions, no system calls: safe on every hot path.
 */
#ifndef INA_CODEC_H
#define INA_CODEC_H

#include <cstdint>
#include <string>
#include <string_view>

#include "ina/wire.h"

namespace ina {

/* One end of a frame: MAC, IPv4 address and UDP port, host order. */
struct Endpoint {
	uint8_t mac[6];
	uint32_t ip;
	uint16_t port;
};

/* ---- addresses ---------------------------------------------------------- */

/* Gradient source port: the aggregator index's low bits under a fixed
 * prefix, so a NIC can steer a fragment to the lcore that owns its
 * aggregator with one exact-match rule per queue (switchd/src/ports.cpp).
 * The prefix keeps the port in the dynamic range, clear of real services. */
constexpr uint16_t kSteeringPortPrefix = 0xC000;
constexpr uint32_t kSteeringIndexMask = 0x3FFF; /* 14 bits: up to 16384 queues */
constexpr uint16_t steering_src_port(uint32_t index)
{
	return static_cast<uint16_t>(kSteeringPortPrefix | (index & kSteeringIndexMask));
}

/* The multicast group of a job's parameter packets, 239.18.(job >> 8).(job &
 * 255), host order: administratively scoped, one group per job id. */
constexpr uint32_t job_group(uint16_t job)
{
	return (239u << 24) | (18u << 16) | job;
}
/* The Ethernet address of an IPv4 multicast group (01:00:5e + low 23 bits). */
void group_mac(uint32_t group, uint8_t out[6]);
inline void job_group_mac(uint16_t job, uint8_t out[6]) { group_mac(job_group(job), out); }

/* The one parser of each address in configuration files and command lines.
 * Strict: the whole text must be the address, so trailing junk, an embedded
 * NUL, spaces, signs and short forms are refused, not read up to where they
 * start. "a.b.c.d" (inet_pton) -> host-order address; false on bad input. */
bool parse_ipv4(std::string_view text, uint32_t *out);
/* The other way: host-order address -> "a.b.c.d". */
std::string ipv4_text(uint32_t ip);
/* Exactly "aa:bb:cc:dd:ee:ff": six pairs of hex digits; false otherwise. */
bool parse_mac(std::string_view text, uint8_t out[6]);
/* A MAC a single host can have: not all zero, not multicast/broadcast. */
bool is_unicast_mac(const uint8_t mac[6]);

/* ---- L2-L4 -------------------------------------------------------------- */

/* Internet checksum of an IPv4 header (20 bytes, checksum field included
 * as stored); 0 when the stored checksum is correct. */
uint16_t ipv4_checksum(const void *ip_hdr);

/* Writes Ethernet, IPv4 (IHL 5, checksum computed, DF, TTL 64) and UDP
 * (checksum 0: every hop rewrites the payload) at frame[0..42) for `ina_len`
 * bytes of INA header and payload. `tos`: IPv4 TOS (low two bits: ECN). */
void write_frame_headers(uint8_t *frame, const Endpoint &src, const Endpoint &dst,
			 uint32_t ina_len, uint8_t tos = 0);

/* True if frame[0..len) holds IPv4 (no options) + UDP with the whole UDP
 * datagram inside the frame, whatever the port; fills the addresses (host
 * order) if non-null. For the transports, which carry any UDP. */
bool parse_frame_headers(const uint8_t *frame, uint32_t len, Endpoint *src, Endpoint *dst,
			 uint32_t *udp_payload_len);

/* The classifier of docs/protocol.md: IPv4 (options allowed, not a later
 * fragment), UDP, destination port INA_UDP_PORT, UDP header inside `len`.
 * Sets *ina_off to the INA header's offset. Inline: the switch's hot path. */
inline bool find_ina_header(const uint8_t *frame, uint32_t len, uint32_t *ina_off)
{
	if (len < INA_L2L3L4_LEN || ina_load16(frame + 12) != 0x0800)
		return false;
	const uint8_t *ip = frame + sizeof(struct ina_eth_hdr);
	const uint32_t ihl = (ip[0] & 0x0Fu) * 4u;
	if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != 17)
		return false;
	if ((ina_load16(ip + 6) & 0x1FFFu) != 0) /* later fragments have no UDP header */
		return false;
	const uint32_t udp = sizeof(struct ina_eth_hdr) + ihl;
	if (len < udp + sizeof(struct ina_udp_hdr) || ina_load16(frame + udp + 2) != INA_UDP_PORT)
		return false;
	*ina_off = udp + sizeof(struct ina_udp_hdr);
	return true;
}

/* ---- INA header --------------------------------------------------------- */

/* struct ina_hdr in host order. The defaults are those of a fresh gradient. */
struct InaHeader {
	uint8_t version = INA_VERSION;
	uint8_t type = INA_TYPE_DATA;
	uint16_t flags = 0;
	uint16_t job_id = 0;
	uint16_t agg_node = INA_AGG_NODE_ANY;
	uint32_t seq = 0;
	uint32_t agg_index = 0;
	uint32_t remap_index = INA_NO_REMAP;
	uint16_t elem_count = 0;
	uint8_t level = 0;
	uint8_t levels = 0;
	uint32_t bitmap[INA_MAX_LEVELS] = {0, 0, 0, 0};
	uint8_t fan_in[INA_MAX_LEVELS] = {0, 0, 0, 0};
};

/* All INA_HDR_LEN bytes, every field, network order. */
void encode(const InaHeader &h, uint8_t *out);
void decode(const uint8_t *in, InaHeader *h);

/* ORs flags into an INA header in place (an ECN mark on egress). */
inline void add_flags(uint8_t *ina_hdr, uint16_t flags)
{
	uint8_t *f = ina_hdr + offsetof(struct ina_hdr, flags);
	ina_store16(f, static_cast<uint16_t>(ina_load16(f) | flags));
}

/* ---- the switch's decoded view ------------------------------------------ */

/*
 * The INA header's fields that a switch reads, decoded once per packet:
 * switchd's classify() keeps the view in the mbuf, and admission,
 * ina::process(), the ECN marks and egress accounting read it instead of
 * the bytes. The fields are as received, except `flags`, which follows the
 * frame: whoever changes the flags word in the frame (ina::process(), an
 * ECN mark before it) changes it here too.
 */
struct InaView {
	uint32_t ina_offset; /* of struct ina_hdr in the frame */
	uint16_t udp_len;    /* the UDP header's length field */
	uint8_t version;
	uint8_t type;
	uint16_t flags;
	uint16_t job;
	uint16_t agg_node;
	uint32_t seq;
	uint32_t agg_index;
	uint16_t elem_count;
	uint8_t level;
	uint8_t levels;
	uint32_t level_bitmap; /* bitmap[level]; 0 when level >= INA_MAX_LEVELS */
	uint8_t level_fan_in;  /* fan_in[level]; 0 when level >= INA_MAX_LEVELS */
};

#ifdef INA_COUNT_PARSES
/* Test builds only: how many INA headers this thread has decoded, by
 * decode_view() or parse_ina_frame(): the one-parse tests count them. */
inline thread_local uint64_t t_parse_count = 0;
inline uint64_t parse_count() { return t_parse_count; }
#define INA_COUNT_PARSE() (::ina::t_parse_count++)
#else
#define INA_COUNT_PARSE() ((void)0)
#endif

/* Decodes the INA header at frame + ina_off (find_ina_header()'s offset,
 * which has the UDP header before it) into *view. False, *view
 * unspecified, when the header does not fit in `len`; nothing else is
 * judged here (version, type, lengths: the reader's checks). The one
 * decoder of the switch's per-packet path, inline for it. */
inline bool decode_view(const uint8_t *frame, uint32_t len, uint32_t ina_off, InaView *v)
{
	INA_COUNT_PARSE();
	if (ina_off < sizeof(struct ina_udp_hdr) || len < ina_off + INA_HDR_LEN)
		return false;
	const uint8_t *h = frame + ina_off;
	v->ina_offset = ina_off;
	v->udp_len = ina_load16(h - sizeof(struct ina_udp_hdr) + offsetof(struct ina_udp_hdr, length));
	v->version = h[offsetof(struct ina_hdr, version)];
	v->type = h[offsetof(struct ina_hdr, type)];
	v->flags = ina_load16(h + offsetof(struct ina_hdr, flags));
	v->job = ina_load16(h + offsetof(struct ina_hdr, job_id));
	v->agg_node = ina_load16(h + offsetof(struct ina_hdr, agg_node));
	v->seq = ina_load32(h + offsetof(struct ina_hdr, seq));
	v->agg_index = ina_load32(h + offsetof(struct ina_hdr, agg_index));
	v->elem_count = ina_load16(h + offsetof(struct ina_hdr, elem_count));
	v->level = h[offsetof(struct ina_hdr, level)];
	v->levels = h[offsetof(struct ina_hdr, levels)];
	const bool in_header = v->level < INA_MAX_LEVELS;
	v->level_bitmap = in_header ? ina_load32(h + offsetof(struct ina_hdr, bitmap) + 4u * v->level) : 0;
	v->level_fan_in = in_header ? h[offsetof(struct ina_hdr, fan_in) + v->level] : 0;
	return true;
}

/* find_ina_header(), then decode_view(): true if `frame` is an INA frame
 * (IPv4/UDP to INA_UDP_PORT) whose INA header is within `len`. For tools
 * and tests, which have no view yet. */
bool peek(const uint8_t *frame, uint32_t len, InaView *view);

/* ---- whole frames ------------------------------------------------------- */

/* Writes L2-L4 and the INA header for h.elem_count payload elements, which
 * the caller writes at frame + INA_PAYLOAD_OFFSET. Returns the frame length,
 * INA_FRAME_LEN(h.elem_count). For a control message, which carries a
 * payload of its own, use write_frame_headers() and encode(). */
uint32_t write_ina_frame(uint8_t *frame, const Endpoint &src, const Endpoint &dst,
			 const InaHeader &h, uint8_t tos = 0);

/* What parse_ina_frame() found. The malformed reasons are the switch's
 * counters of the same name (docs/protocol.md). */
enum class FrameVerdict : uint8_t {
	kOk,
	kNotIna,           /* not IPv4/UDP to INA_UDP_PORT: somebody else's */
	kMalformedShort,   /* frame shorter than the headers, UDP datagram or payload */
	kMalformedVersion, /* version != INA_VERSION */
	kMalformedType,    /* type neither data nor control */
	kMalformedLength,  /* data: UDP length != 8 + 44 + 4 x elem_count */
};

struct InaFrame {
	InaHeader hdr;
	const uint8_t *payload; /* right after the INA header */
	uint32_t payload_len;   /* data: 4 x elem_count; control: the control message */
	uint32_t ina_offset;    /* of the INA header in the frame */
	uint32_t src_ip, dst_ip; /* host order */
	uint8_t tos;             /* IPv4 TOS; (tos & 3) == 3 is an IP CE mark */
};

/* Classifies and checks a frame; on kOk fills *out (on other verdicts *out
 * is unspecified). Checks, in this order, what every receiver needs:
 * INA traffic, header inside the frame, version, type, length. */
FrameVerdict parse_ina_frame(const uint8_t *frame, uint32_t len, InaFrame *out);

/* parse_ina_frame() for a control frame whose header a switch has decoded
 * already (decode_view(), `v`): judges version, type (control only: a
 * data frame is kMalformedType here) and lengths from the view and fills
 * *out without reading the INA header again. out->hdr holds what a
 * control frame's header carries (write_ctrl_frame(): job, flags with the
 * epoch, elem_count) and the view's other fields; remap_index, bitmaps and
 * fan-in, 0 in a control frame, are left as InaHeader's defaults. */
FrameVerdict control_frame_from_view(const uint8_t *frame, uint32_t len, const InaView &v, InaFrame *out);

/* A received frame with what parse_ina_frame() found in it: a host's
 * receive path parses each frame once into one of these and hands it to
 * every later reader (the PS's shard choice, control client and data path;
 * the worker's ACK and control readers), none of which parses again. */
struct RxFrame {
	const uint8_t *data;
	uint32_t len;
	FrameVerdict verdict;
	InaFrame ina; /* valid when verdict == kOk */

	bool is(uint8_t type) const { return verdict == FrameVerdict::kOk && ina.hdr.type == type; }
};
inline RxFrame parse_rx_frame(const uint8_t *data, uint32_t len)
{
	RxFrame rx{};
	rx.data = data;
	rx.len = len;
	rx.verdict = parse_ina_frame(data, len, &rx.ina);
	return rx;
}

/* ---- control messages --------------------------------------------------- */

/* Most workers in one control message (n_workers is a u8). */
constexpr uint32_t kCtrlMaxWorkers = 255;

/* Control payload length for n workers: header, workers, auth trailer. */
constexpr uint32_t ctrl_payload_len(uint32_t n_workers)
{
	return static_cast<uint32_t>(sizeof(struct ina_ctrl_hdr) + n_workers * sizeof(struct ina_ctrl_worker) +
				     sizeof(struct ina_ctrl_auth));
}
/* The largest control frame. */
constexpr uint32_t kCtrlMaxFrameLen = INA_PAYLOAD_OFFSET + ctrl_payload_len(kCtrlMaxWorkers);

struct CtrlWorker {
	uint32_t ip = 0;
	uint8_t mac[6] = {};
	uint8_t bit[INA_MAX_LEVELS] = {0xFF, 0xFF, 0xFF, 0xFF};
};

/* A control payload (struct ina_ctrl_hdr, workers, struct ina_ctrl_auth)
 * in host order. Reserved fields are written as 0 and not read. */
struct CtrlMessage {
	uint8_t op = INA_CTRL_REGISTER;
	uint8_t status = 0;
	uint8_t levels = 0;
	uint8_t n_workers = 0;
	uint32_t ps_ip = 0;
	uint8_t ps_mac[6] = {};
	uint8_t fan_in[INA_MAX_LEVELS] = {};
	uint16_t refresh_ms = 0; /* REGISTER: the PS's re-registration interval */
	/* Not in the payload: the INA header's epoch bits (INA_EPOCH_SHIFT).
	 * write_ctrl_frame() writes it; a receiver takes it from the parsed
	 * header (ina_flags_epoch(f.hdr.flags)). */
	uint8_t epoch = 0;
	/* Not in the payload either: the INA header's elem_count, a fragment
	 * size (an ACK: the switch's cap; a JOB_INFO: the job's size; 0 in
	 * other ops). write_ctrl_frame() writes it; a receiver takes
	 * f.hdr.elem_count. */
	uint16_t elements = 0;
	CtrlWorker workers[kCtrlMaxWorkers];
	uint64_t counter = 0;
	uint8_t mac[INA_CTRL_MAC_LEN] = {};
};

/* Writes the payload at out[0..cap); returns its length, 0 if cap is too small. */
uint32_t encode_ctrl(const CtrlMessage &m, uint8_t *out, uint32_t cap);

/* What decode_ctrl() found. Only the layout is checked here; whether a
 * registration describes a valid job is the receiver's business. */
enum class CtrlVerdict : uint8_t {
	kOk,
	kShort,   /* shorter than its header, workers and trailer */
	kLong,    /* bytes after the trailer */
	kOp,      /* op not register, unregister, ACK, job query or job info */
	kWorkers, /* an ACK, job query or job info listing workers */
};
const char *ctrl_verdict_name(CtrlVerdict v);

/* Decodes in[0..len) (an InaFrame's payload and payload_len). */
CtrlVerdict decode_ctrl(const uint8_t *in, uint32_t len, CtrlMessage *out);

/* Writes a whole control frame: L2-L4, an INA header of type control for
 * `job` with m.epoch in its flags and m.elements in elem_count (every other
 * field 0), the payload of m, MAC field as in m (sign it afterwards,
 * ina/control_auth.h). Returns the frame length, 0 if `cap` is
 * too small. */
uint32_t write_ctrl_frame(uint8_t *frame, uint32_t cap, const Endpoint &src, const Endpoint &dst,
			  uint16_t job, const CtrlMessage &m);

/* The part of a control frame its MAC covers after the two addresses: the
 * INA header and the payload up to the MAC (f from parse_ina_frame, with a
 * payload decode_ctrl accepted). */
inline uint32_t ctrl_signed_len(const InaFrame &f)
{
	return INA_HDR_LEN + f.payload_len - INA_CTRL_MAC_LEN;
}

} /* namespace ina */

#endif /* INA_CODEC_H */
