/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The INA switch program for TNA (Tofino 1, bf-p4c from the Intel P4
 * Studio SDE). The stages are the shared controls in stages/; this file only
 * binds them to TNA's parsers, intrinsic metadata, resubmit, recirculation
 * port and packet replication engine. Build: see docs/p4.md.
 *
 *   bf-p4c --target tofino --arch tna -I pipeline/p4 -o ina_tna \
 *       pipeline/p4/ina_tna.p4
 *
 * Word lanes (Tofino 1; Tofino 2 with -DINA_WORD_LANES, whose default is
 * the pair lanes' one pass: include/constants.p4):
 * two passes for 2 * INA_LANES elements (ATP Appendix C): the first pass
 * runs every control register and lanes 0..INA_LANES-1; a packet that is
 * dropped after aggregation is resubmitted (ingress only: no port
 * bandwidth, the parser skips the first INA_LANES elements), one that
 * leaves is recirculated through a recirculation port (its first half of results is already in the frame, a
 * resubmit would bring back the original bytes). The second pass also runs
 * the late lanes (Tofino 1's default, stages/aggregator_value_late.p4) in
 * the stages the control registers hold in the first, and both passes the
 * lead lanes (Tofino 1's default, stages/aggregator_value_lead.p4) in the
 * two stages after the overflow test, whose elements come first: 7 + 7 +
 * 15 + 15 + 18 = 62 elements on Tofino 1.
 */
#include <core.p4>
#if __TARGET_TOFINO__ == 2
#include <t2na.p4>
#else
#include <tna.p4>
#endif

#include "include/target.p4"
#include "include/constants.p4"
#include "include/headers.p4"
#include "stages/admission.p4"
#include "stages/parse.p4"
#include "stages/filter.p4"
#include "stages/fair_share.p4"
#include "stages/aggregator_id.p4"
#include "stages/aggregator_bitmap.p4"
#include "stages/aggregator_count.p4"
/* The pair lanes (Tofino 2's default, include/constants.p4): two elements
 * per lane, all of them in the first pass (stages/aggregator_value_pair.p4). */
#ifdef INA_PAIR_LANES
#include "stages/aggregator_value_pair.p4"
#else
#include "stages/aggregator_value.p4"
#include "stages/aggregator_value_late.p4"
#include "stages/aggregator_value_lead.p4"
#endif
#include "stages/aggregator_flags.p4"
#include "stages/deparse.p4"
#include "stages/counters.p4"
#include "stages/forward.p4"

/* Recirculation port of pipe 0 on Tofino 1 (68; 196, 324, 452 on pipes 1-3).
 * The program recirculates on the packet's own pipe's port in a multi-pipe
 * build by passing -DINA_RECIRC_PORT per pipe (docs/p4.md). */
#ifndef INA_RECIRC_PORT
#define INA_RECIRC_PORT 68
#endif

const ResubmitType_t INA_RESUBMIT_TYPE = 1;

/* IPv4 options, in both parsers. Option word i in state opt<i>, a fixed
 * stack index per state: the Tofino parser cannot follow `.next` through
 * states entered at different depths, and has no variable-length extract.
 * The pair build (Tofino 2, INA_IPV4_OPTIONS 0) parses none: a frame with
 * IHL above 5 ends its parse at the IPv4 header, so it is not INA traffic
 * there and the normal tables forward it with its options as payload. The
 * ten option words took 320 bits of each gress's PHV: with them 24 pair
 * lanes failed PHV allocation, without them 31 fit (docs/p4.md, "IPv4
 * options on Tofino 2"). */
#if !INA_IPV4_OPTIONS
#define INA_AFTER_IHL5(SFX) accept
#define INA_OPTION_STATES(SFX)
#else
#define INA_AFTER_IHL5(SFX) opt0##SFX
#define INA_OPTION_STATES(SFX) \
    state opt0##SFX { pkt.extract(hdr.ipv4_opts[0]); transition select(hdr.ipv4.ihl) { 6: parse_udp##SFX; default: opt1##SFX; } } \
    state opt1##SFX { pkt.extract(hdr.ipv4_opts[1]); transition select(hdr.ipv4.ihl) { 7: parse_udp##SFX; default: opt2##SFX; } } \
    state opt2##SFX { pkt.extract(hdr.ipv4_opts[2]); transition select(hdr.ipv4.ihl) { 8: parse_udp##SFX; default: opt3##SFX; } } \
    state opt3##SFX { pkt.extract(hdr.ipv4_opts[3]); transition select(hdr.ipv4.ihl) { 9: parse_udp##SFX; default: opt4##SFX; } } \
    state opt4##SFX { pkt.extract(hdr.ipv4_opts[4]); transition select(hdr.ipv4.ihl) { 10: parse_udp##SFX; default: opt5##SFX; } } \
    state opt5##SFX { pkt.extract(hdr.ipv4_opts[5]); transition select(hdr.ipv4.ihl) { 11: parse_udp##SFX; default: opt6##SFX; } } \
    state opt6##SFX { pkt.extract(hdr.ipv4_opts[6]); transition select(hdr.ipv4.ihl) { 12: parse_udp##SFX; default: opt7##SFX; } } \
    state opt7##SFX { pkt.extract(hdr.ipv4_opts[7]); transition select(hdr.ipv4.ihl) { 13: parse_udp##SFX; default: opt8##SFX; } } \
    state opt8##SFX { pkt.extract(hdr.ipv4_opts[8]); transition select(hdr.ipv4.ihl) { 14: parse_udp##SFX; default: opt9##SFX; } } \
    state opt9##SFX { pkt.extract(hdr.ipv4_opts[9]); transition parse_udp##SFX; }
#endif

/* The header states, written once and instantiated twice: for the first
 * pass (no suffix) and for the second (suffix _2), which ends in the
 * elements of the second half. The pass is told apart where it is known,
 * in the first states (resubmit flag, recirculation port): selecting on
 * the intrinsic metadata in parse_ina kept the ingress port and the
 * resubmit flag in Tofino 1's parser match registers (one 16-bit, two
 * 8-bit) through every state, which left too few for the IPv4 header's
 * selects. The IPv4 version is checked by parse (is_ina), not here: with
 * the fragment offset and protocol it took a third match register. */
#define INA_HEADER_STATES(SFX, AFTER_INA) \
    state parse_ethernet##SFX { \
        pkt.extract(hdr.ethernet); \
        transition select(hdr.ethernet.ether_type) { \
            ETHERTYPE_IPV4: parse_ipv4##SFX; \
            default: accept; \
        } \
    } \
    state parse_ipv4##SFX { \
        pkt.extract(hdr.ipv4); \
        transition select(hdr.ipv4.frag_offset, hdr.ipv4.proto) { \
            (0, IP_PROTO_UDP): parse_ipv4_options##SFX; \
            default: accept; \
        } \
    } \
    state parse_ipv4_options##SFX { \
        transition select(hdr.ipv4.ihl) { \
            5: parse_udp##SFX; \
            6 .. 15: INA_AFTER_IHL5(SFX); \
            default: accept; \
        } \
    } \
    INA_OPTION_STATES(SFX) \
    state parse_udp##SFX { \
        pkt.extract(hdr.udp); \
        transition select(hdr.udp.dst_port) { \
            INA_UDP_PORT: parse_ina##SFX; \
            default: accept; \
        } \
    } \
    state parse_ina##SFX { \
        meta.is_ina = 1; \
        pkt.extract(hdr.ina); \
        transition select(hdr.ina.version, hdr.ina.type) { \
            (INA_VERSION, INA_TYPE_DATA): AFTER_INA; \
            default: accept; \
        } \
    }

