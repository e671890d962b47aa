/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The INA wire format: the only definition of the byte layout. Worker, PS,
 * switchd, tests, tools and the P4 build follow this file; docs/protocol.md
 * explains every field.
 *
 *   Ethernet (14) | IPv4 (20, no options) | UDP (8, dst port kUdpPort) |
 *   INA header (44) | payload: elem_count x int32 (or float32), big endian
 *
 * All multi-byte fields are in network byte order. The structs are packed and
 * only ever accessed through the load/store helpers below, so callers never
 * depend on host alignment or endianness.
 */
#ifndef INA_WIRE_H
#define INA_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the load/store helpers below assume a little-endian host"
#endif

#ifdef __cplusplus
#define INA_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define INA_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* UDP destination port that classifies a frame as INA traffic. */
#define INA_UDP_PORT 18766u
/* Version carried in every INA header; other versions are malformed. */
#define INA_VERSION 1u
/* Levels of in-network aggregation the format has room for. */
#define INA_MAX_LEVELS 4u
/* Width of one level's bitmap: at most 32 children per aggregation point. */
#define INA_BITMAP_BITS 32u
/* Default and maximum payload elements. 62 x 4 B = 248 B fits a Tofino pass
 * (the default of a switch's config and of a job that names a size);
 * software hops take more, up to what a 9000-byte MTU carries (2048 x 4 B +
 * 86 B of headers = 8278 B). A job that names no size takes the largest its
 * path carries (docs/protocol.md, "Fragment size"). */
#define INA_DEFAULT_ELEMENTS 62u
#define INA_MAX_ELEMENTS 2048u
/* agg_node value meaning "any switch may aggregate" (GOAT filter off). */
#define INA_AGG_NODE_ANY 0u
/* remap_index value meaning "no new index". */
#define INA_NO_REMAP 0xFFFFFFFFu

/* INA header `type`. */
enum ina_type {
	INA_TYPE_DATA = 0,    /* gradient fragment or parameter (ACK) packet */
	INA_TYPE_CONTROL = 1, /* job registration, see struct ina_ctrl_hdr */
};

/* INA header `flags` bits. */
enum ina_flag {
	INA_F_ACK = 1u << 0,       /* parameter packet (the ACK); else gradient */
	INA_F_RESEND = 1u << 1,    /* retransmission, or pushed past a collision */
	INA_F_COLLISION = 1u << 2, /* aggregator held by another <job, seq> */
	INA_F_ECN = 1u << 3,       /* congestion seen on the path */
	INA_F_OVERFLOW = 1u << 4,  /* a saturating add clipped a value */
	INA_F_COL = 1u << 5,       /* A2TP: the aggregator used saw a collision */
	INA_F_BYPASS = 1u << 6,    /* A2TP: outside the aggregator window, PS only */
	INA_F_FLOAT = 1u << 7,     /* payload is float32 (overflow retry to PS) */
};

/* Bits 8-15 of `flags`: the job's epoch (incarnation). A switch gives each
 * new registration of a job the next epoch and answers it in the ACK; every
 * data packet of that run carries it, and switches drop packets of any other
 * epoch and keep it in the aggregator's key <epoch, job, seq>, so nothing of
 * a dead run merges into a new one (docs/security.md, "Job incarnations"). */
#define INA_EPOCH_SHIFT 8u
#define INA_EPOCH_MASK 0xFF00u
static inline uint8_t ina_flags_epoch(uint16_t flags)
{
	return (uint8_t)(flags >> INA_EPOCH_SHIFT);
}
static inline uint16_t ina_flags_with_epoch(uint16_t flags, uint8_t epoch)
{
	return (uint16_t)((flags & ~INA_EPOCH_MASK) | ((uint16_t)epoch << INA_EPOCH_SHIFT));
}

struct __attribute__((packed)) ina_eth_hdr {
	uint8_t dst[6];
	uint8_t src[6];
	uint16_t ether_type; /* 0x0800 */
};

struct __attribute__((packed)) ina_ipv4_hdr {
	uint8_t version_ihl; /* 0x45 */
	uint8_t tos;         /* low two bits: ECN codepoint (IP CE = 3) */
	uint16_t total_length;
	uint16_t id;
	uint16_t frag_off;
	uint8_t ttl;
	uint8_t proto; /* 17 */
	uint16_t checksum;
	uint32_t src;
	uint32_t dst;
};

