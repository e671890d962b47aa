/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NetReduce over RoCEv2: the wire layout shared by the switch's RoCE stage,
 * the RoCE transport of the worker library and the tests. docs/netreduce.md
 * explains the mode.
 *
 * A RoCEv2 RC packet:
 *
 *   Ethernet (14) | IPv4 (20, no options) | UDP (8, dst port ROCE_UDP_PORT) |
 *   BTH (12) | RETH (16, RDMA WRITE First/Only only) | payload | ICRC (4)
 *
 * NetReduce changes nothing in it. A worker's flow-control module sends
 * fixed-size messages, each one RDMA WRITE (or SEND) on the RC connection to
 * its ring successor, and puts a struct nr_hdr in front of each message's
 * tensor values. The NIC segments the message, so the first packet of a
 * message (opcode First or Only) starts its payload with the nr_hdr and the
 * others carry values only:
 *
 *   message  = nr_hdr (16) | values (msg_len x mtu - 16 bytes)
 *   packet 0 = BTH | RETH | nr_hdr | values ...
 *   packet k = BTH | values ...                     (k = 1 .. msg_len - 1)
 *
 * Rules the switch relies on (the worker's flow-control module keeps them):
 *  - every message of a ring has exactly `msg_len` packets of `mtu` payload
 *    bytes (the connection's path MTU), and a connection carries nothing but
 *    these messages, so the PSNs of consecutive messages are contiguous;
 *  - at most `window` (N) messages are outstanding; msg_id counts messages
 *    from 0 and is the same on every rank for the same tensor chunk;
 *  - the values are 4-byte elements (enum nr_dtype) in the host's memory
 *    order, little endian: an RDMA WRITE places bytes in memory unchanged.
 *    The nr_hdr fields are big endian, like every other header here.
 *
 * All structs are packed and read through wire.h's load/store helpers.
 */
#ifndef INA_ROCE_H
#define INA_ROCE_H

#include "ina/wire.h"

/* UDP destination port of RoCEv2 (IANA). */
#define ROCE_UDP_PORT 4791u
/* Default P_Key, and the BTH transport header version. */
#define ROCE_DEFAULT_PKEY 0xFFFFu
/* PSNs and QP numbers are 24 bits wide. */
#define ROCE_PSN_MASK 0xFFFFFFu
#define ROCE_QPN_MASK 0xFFFFFFu
/* Length of the invariant CRC that ends every RoCEv2 packet. */
#define ROCE_ICRC_LEN 4u

/* BTH opcodes of the RC transport (IBTA vol. 1, table 38) that carry data. */
enum roce_opcode {
	ROCE_RC_SEND_FIRST = 0x00,
	ROCE_RC_SEND_MIDDLE = 0x01,
	ROCE_RC_SEND_LAST = 0x02,
	ROCE_RC_SEND_ONLY = 0x04,
	ROCE_RC_WRITE_FIRST = 0x06,
	ROCE_RC_WRITE_MIDDLE = 0x07,
	ROCE_RC_WRITE_LAST = 0x08,
	ROCE_RC_WRITE_ONLY = 0x0A,
	ROCE_RC_ACK = 0x11,
};

/* Base Transport Header, 12 bytes. */
struct __attribute__((packed)) roce_bth {
	uint8_t opcode;   /* enum roce_opcode */
	uint8_t flags;    /* SE (0x80) | MigReq (0x40) | PadCnt (0x30) | TVer (0x0f) */
	uint16_t pkey;    /* partition key */
	uint8_t resv8a;   /* reserved; set to 1s in the ICRC computation */
	uint8_t dqpn[3];  /* destination QP number */
	uint8_t ack_psn0; /* AckReq (0x80) | reserved (0x7f) */
	uint8_t psn[3];   /* packet sequence number */
};

/* BTH flags bits. */
#define ROCE_BTH_SE 0x80u
#define ROCE_BTH_MIGREQ 0x40u
#define ROCE_BTH_PAD_MASK 0x30u
#define ROCE_BTH_ACKREQ 0x80u

/* RDMA Extended Transport Header, 16 bytes: after the BTH of RDMA WRITE
 * First and Only. */
struct __attribute__((packed)) roce_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
};

/* InetTag: the magic that marks the first packet of a NetReduce message. */
#define NR_MAGIC 0x4E524544u /* "NRED" */

/* Element type of a ring's values. The ring's configuration names it; the
 * header repeats it so that a mismatch is caught, not summed. */
enum nr_dtype {
	NR_DTYPE_INT32 = 1,   /* two's complement, saturating sum */
	NR_DTYPE_FLOAT32 = 2, /* IEEE 754 binary32, sum */
};

/* The NetReduce INA header, 16 bytes, at the start of every message. */
struct __attribute__((packed)) nr_hdr {
	uint32_t magic;   /* NR_MAGIC (the InetTag) */
	uint32_t msg_id;  /* index of the message in the ring's sequence */
	uint16_t msg_len; /* packets per message (the ring's MsgLen) */
	uint16_t ring_id; /* the ring (aggregator array) */
	uint8_t rank;     /* sender's position on the ring, 0 .. ranks - 1 */
	uint8_t dtype;    /* enum nr_dtype */
	uint16_t reserved; /* 0 */
};

#define ROCE_BTH_LEN (sizeof(struct roce_bth))
#define ROCE_RETH_LEN (sizeof(struct roce_reth))
#define NR_HDR_LEN (sizeof(struct nr_hdr))
/* Offset of the BTH in a frame. */
#define ROCE_BTH_OFFSET INA_L2L3L4_LEN
/* Ranks per ring: one bitmap word of contributors. */
#define NR_MAX_RANKS 32u

INA_STATIC_ASSERT(sizeof(struct roce_bth) == 12, "bth");
INA_STATIC_ASSERT(sizeof(struct roce_reth) == 16, "reth");
INA_STATIC_ASSERT(sizeof(struct nr_hdr) == 16, "nr_hdr");

/* 24-bit helpers. */
static inline uint32_t ina_load24(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return ((uint32_t)b[0] << 16) | ((uint32_t)b[1] << 8) | b[2];
}
static inline void ina_store24(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)(v >> 16);
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)v;
}

/* True for the opcodes that start a message (and carry the nr_hdr). */
static inline int roce_opcode_first(uint8_t op)
{
	return op == ROCE_RC_SEND_FIRST || op == ROCE_RC_SEND_ONLY || op == ROCE_RC_WRITE_FIRST ||
	       op == ROCE_RC_WRITE_ONLY;
}
/* True for the opcodes that end a message. */
static inline int roce_opcode_last(uint8_t op)
{
	return op == ROCE_RC_SEND_LAST || op == ROCE_RC_SEND_ONLY || op == ROCE_RC_WRITE_LAST ||
	       op == ROCE_RC_WRITE_ONLY;
}
/* True for the data opcodes NetReduce aggregates. */
static inline int roce_opcode_data(uint8_t op)
{
	return op <= ROCE_RC_SEND_LAST || op == ROCE_RC_SEND_ONLY ||
	       (op >= ROCE_RC_WRITE_FIRST && op <= ROCE_RC_WRITE_LAST) || op == ROCE_RC_WRITE_ONLY;
}
/* Length of the extended headers after the BTH for a data opcode. */
static inline uint32_t roce_ext_len(uint8_t op)
{
	return (op == ROCE_RC_WRITE_FIRST || op == ROCE_RC_WRITE_ONLY) ? ROCE_RETH_LEN : 0u;
}

#endif /* INA_ROCE_H */