/* Element I of each chain of the word lanes (first pass e<I> into elems,
 * second pass f<I> into elems, after h<I> into head), each state selecting
 * on the count: the packet's last element ends the chain. J is I + 1. */
#define INA_ELEMENT_STATES(I, J) \
    state e##I { \
        pkt.extract(hdr.elems[I]); \
        transition select(hdr.ina.elem_count) { INA_FIRST_ELEMENT_16 + J: accept; default: e##J; } \
    } \
    state f##I { \
        pkt.extract(hdr.elems[I]); \
        transition select(hdr.ina.elem_count) { INA_SECOND_ELEMENT_16 + J: accept; default: f##J; } \
    }
/* The second pass sets the first's elements aside (h<I> into head,
 * element INA_LEAD_LANES + I), then goes on to its word lanes'. */
#define INA_HEAD_STATES(I, J) \
    state h##I { \
        pkt.extract(hdr.head[I]); \
        transition select(hdr.ina.elem_count) { INA_LEAD_LANES_16 + J: accept; default: h##J; } \
    }
#define INA_HEAD_END(I) \
    state h##I { transition f0; }
/* The first pass's lead elements (head 0..INA_LEAD_LANES-1), as the
 * recirculated frame brings them back, are tested here for a limit (their
 * overflow test, aggregator_value_lead.p4): the parser's match on the
 * word, 16 bits at a time (the count holds the 16-bit match register),
 * sets lead_limit; lane_clips folds it into the overflow. As a lookup
 * after the parser the test held the seven words in MAU containers, and
 * the PHV allocation failed. */
#define INA_HEAD_TESTED_STATES(I, J) \
    state h##I { \
        transition select(pkt.lookahead<bit<16>>()) { \
            0x7fff: h##I##_max; \
            0x8000: h##I##_min; \
            default: h##I##_take; \
        } \
    } \
    state h##I##_max { \
        transition select(pkt.lookahead<bit<32>>()[15:0]) { 0xffff: h##I##_limit; default: h##I##_take; } \
    } \
    state h##I##_min { \
        transition select(pkt.lookahead<bit<32>>()[15:0]) { 0x0000: h##I##_limit; default: h##I##_take; } \
    } \
    state h##I##_limit { \
        meta.lead_limit = 1; \
        transition h##I##_take; \
    } \
    state h##I##_take { \
        pkt.extract(hdr.head[I]); \
        transition select(hdr.ina.elem_count) { INA_LEAD_LANES_16 + J: accept; default: h##J; } \
    }
/* The lead lanes' chains (INA_LEAD_LANES, aggregator_value_lead.p4): the
 * first pass sets elements 0..N-1 aside (a<I> into aside) and takes N..2N-1
 * into lead (t<I>), then the word lanes'; the second takes 0..N-1 into lead
 * (u<I>), then sets the first's aside. */
#define INA_LEAD_STATES(I, J) \
    state a##I { \
        pkt.extract(hdr.aside[I]); \
        transition select(hdr.ina.elem_count) { J: accept; default: a##J; } \
    } \
    state t##I { \
        pkt.extract(hdr.lead[I]); \
        transition select(hdr.ina.elem_count) { INA_LEAD_LANES_16 + J: accept; default: t##J; } \
    } \
    state u##I { \
        pkt.extract(hdr.lead[I]); \
        transition select(hdr.ina.elem_count) { J: accept; default: u##J; } \
    }
#define INA_LEAD_END(I) \
    state a##I { transition t0; } \
    state t##I { transition e0; } \
    state u##I { transition h0; }
/* Past the pass's lanes: the first pass stops, the second goes on from its
 * first element to extract, and past its lanes to the late lanes' elements. */
#if INA_LATE_LANES > 0
#define INA_SECOND_PASS_LANES_END l0
#else
#define INA_SECOND_PASS_LANES_END accept
#endif
#define INA_ELEMENT_ENDS(I) \
    state e##I { transition accept; } \
    state f##I { transition INA_SECOND_PASS_LANES_END; }
/* The late lanes' element I (second pass only, l<I> into late), the count
 * ending the chain as above; past the last one, the rest stays payload
 * (a longer packet is malformed_elements). */