struct __attribute__((packed)) ina_udp_hdr {
	uint16_t src_port;
	uint16_t dst_port; /* INA_UDP_PORT */
	uint16_t length;
	uint16_t checksum; /* 0: not computed (the payload changes at every hop) */
};

/* The INA header, 44 bytes. */
struct __attribute__((packed)) ina_hdr {
	uint8_t version;      /* INA_VERSION */
	uint8_t type;         /* enum ina_type */
	uint16_t flags;       /* enum ina_flag */
	uint16_t job_id;      /* 0 is reserved (empty aggregator) */
	uint16_t agg_node;    /* GOAT: switch id that aggregates it, 0 = any */
	uint32_t seq;         /* fragment sequence number within the job */
	uint32_t agg_index;   /* aggregator index, hash(job, seq) mod N at the worker */
	uint32_t remap_index; /* ACK from PS: new index after a collision */
	uint16_t elem_count;  /* payload elements (4 bytes each) */
	uint8_t level;        /* level that processes it next (ATP edgeSwitchIdentifier) */
	uint8_t levels;       /* in-network levels of this job, 0..INA_MAX_LEVELS */
	uint32_t bitmap[INA_MAX_LEVELS]; /* contributors at each level */
	uint8_t fan_in[INA_MAX_LEVELS];  /* gradient: children to wait for at each
	                                    level; ACK: the PS's clock, below */
};

/* A parameter packet (INA_F_ACK) needs no fan-in: its four fan_in bytes carry
 * the PS's clock when it sent the packet, in units of INA_PS_CLOCK_NS,
 * big-endian, modulo 2^32 (it wraps after 7 minutes). Every worker of a job
 * reads the same stamps, so a pace measured on them is the same at each
 * (A2TP's straggling estimate, docs/worker.md). Switches leave them as they
 * are. */
#define INA_PS_CLOCK_NS 100u
static inline uint32_t ina_ack_ps_clock(const uint8_t fan_in[INA_MAX_LEVELS])
{
	return ((uint32_t)fan_in[0] << 24) | ((uint32_t)fan_in[1] << 16) | ((uint32_t)fan_in[2] << 8) | fan_in[3];
}
static inline void ina_ack_set_ps_clock(uint8_t fan_in[INA_MAX_LEVELS], uint64_t now_ns)
{
	uint32_t t = (uint32_t)(now_ns / INA_PS_CLOCK_NS);
	fan_in[0] = (uint8_t)(t >> 24);
	fan_in[1] = (uint8_t)(t >> 16);
	fan_in[2] = (uint8_t)(t >> 8);
	fan_in[3] = (uint8_t)t;
}

/* Control payload (type INA_TYPE_CONTROL), carried after the INA header; the
 * INA header's job_id names the job, its epoch bits the run (below), its
 * elem_count a fragment size where the op says so (ACK, JOB_INFO; 0 in the
 * others), its other fields 0:
 *
 *   struct ina_ctrl_hdr | n_workers x struct ina_ctrl_worker | struct ina_ctrl_auth
 *
 * A PS sends REGISTER / UNREGISTER to the switch's IP; the switch answers
 * each one it authenticated with an ACK to the PS (no workers, `status`
 * set, the request's counter echoed, elem_count = the most elements per
 * fragment the switch carries: its cap). docs/protocol.md explains the MAC.
 *
 * A worker asks its PS for the job's fragment size with JOB_QUERY and the
 * PS answers with JOB_INFO (elem_count = the size, the query's counter
 * echoed, ps_ip = the PS); no workers, never signed (workers hold no
 * control key; docs/security.md). Switches forward both like any packet
 * not addressed to them. (4 is INA_CTRL_GOAT, ina/goat_wire.h.) */
enum ina_ctrl_op {
	INA_CTRL_REGISTER = 1,   /* add or replace the job */
	INA_CTRL_UNREGISTER = 2, /* remove the job */
	INA_CTRL_ACK = 3,        /* switch -> PS: what became of a request */
	INA_CTRL_JOB_QUERY = 5,  /* worker -> PS: what fragment size does the job use? */
	INA_CTRL_JOB_INFO = 6,   /* PS -> worker: the answer, in elem_count */
};