#define INA_LATE_STATES(I, J) \
    state l##I { \
        pkt.extract(hdr.late[I]); \
        transition select(hdr.ina.elem_count) { INA_LATE_ELEMENT_16 + J: accept; default: l##J; } \
    }
#define INA_LATE_END(I) \
    state l##I { transition accept; }

parser InaIngressParser(packet_in pkt, out ina_headers_t hdr, out ina_meta_t meta,
                        out ingress_intrinsic_metadata_t ig_intr_md) {
    /* The ingress port and the frame length (none in ingress on Tofino)
     * are set here rather than in the control, where their assignments
     * took one of stage 0's 16 logical tables, which the late lanes need,
     * and in an action they would have been a stage late for admission's
     * keys (docs/p4.md, "Two passes"). */
    state start {
        pkt.extract(ig_intr_md);
        meta.in_port = ig_intr_md.ingress_port;
        meta.frame_len = 0;
        transition select(ig_intr_md.resubmit_flag) {
            1: resubmitted;
            default: port_metadata;
        }
    }
    /* The pass state rides in the resubmit data (64 bits on Tofino 1).
     * Restored in the extracting state itself (once per path): the parser
     * copies a field only at a fixed offset from the state. */
    state resubmitted {
        pkt.extract(hdr.pass);
        meta.second = 1;
        meta.row_offset = INA_AGGREGATORS;
        meta.value_op = hdr.pass.value_op;
        meta.pass_value_op = hdr.pass.value_op;
        meta.flags_op = hdr.pass.flags_op;
        meta.clipped = hdr.pass.clipped;
        meta.verdict = hdr.pass.verdict;
        meta.reason = hdr.pass.reason;
        meta.flags_in = hdr.pass.flags_in;
        meta.side = hdr.pass.side;
        meta.carry_flags = hdr.pass.carry;
        hdr.pass.setInvalid();
        transition parse_ethernet_2;
    }
    state port_metadata {
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port) {
            INA_RECIRC_PORT: recirculated;
            default: parse_ethernet;
        }
    }
    /* ... or in front of the frame, put there by egress. */
    state recirculated {
        pkt.extract(hdr.pass);
        meta.second = 1;
#if INA_LEAD_LANES > 0
        meta.recirculated = 1;
#endif
        meta.row_offset = INA_AGGREGATORS;
        meta.value_op = hdr.pass.value_op;
        meta.pass_value_op = hdr.pass.value_op;
        meta.flags_op = hdr.pass.flags_op;
        meta.clipped = hdr.pass.clipped;
        meta.verdict = hdr.pass.verdict;
        meta.reason = hdr.pass.reason;
        meta.flags_in = hdr.pass.flags_in;
        meta.side = hdr.pass.side;
        meta.carry_flags = hdr.pass.carry;
        hdr.pass.setInvalid();
        transition parse_ethernet_2;
    }
    INA_HEADER_STATES(, count_first)
    INA_HEADER_STATES(_2, count_head)
    /* The elements, one state each, each selecting on the count: the
     * first pass extracts elements 0..INA_LANES-1 into `elems` (e<i>), the
     * second skips them into `head` (h<i>) and extracts the rest (f<i>).
     * A state per element, not a loop on Tofino's parser counter: the back
     * end failed to place the counter's load ("counter load allocated to
     * more than 1 registers"); a packet has at most INA_P4_MAX_ELEMENTS
     * elements here (more is malformed_elements), so the chains are
     * bounded: the second's goes on into the late lanes' (l<i>). */
    state count_first {
        transition select(hdr.ina.elem_count) {
            0: accept;
#if INA_LEAD_LANES > 0
            default: a0;
#else
            default: e0;
#endif
        }
    }
#ifdef INA_PAIR_LANES
    /* The second pass of the pair form carries no elements. */
    state count_head {
        transition accept;
    }
#include "include/pair_elements.p4"
#else
    state count_head {
        transition select(hdr.ina.elem_count) {
            0: accept;
#if INA_LEAD_LANES > 0
            default: u0;
#else
            default: h0;
#endif
        }
    }
#if INA_LEAD_LANES > 0
    INA_LEAD_STATES(0, 1)
#if INA_LEAD_LANES > 1
    INA_LEAD_STATES(1, 2)
#elif INA_LEAD_LANES == 1
    INA_LEAD_END(1)
#endif
#if INA_LEAD_LANES > 2
    INA_LEAD_STATES(2, 3)
#elif INA_LEAD_LANES == 2
    INA_LEAD_END(2)
#endif
#if INA_LEAD_LANES > 3
    INA_LEAD_STATES(3, 4)
#elif INA_LEAD_LANES == 3
    INA_LEAD_END(3)
#endif
#if INA_LEAD_LANES > 4
    INA_LEAD_STATES(4, 5)
#elif INA_LEAD_LANES == 4
    INA_LEAD_END(4)
#endif
#if INA_LEAD_LANES > 5
    INA_LEAD_STATES(5, 6)
#elif INA_LEAD_LANES == 5
    INA_LEAD_END(5)
#endif
#if INA_LEAD_LANES > 6
    INA_LEAD_STATES(6, 7)
#elif INA_LEAD_LANES == 6
    INA_LEAD_END(6)
#endif
#if INA_LEAD_LANES == 7
    INA_LEAD_END(7)
#endif
#endif
#if INA_LEAD_LANES > 0
    INA_HEAD_TESTED_STATES(0, 1)
#else
    INA_HEAD_STATES(0, 1)
#endif
#if INA_LEAD_LANES > 1
    INA_HEAD_TESTED_STATES(1, 2)
#elif INA_HEAD_ELEMENTS > 1
    INA_HEAD_STATES(1, 2)
#elif INA_HEAD_ELEMENTS == 1
    INA_HEAD_END(1)
#endif
#if INA_LEAD_LANES > 2
    INA_HEAD_TESTED_STATES(2, 3)
#elif INA_HEAD_ELEMENTS > 2
    INA_HEAD_STATES(2, 3)
#elif INA_HEAD_ELEMENTS == 2
    INA_HEAD_END(2)
#endif
#if INA_LEAD_LANES > 3
    INA_HEAD_TESTED_STATES(3, 4)
#elif INA_HEAD_ELEMENTS > 3
    INA_HEAD_STATES(3, 4)
#elif INA_HEAD_ELEMENTS == 3
    INA_HEAD_END(3)
#endif
#if INA_LEAD_LANES > 4
    INA_HEAD_TESTED_STATES(4, 5)
#elif INA_HEAD_ELEMENTS > 4
    INA_HEAD_STATES(4, 5)
#elif INA_HEAD_ELEMENTS == 4
    INA_HEAD_END(4)
#endif
#if INA_LEAD_LANES > 5
    INA_HEAD_TESTED_STATES(5, 6)
#elif INA_HEAD_ELEMENTS > 5
    INA_HEAD_STATES(5, 6)
#elif INA_HEAD_ELEMENTS == 5
    INA_HEAD_END(5)
#endif
#if INA_LEAD_LANES > 6
    INA_HEAD_TESTED_STATES(6, 7)
#elif INA_HEAD_ELEMENTS > 6
    INA_HEAD_STATES(6, 7)
#elif INA_HEAD_ELEMENTS == 6
    INA_HEAD_END(6)
#endif
#if INA_HEAD_ELEMENTS > 7
    INA_HEAD_STATES(7, 8)
#elif INA_HEAD_ELEMENTS == 7
    INA_HEAD_END(7)
#endif
#if INA_HEAD_ELEMENTS > 8
    INA_HEAD_STATES(8, 9)
#elif INA_HEAD_ELEMENTS == 8
    INA_HEAD_END(8)
#endif
#if INA_HEAD_ELEMENTS > 9
    INA_HEAD_STATES(9, 10)
#elif INA_HEAD_ELEMENTS == 9
    INA_HEAD_END(9)
#endif
#if INA_HEAD_ELEMENTS > 10
    INA_HEAD_STATES(10, 11)
#elif INA_HEAD_ELEMENTS == 10
    INA_HEAD_END(10)
#endif
#if INA_HEAD_ELEMENTS > 11
    INA_HEAD_STATES(11, 12)
#elif INA_HEAD_ELEMENTS == 11
    INA_HEAD_END(11)
#endif
#if INA_HEAD_ELEMENTS > 12
    INA_HEAD_STATES(12, 13)
#elif INA_HEAD_ELEMENTS == 12
    INA_HEAD_END(12)
#endif
#if INA_HEAD_ELEMENTS > 13
    INA_HEAD_STATES(13, 14)
#elif INA_HEAD_ELEMENTS == 13
    INA_HEAD_END(13)
#endif
#if INA_HEAD_ELEMENTS > 14
    INA_HEAD_STATES(14, 15)
#elif INA_HEAD_ELEMENTS == 14
    INA_HEAD_END(14)
#endif
#if INA_HEAD_ELEMENTS > 15
    INA_HEAD_STATES(15, 16)
#elif INA_HEAD_ELEMENTS == 15
    INA_HEAD_END(15)
#endif
#if INA_HEAD_ELEMENTS > 16
    INA_HEAD_STATES(16, 17)
#elif INA_HEAD_ELEMENTS == 16
    INA_HEAD_END(16)
#endif
#if INA_HEAD_ELEMENTS > 17
    INA_HEAD_STATES(17, 18)
#elif INA_HEAD_ELEMENTS == 17
    INA_HEAD_END(17)
#endif
#if INA_HEAD_ELEMENTS > 18
    INA_HEAD_STATES(18, 19)
#elif INA_HEAD_ELEMENTS == 18
    INA_HEAD_END(18)
#endif
#if INA_HEAD_ELEMENTS > 19
    INA_HEAD_STATES(19, 20)
#elif INA_HEAD_ELEMENTS == 19
    INA_HEAD_END(19)
#endif
#if INA_HEAD_ELEMENTS > 20
    INA_HEAD_STATES(20, 21)
#elif INA_HEAD_ELEMENTS == 20
    INA_HEAD_END(20)
#endif
#if INA_HEAD_ELEMENTS > 21
    INA_HEAD_STATES(21, 22)
#elif INA_HEAD_ELEMENTS == 21
    INA_HEAD_END(21)
#endif
#if INA_HEAD_ELEMENTS > 22
    INA_HEAD_STATES(22, 23)
#elif INA_HEAD_ELEMENTS == 22
    INA_HEAD_END(22)
#endif
#if INA_HEAD_ELEMENTS > 23
    INA_HEAD_STATES(23, 24)
#elif INA_HEAD_ELEMENTS == 23
    INA_HEAD_END(23)
#endif
#if INA_HEAD_ELEMENTS > 24
    INA_HEAD_STATES(24, 25)
#elif INA_HEAD_ELEMENTS == 24
    INA_HEAD_END(24)
#endif
#if INA_HEAD_ELEMENTS > 25
    INA_HEAD_STATES(25, 26)
#elif INA_HEAD_ELEMENTS == 25
    INA_HEAD_END(25)
#endif
#if INA_HEAD_ELEMENTS > 26
    INA_HEAD_STATES(26, 27)
#elif INA_HEAD_ELEMENTS == 26
    INA_HEAD_END(26)
#endif
#if INA_HEAD_ELEMENTS > 27
    INA_HEAD_STATES(27, 28)
#elif INA_HEAD_ELEMENTS == 27
    INA_HEAD_END(27)
#endif
#if INA_HEAD_ELEMENTS > 28
    INA_HEAD_STATES(28, 29)
#elif INA_HEAD_ELEMENTS == 28
    INA_HEAD_END(28)
#endif
#if INA_HEAD_ELEMENTS > 29
    INA_HEAD_STATES(29, 30)