/* ACK `status`. */
enum ina_ctrl_status {
	INA_CTRL_APPLIED = 0, /* the request took effect */
	INA_CTRL_DENIED = 1,  /* not allowed to change this job (config job, other PS) */
	INA_CTRL_INVALID = 2, /* authentic but not a valid job description */
};
/* JOB_INFO `status`: INA_CTRL_APPLIED (0) the PS serves the job and
 * elem_count is its size; INA_CTRL_INVALID (2) it does not serve the job. */

/* REGISTER `status`: a new run, or the renewal of the run whose epoch the
 * INA header's flags carry (the epoch an earlier ACK gave the PS). The ACK
 * of an applied REGISTER carries the job's epoch the same way. */
enum ina_ctrl_register {
	INA_CTRL_NEW_RUN = 0, /* give the job a new epoch */
	INA_CTRL_RENEW = 1,   /* keep (or, after a switch restart, take) the epoch */
};

struct __attribute__((packed)) ina_ctrl_hdr {
	uint8_t op;        /* enum ina_ctrl_op */
	uint8_t n_workers; /* entries of struct ina_ctrl_worker that follow */
	uint8_t levels;    /* in-network levels of the job */
	uint8_t status;    /* ACK: enum ina_ctrl_status; REGISTER: enum
	                    * ina_ctrl_register; 0 otherwise */
	uint32_t ps_ip;                  /* the job's PS (= the sender of a request) */
	uint8_t ps_mac[6];
	uint8_t fan_in[INA_MAX_LEVELS];  /* fan-in per level */
	uint16_t refresh_ms;             /* REGISTER: the PS repeats it this often
	                                  * (ms); the switch expires the job after
	                                  * a few missed ones. 0: never repeated,
	                                  * no expiry. 0 in other ops. */
};

struct __attribute__((packed)) ina_ctrl_worker {
	uint32_t ip;
	uint8_t mac[6];
	uint8_t bit[INA_MAX_LEVELS]; /* bitmap bit at each level (the path) */
	uint16_t reserved;
};

/* Length of the HMAC-SHA256 of a control message. */
#define INA_CTRL_MAC_LEN 32u

/* Ends every control message. `counter`: strictly increasing per sender
 * (a PS's wall clock in ns); `mac`: HMAC-SHA256 with the switch's key over
 * destination IP, source IP (4 bytes each), the INA header and the control
 * payload up to `mac`; all zero where the switch runs without a key. */
struct __attribute__((packed)) ina_ctrl_auth {
	uint64_t counter;
	uint8_t mac[INA_CTRL_MAC_LEN];
};

#define INA_L2L3L4_LEN (sizeof(struct ina_eth_hdr) + sizeof(struct ina_ipv4_hdr) + sizeof(struct ina_udp_hdr))
#define INA_HDR_LEN (sizeof(struct ina_hdr))
/* Offset of the INA header and of the payload in a frame. */
#define INA_HDR_OFFSET INA_L2L3L4_LEN
#define INA_PAYLOAD_OFFSET (INA_L2L3L4_LEN + INA_HDR_LEN)
/* Frame length for n payload elements. */
#define INA_FRAME_LEN(n) (INA_PAYLOAD_OFFSET + 4u * (n))

INA_STATIC_ASSERT(sizeof(struct ina_eth_hdr) == 14, "eth");
INA_STATIC_ASSERT(sizeof(struct ina_ipv4_hdr) == 20, "ipv4");
INA_STATIC_ASSERT(sizeof(struct ina_udp_hdr) == 8, "udp");
INA_STATIC_ASSERT(sizeof(struct ina_hdr) == 44, "ina");
INA_STATIC_ASSERT(sizeof(struct ina_ctrl_hdr) == 20, "ctrl");
INA_STATIC_ASSERT(sizeof(struct ina_ctrl_worker) == 16, "ctrl worker");
INA_STATIC_ASSERT(sizeof(struct ina_ctrl_auth) == 40, "ctrl auth");
INA_STATIC_ASSERT(INA_FRAME_LEN(62) == 334, "default frame");

/* Byte-order helpers that work on unaligned buffers. */
static inline uint16_t ina_load16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return __builtin_bswap16(v);
}
static inline uint32_t ina_load32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}
static inline void ina_store16(void *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}
static inline void ina_store32(void *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}
static inline uint64_t ina_load64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}
static inline void ina_store64(void *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}


#endif /* INA_WIRE_H */