#elif INA_HEAD_ELEMENTS == 29
    INA_HEAD_END(29)
#endif
#if INA_HEAD_ELEMENTS > 30
    INA_HEAD_STATES(30, 31)
#elif INA_HEAD_ELEMENTS == 30
    INA_HEAD_END(30)
#endif
#if INA_HEAD_ELEMENTS > 31
    INA_HEAD_STATES(31, 32)
#elif INA_HEAD_ELEMENTS == 31
    INA_HEAD_END(31)
#endif
#if INA_LANES > 0
    INA_ELEMENT_STATES(0, 1)
#elif INA_LANES == 0
    INA_ELEMENT_ENDS(0)
#endif
#if INA_LANES > 1
    INA_ELEMENT_STATES(1, 2)
#elif INA_LANES == 1
    INA_ELEMENT_ENDS(1)
#endif
#if INA_LANES > 2
    INA_ELEMENT_STATES(2, 3)
#elif INA_LANES == 2
    INA_ELEMENT_ENDS(2)
#endif
#if INA_LANES > 3
    INA_ELEMENT_STATES(3, 4)
#elif INA_LANES == 3
    INA_ELEMENT_ENDS(3)
#endif
#if INA_LANES > 4
    INA_ELEMENT_STATES(4, 5)
#elif INA_LANES == 4
    INA_ELEMENT_ENDS(4)
#endif
#if INA_LANES > 5
    INA_ELEMENT_STATES(5, 6)
#elif INA_LANES == 5
    INA_ELEMENT_ENDS(5)
#endif
#if INA_LANES > 6
    INA_ELEMENT_STATES(6, 7)
#elif INA_LANES == 6
    INA_ELEMENT_ENDS(6)
#endif
#if INA_LANES > 7
    INA_ELEMENT_STATES(7, 8)
#elif INA_LANES == 7
    INA_ELEMENT_ENDS(7)
#endif
#if INA_LANES > 8
    INA_ELEMENT_STATES(8, 9)
#elif INA_LANES == 8
    INA_ELEMENT_ENDS(8)
#endif
#if INA_LANES > 9
    INA_ELEMENT_STATES(9, 10)
#elif INA_LANES == 9
    INA_ELEMENT_ENDS(9)
#endif
#if INA_LANES > 10
    INA_ELEMENT_STATES(10, 11)
#elif INA_LANES == 10
    INA_ELEMENT_ENDS(10)
#endif
#if INA_LANES > 11
    INA_ELEMENT_STATES(11, 12)
#elif INA_LANES == 11
    INA_ELEMENT_ENDS(11)
#endif
#if INA_LANES > 12
    INA_ELEMENT_STATES(12, 13)
#elif INA_LANES == 12
    INA_ELEMENT_ENDS(12)
#endif
#if INA_LANES > 13
    INA_ELEMENT_STATES(13, 14)
#elif INA_LANES == 13
    INA_ELEMENT_ENDS(13)
#endif
#if INA_LANES > 14
    INA_ELEMENT_STATES(14, 15)
#elif INA_LANES == 14
    INA_ELEMENT_ENDS(14)
#endif
#if INA_LANES > 15
    INA_ELEMENT_STATES(15, 16)
#elif INA_LANES == 15
    INA_ELEMENT_ENDS(15)
#endif
#if INA_LANES > 16
    INA_ELEMENT_STATES(16, 17)
#elif INA_LANES == 16
    INA_ELEMENT_ENDS(16)
#endif
#if INA_LANES > 17
    INA_ELEMENT_STATES(17, 18)
#elif INA_LANES == 17
    INA_ELEMENT_ENDS(17)
#endif
#if INA_LANES > 18
    INA_ELEMENT_STATES(18, 19)
#elif INA_LANES == 18
    INA_ELEMENT_ENDS(18)
#endif
#if INA_LANES > 19
    INA_ELEMENT_STATES(19, 20)
#elif INA_LANES == 19
    INA_ELEMENT_ENDS(19)
#endif
#if INA_LANES > 20
    INA_ELEMENT_STATES(20, 21)
#elif INA_LANES == 20
    INA_ELEMENT_ENDS(20)
#endif
#if INA_LANES > 21
    INA_ELEMENT_STATES(21, 22)
#elif INA_LANES == 21
    INA_ELEMENT_ENDS(21)
#endif
#if INA_LANES > 22
    INA_ELEMENT_STATES(22, 23)
#elif INA_LANES == 22
    INA_ELEMENT_ENDS(22)
#endif
#if INA_LANES > 23
    INA_ELEMENT_STATES(23, 24)
#elif INA_LANES == 23
    INA_ELEMENT_ENDS(23)
#endif
#if INA_LANES > 24
    INA_ELEMENT_STATES(24, 25)
#elif INA_LANES == 24
    INA_ELEMENT_ENDS(24)
#endif
#if INA_LANES > 25
    INA_ELEMENT_STATES(25, 26)
#elif INA_LANES == 25
    INA_ELEMENT_ENDS(25)
#endif
#if INA_LANES > 26
    INA_ELEMENT_STATES(26, 27)
#elif INA_LANES == 26
    INA_ELEMENT_ENDS(26)
#endif
#if INA_LANES > 27
    INA_ELEMENT_STATES(27, 28)
#elif INA_LANES == 27
    INA_ELEMENT_ENDS(27)
#endif
#if INA_LANES > 28
    INA_ELEMENT_STATES(28, 29)
#elif INA_LANES == 28
    INA_ELEMENT_ENDS(28)
#endif
#if INA_LANES > 29
    INA_ELEMENT_STATES(29, 30)
#elif INA_LANES == 29
    INA_ELEMENT_ENDS(29)
#endif
#if INA_LANES > 30
    INA_ELEMENT_STATES(30, 31)
#elif INA_LANES == 30
    INA_ELEMENT_ENDS(30)
#endif
#if INA_LANES == 31
    INA_ELEMENT_ENDS(31)
#endif
#if INA_LATE_LANES > 0
    INA_LATE_STATES(0, 1)
#endif
#if INA_LATE_LANES > 1
    INA_LATE_STATES(1, 2)
#elif INA_LATE_LANES == 1
    INA_LATE_END(1)
#endif
#if INA_LATE_LANES > 2
    INA_LATE_STATES(2, 3)
#elif INA_LATE_LANES == 2
    INA_LATE_END(2)
#endif
#if INA_LATE_LANES > 3
    INA_LATE_STATES(3, 4)
#elif INA_LATE_LANES == 3
    INA_LATE_END(3)
#endif
#if INA_LATE_LANES > 4
    INA_LATE_STATES(4, 5)
#elif INA_LATE_LANES == 4
    INA_LATE_END(4)
#endif
#if INA_LATE_LANES > 5
    INA_LATE_STATES(5, 6)
#elif INA_LATE_LANES == 5
    INA_LATE_END(5)
#endif
#if INA_LATE_LANES > 6
    INA_LATE_STATES(6, 7)
#elif INA_LATE_LANES == 6
    INA_LATE_END(6)
#endif
#if INA_LATE_LANES > 7
    INA_LATE_STATES(7, 8)
#elif INA_LATE_LANES == 7
    INA_LATE_END(7)
#endif
#if INA_LATE_LANES > 8
    INA_LATE_STATES(8, 9)
#elif INA_LATE_LANES == 8
    INA_LATE_END(8)
#endif
#if INA_LATE_LANES > 9
    INA_LATE_STATES(9, 10)
#elif INA_LATE_LANES == 9
    INA_LATE_END(9)
#endif
#if INA_LATE_LANES > 10
    INA_LATE_STATES(10, 11)
#elif INA_LATE_LANES == 10
    INA_LATE_END(10)
#endif
#if INA_LATE_LANES > 11
    INA_LATE_STATES(11, 12)
#elif INA_LATE_LANES == 11
    INA_LATE_END(11)
#endif
#if INA_LATE_LANES > 12
    INA_LATE_STATES(12, 13)
#elif INA_LATE_LANES == 12
    INA_LATE_END(12)
#endif
#if INA_LATE_LANES > 13
    INA_LATE_STATES(13, 14)
#elif INA_LATE_LANES == 13
    INA_LATE_END(13)
#endif
#if INA_LATE_LANES > 14
    INA_LATE_STATES(14, 15)
#elif INA_LATE_LANES == 14
    INA_LATE_END(14)
#endif
#if INA_LATE_LANES > 15
    INA_LATE_STATES(15, 16)
#elif INA_LATE_LANES == 15
    INA_LATE_END(15)
#endif
#if INA_LATE_LANES > 16
    INA_LATE_STATES(16, 17)
#elif INA_LATE_LANES == 16
    INA_LATE_END(16)
#endif
#if INA_LATE_LANES > 17
    INA_LATE_STATES(17, 18)
#elif INA_LATE_LANES == 17
    INA_LATE_END(17)
#endif
#if INA_LATE_LANES == 18
    INA_LATE_END(18)
#endif
#endif /* INA_PAIR_LANES */
}

control InaIngress(inout ina_headers_t hdr, inout ina_meta_t meta,
                   in ingress_intrinsic_metadata_t ig_intr_md,
                   in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    switch_config() switch_config_0;
    admission() admission_0;
    parse() parse_0;
    filter() filter_0;
    share_flag() share_flag_0;
    aggregator_id() aggregator_id_0;
    share_holder() share_holder_0;
    share_held() share_held_0;
    aggregator_bitmap() aggregator_bitmap_0;
    aggregator_count() aggregator_count_0;
    value_rows() value_rows_0;
    aggregator_value() aggregator_value_0;
#if INA_LATE_LANES > 0
    aggregator_value_late() aggregator_value_late_0;
#endif
#if INA_LEAD_LANES > 0
    aggregator_value_lead() aggregator_value_lead_0;
#endif
    aggregator_flags() aggregator_flags_0;
    deparse() deparse_0;
    counters() counters_0;
    forward() forward_0;
    forward_decision() forward_decision_0;

    /* Target inputs of the shared stages. The clock is the MAC timestamp
     * in units of 65.536 us (bits 47:16 of nanoseconds), so 32 bits last 78
     * hours; gc_timeout is configured in the same unit. Set by a table so
     * that ts_now stays a field: filter adds to it, and a Tofino action
     * does one operation per field (~now + timeout would be two). */
    action set_clock() {
        meta.now = ig_intr_md.ingress_mac_tstamp[47:16];
        meta.ts_now = ~ig_intr_md.ingress_mac_tstamp[47:16];
    }
    table clock {
        actions = { set_clock; }
        default_action = set_clock();
        size = 1;
    }

    apply {
        clock.apply();
        /* The parser's own error flags a frame cut short (no frame
         * length in ingress on Tofino). */
        if (ig_prsr_md.parser_err != 0) {
            meta.parse_short = 1;
        }

        switch_config_0.apply(hdr, meta);
        value_rows_0.apply(hdr, meta);
        forward_0.apply(hdr, meta);
        /* The fair share's flag (fair_share.p4), in both passes: read by
         * the first, changed by a crossing packet's second. First in
         * control order: its key (side) is what filter writes in the first
         * pass, and the lookup waits for nothing. */
        share_flag_0.apply(hdr, meta);
        if (meta.second == 0) {
            /* Facts, then the decisions of admission and of parse and
             * filter side by side (the stage controls say why); a packet
             * admission refuses or forwards unregistered takes admission's
             * verdict and skips every register. */
            parse_0.apply(hdr, meta);
            admission_0.apply(hdr, meta);
            filter_0.apply(hdr, meta);
            if (meta.skip_pipeline == 1) {
                meta.verdict = meta.adm_verdict;
                meta.reason = CTR_NONE;
            } else {
                aggregator_id_0.apply(hdr, meta);
                share_holder_0.apply(hdr, meta);
                aggregator_bitmap_0.apply(hdr, meta);
                share_held_0.apply(hdr, meta);
                aggregator_count_0.apply(hdr, meta);
            }
        }
#if INA_LATE_LANES > 0
        else {
            /* The second pass: the late lanes, in the stages of the
             * control registers above (the else branch tells the back
             * end that the two never run together). */
            aggregator_value_late_0.apply(hdr, meta);
        }
#endif
        if (INA_LAST_PASS) {
            /* The packet's last pass: its counters, as soon as the verdict
             * is known. */
            counters_0.apply(hdr, meta);
        }
        aggregator_value_0.apply(hdr, meta);
#if INA_LEAD_LANES > 0
        aggregator_value_lead_0.apply(hdr, meta);
#endif
        if (INA_LAST_PASS) {
            aggregator_flags_0.apply(hdr, meta);
        }
        if (meta.skip_pipeline == 0) {
            /* A packet admission forwards unregistered leaves untouched. */
            deparse_0.apply(hdr, meta);
        }

        /* Where the packet goes, whatever the pass: the verdict is known two
         * stages after the registers, and the decision (a route's MAC into
         * the header) is redone in the second pass; out of the last-pass
         * branch it does not wait for the lanes. */
        forward_decision_0.apply(hdr, meta);
        hdr.bridge.setValid();
        hdr.bridge.recirculate = 0;
        hdr.bridge.pad0 = 0;
        hdr.bridge.in_port = meta.in_port;
        hdr.bridge.flood_group = meta.flood_group;
        hdr.bridge.pad1 = 0;
        /* The result's flags are egress's to write, in the last pass (a
         * recirculated packet's egress passes it on untouched). */
        hdr.bridge.carry_flags = meta.carry_flags;
#if INA_LEAD_LANES > 0
        /* egress tests the lead elements of a packet leaving its second
         * pass (0 in the first: pass_value_op is the parser's) */
        hdr.bridge.pad_op = 0;
        hdr.bridge.value_op = meta.pass_value_op;
#endif
        if (meta.second == 0 && meta.need_second == 1) {
            hdr.pass.setValid();
            hdr.pass.pad0 = 0;
            hdr.pass.value_op = meta.value_op;
            hdr.pass.pad1 = 0;
            hdr.pass.flags_op = meta.flags_op;
            hdr.pass.pad2 = 0;
            hdr.pass.clipped = meta.clipped;
            hdr.pass.pad3 = 0;
            hdr.pass.verdict = meta.verdict;
            hdr.pass.pad4 = 0;
            hdr.pass.carry = meta.carry_flags;
            hdr.pass.reason = meta.reason;
            hdr.pass.flags_in = meta.flags_in;
            hdr.pass.side = meta.side;
            if (meta.verdict == VERDICT_DROP) {
                ig_dprsr_md.resubmit_type = INA_RESUBMIT_TYPE;
                hdr.bridge.setInvalid();
            } else {
                hdr.bridge.recirculate = 1;
                ig_tm_md.ucast_egress_port = INA_RECIRC_PORT;
                ig_tm_md.bypass_egress = 0;
            }
        }
        else {
            if (meta.fwd_drop == 1) {
                ig_dprsr_md.drop_ctl = 1;
            } else if (meta.fwd_group != 0) {
                ig_tm_md.mcast_grp_a = meta.fwd_group;
                /* Replication id = group: egress keys its rewrites on it. */
                ig_tm_md.rid = meta.fwd_group;
            } else {
                ig_tm_md.ucast_egress_port = meta.fwd_port;
            }
        }
    }
}

control InaIngressDeparser(packet_out pkt, inout ina_headers_t hdr, in ina_meta_t meta,
                           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Resubmit(INA_RESUBMIT_TYPE) resubmit;

    apply {
        if (ig_dprsr_md.resubmit_type == INA_RESUBMIT_TYPE) {
            resubmit.emit(hdr.pass);
        }
        pkt.emit(hdr.bridge);
        pkt.emit(hdr.pass);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
#if INA_IPV4_OPTIONS
        pkt.emit(hdr.ipv4_opts);
#endif
        pkt.emit(hdr.udp);
        pkt.emit(hdr.ina);
#if INA_LEAD_LANES > 0
        /* the first pass: aside, lead, elems; the second: lead, head, elems, late */
        pkt.emit(hdr.aside);
        pkt.emit(hdr.lead);
#endif
#ifndef INA_PAIR_LANES
        pkt.emit(hdr.head);
#endif
        pkt.emit(hdr.elems);
#if INA_LATE_LANES > 0
        pkt.emit(hdr.late);
#endif
#if defined(INA_PAIR_LANES) && INA_LANES > 16
        pkt.emit(hdr.elems_hi);
#endif
    }
}

/* Egress parses up to the INA header (ECN mark, multicast rewrite) and,
 * in a packet leaving its lead lanes' second pass, the lead elements
 * (their overflow test, aggregator_value_lead.p4); the payload passes
 * through unparsed. */
parser InaEgressParser(packet_in pkt, out ina_headers_t hdr, out ina_meta_t meta,
                       out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.bridge);
        meta.in_port = hdr.bridge.in_port;
        meta.flood_group = hdr.bridge.flood_group;
        meta.recirculate = hdr.bridge.recirculate;
        meta.flags_out = hdr.bridge.flags_out;
        meta.carry_flags = hdr.bridge.carry_flags;
#if INA_LEAD_LANES > 0
        meta.pass_value_op = hdr.bridge.value_op;
        /* A packet leaving its second pass with sums or reads in its lead
         * elements (VALUE_ADD, VALUE_ADD_READ, VALUE_READ): ingress found
         * its headers IPv4 without options, UDP and INA. */
        transition select(hdr.bridge.recirculate, hdr.bridge.value_op) {
            (1, _): parse_pass;
            (0, 2 &&& 6): lead_frame;
            (0, 4): lead_frame;
            default: parse_ethernet;
        }
#else
        transition select(hdr.bridge.recirculate) {
            1: parse_pass;
            default: parse_ethernet;
        }
#endif
    }
#if INA_LEAD_LANES > 0
    state lead_frame {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.udp);
        pkt.extract(hdr.ina);
        transition select(hdr.ina.elem_count) {
            0: accept;
            default: c0;
        }
    }
    /* The lead elements, one state each, the count ending the chain. */
#define INA_EGRESS_LEAD_STATE(I, J) \
    state c##I { \
        pkt.extract(hdr.lead[I]); \
        transition select(hdr.ina.elem_count) { J: accept; default: c##J; } \
    }
    INA_EGRESS_LEAD_STATE(0, 1)
#if INA_LEAD_LANES > 1
    INA_EGRESS_LEAD_STATE(1, 2)
#endif
#if INA_LEAD_LANES > 2
    INA_EGRESS_LEAD_STATE(2, 3)
#endif
#if INA_LEAD_LANES > 3
    INA_EGRESS_LEAD_STATE(3, 4)
#endif
#if INA_LEAD_LANES > 4
    INA_EGRESS_LEAD_STATE(4, 5)
#endif
#if INA_LEAD_LANES > 5
    INA_EGRESS_LEAD_STATE(5, 6)
#endif
#if INA_LEAD_LANES > 6
    INA_EGRESS_LEAD_STATE(6, 7)
#endif
#if INA_LEAD_LANES == 1
    state c1 { transition accept; }
#elif INA_LEAD_LANES == 2
    state c2 { transition accept; }
#elif INA_LEAD_LANES == 3
    state c3 { transition accept; }
#elif INA_LEAD_LANES == 4
    state c4 { transition accept; }
#elif INA_LEAD_LANES == 5
    state c5 { transition accept; }
#elif INA_LEAD_LANES == 6
    state c6 { transition accept; }
#elif INA_LEAD_LANES == 7
    state c7 { transition accept; }
#endif
#endif
    state parse_pass {
        pkt.extract(hdr.pass);
        transition accept;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
#if INA_IPV4_OPTIONS
            ETHERTYPE_IPV4: parse_ipv4;
#else
            ETHERTYPE_IPV4: ipv4_without_options;
#endif
            default: accept;
        }
    }
#if !INA_IPV4_OPTIONS
    /* No option words in PHV: a header with options stays payload here, so
     * that egress changes nothing in it (no ECN mark, no checksum that
     * could not cover the options). Version 4, IHL 5. */
    state ipv4_without_options {
        transition select(pkt.lookahead<bit<8>>()) {
            0x45: parse_ipv4;
            default: accept;
        }
    }
#endif
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.version, hdr.ipv4.frag_offset, hdr.ipv4.proto) {
            (4, 0, IP_PROTO_UDP): parse_ipv4_options;
            default: accept;
        }
    }
    state parse_ipv4_options {
        transition select(hdr.ipv4.ihl) {
            5: parse_udp;
            6 .. 15: INA_AFTER_IHL5();
            default: accept;
        }
    }
    INA_OPTION_STATES()
    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            INA_UDP_PORT: parse_ina;
            default: accept;
        }
    }
    state parse_ina {
        pkt.extract(hdr.ina);
        transition accept;
    }
}

control InaEgress(inout ina_headers_t hdr, inout ina_meta_t meta,
                  in egress_intrinsic_metadata_t eg_intr_md,
                  in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                  inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                  inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    egress_ina() egress_ina_0;
    result_flags() result_flags_0;
#if INA_LEAD_LANES > 0
    lead_overflow() lead_overflow_0;
#endif

    apply {
        hdr.bridge.setInvalid();
        if (meta.recirculate == 0) {
            bit<1> drop;
            egress_ina_0.apply(hdr, meta, eg_intr_md.egress_port, eg_intr_md.egress_rid,
                               (bit<32>)eg_intr_md.enq_qdepth, drop);
            if (drop == 1) {
                eg_dprsr_md.drop_ctl = 1;
            }
            if (meta.carry_flags == 1 && hdr.ina.isValid()) {
                result_flags_0.apply(hdr, meta);
#if INA_LEAD_LANES > 0
                lead_overflow_0.apply(hdr, meta);
#endif
            }
        }
    }
}

control InaEgressDeparser(packet_out pkt, inout ina_headers_t hdr, in ina_meta_t meta,
                          in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Checksum() ipv4_checksum;

    apply {
        if (meta.ip_changed == 1) {
            hdr.ipv4.checksum = ipv4_checksum.update({
                hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.total_length,
                hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
#if INA_IPV4_OPTIONS
                hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst,
                /* absent option words read as 0 and add nothing */
                hdr.ipv4_opts[0].word, hdr.ipv4_opts[1].word, hdr.ipv4_opts[2].word, hdr.ipv4_opts[3].word,
                hdr.ipv4_opts[4].word, hdr.ipv4_opts[5].word, hdr.ipv4_opts[6].word,
                hdr.ipv4_opts[7].word, hdr.ipv4_opts[8].word, hdr.ipv4_opts[9].word });
#else
                /* a header with options is not parsed here (ipv4_without_options) */
                hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst });
#endif
        }
        pkt.emit(hdr.pass);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
#if INA_IPV4_OPTIONS
        pkt.emit(hdr.ipv4_opts);
#endif
        pkt.emit(hdr.udp);
        pkt.emit(hdr.ina);
#if INA_LEAD_LANES > 0
        pkt.emit(hdr.lead);
#endif
    }
}

Pipeline(InaIngressParser(), InaIngress(), InaIngressDeparser(),
         InaEgressParser(), InaEgress(), InaEgressDeparser()) pipe;

Switch(pipe) main;
