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
 * the late lanes (Tofino 1's default, stages/aggregator_value_late.p4),
 * elements 2 * INA_LANES.., in the stages the control registers hold in the
 * first: 2 * 15 + 18 = 48 elements on Tofino 1.
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
#define INA_HEADER_STATES(SFX, AFTER_INA, THIRD_ENTRY) \
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
            THIRD_ENTRY \
            default: accept; \
        } \
    }

/* Element I of each chain (first pass e<I> into elems, second pass h<I>
 * into head and f<I> into elems), each state selecting on the count: the
 * packet's last element ends the chain. J is I + 1. */
#define INA_ELEMENT_STATES(I, J) \
    state e##I { \
        pkt.extract(hdr.elems[I]); \
        transition select(hdr.ina.elem_count) { J: accept; default: e##J; } \
    } \
    state h##I { \
        pkt.extract(hdr.head[I]); \
        transition select(hdr.ina.elem_count) { J: accept; default: h##J; } \
    } \
    state f##I { \
        pkt.extract(hdr.elems[I]); \
        transition select(hdr.ina.elem_count) { INA_LANES_16 + J: accept; default: f##J; } \
    } \
    INA_THIRD_ELEMENT(I, J)
/* The third pass's elements (INA_THIRD_PASS): g<I> into elems, element
 * INA_TWO_PASS_ELEMENTS + I, after the first two passes' elements went into
 * `passed` in one state (a packet in its third pass has them all, unless
 * it is a claim that only zeroes the row's third part: count_third). */
#if INA_THIRD_PASS
#define INA_THIRD_ELEMENT(I, J) \
    state g##I { \
        pkt.extract(hdr.elems[I]); \
        transition select(hdr.ina.elem_count) { INA_TWO_PASS_ELEMENTS_16 + J: accept; default: g##J; } \
    }
#define INA_THIRD_ELEMENT_END(I) \
    state g##I { transition accept; }
#else
#define INA_THIRD_ELEMENT(I, J)
#define INA_THIRD_ELEMENT_END(I)
#endif
/* Past the pass's lanes: the first pass stops, the second goes on from its
 * first element to extract, and past its lanes to the late lanes' elements. */
#if INA_LATE_LANES > 0
#define INA_SECOND_PASS_LANES_END l0
#else
#define INA_SECOND_PASS_LANES_END accept
#endif
#define INA_ELEMENT_ENDS(I) \
    state e##I { transition accept; } \
    state h##I { transition f0; } \
    state f##I { transition INA_SECOND_PASS_LANES_END; } \
    INA_THIRD_ELEMENT_END(I)
/* The late lanes' element I (second pass only, l<I> into late), the count
 * ending the chain as above; past the last one, the rest stays payload
 * and the packet has elements for a third pass (past_two). */
#define INA_LATE_STATES(I, J) \
    state l##I { \
        pkt.extract(hdr.late[I]); \
        transition select(hdr.ina.elem_count) { 2 * INA_LANES + J: accept; default: l##J; } \
    }
#define INA_LATE_END(I) \
    state l##I { \
        meta.past_two = 1; \
        transition accept; \
    }

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
#if !INA_THIRD_PASS
        meta.row_offset = INA_AGGREGATORS;
#endif
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
#if !INA_THIRD_PASS
        meta.row_offset = INA_AGGREGATORS;
#endif
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
    /* A recirculated frame whose INA type is INA_TYPE_THIRD is in its third
     * pass (the second marked it: INA_THIRD_PASS); from the wire that type
     * is malformed_type, as any other (filter.p4). */
    INA_HEADER_STATES(, count_first, )
#if INA_THIRD_PASS
    INA_HEADER_STATES(_2, count_head, (INA_VERSION, INA_TYPE_THIRD): count_third;)
#else
    INA_HEADER_STATES(_2, count_head, )
#endif
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
            default: e0;
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
#if INA_THIRD_PASS
        /* here, not where the pass state is restored: count_third sets
         * the third pass's */
        meta.row_offset = INA_AGGREGATORS;
#endif
        transition select(hdr.ina.elem_count) {
            0: accept;
            default: h0;
        }
    }
#if INA_THIRD_PASS
    /* The third pass: the first two passes' elements go into `passed` (a
     * packet that adds or reads has them all and more), then g<i>. A claim
     * whose elements end within the first two passes has none here: its
     * lanes zero the row's third part (their range on `elements`). */
    state count_third {
        meta.third = 1;
        meta.row_offset = 2 * INA_AGGREGATORS;
        transition select(hdr.ina.elem_count) {
            0 .. INA_TWO_PASS_ELEMENTS: accept;
            default: passed_elements;
        }
    }
    state passed_elements {
#include "include/passed_elements.p4"
        transition g0;
    }
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
        if (INA_LAST_PASS) {
            aggregator_flags_0.apply(hdr, meta);
        }
        if (meta.skip_pipeline == 0) {
            /* A packet admission forwards unregistered leaves untouched. */
            deparse_0.apply(hdr, meta);
        }
#if INA_THIRD_PASS
        if (meta.third == 1) {
            /* the second pass's mark (count_third) */
            hdr.ina.type = INA_TYPE_DATA;
        }
#endif

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
#if INA_THIRD_PASS
        else if (meta.need_third == 1) {
            /* The third pass: recirculated whatever the verdict (Tofino 1
             * resubmits a packet once), with the pass state of the first
             * and what the second added to it (clipped, flags_in). The
             * fair share's job_full change was made by the second pass and
             * is not carried (another packet may have changed it since). */
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
            hdr.pass.side = meta.side & ~(SIDE_FULL_SET | SIDE_FULL_CLEAR);
            /* The mark the parser tells the third pass by; its deparse
             * restores the type. */
            hdr.ina.type = INA_TYPE_THIRD;
            hdr.bridge.recirculate = 1;
            ig_tm_md.ucast_egress_port = INA_RECIRC_PORT;
            ig_tm_md.bypass_egress = 0;
        }
#endif
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
#ifndef INA_PAIR_LANES
        pkt.emit(hdr.head);
#endif
#if INA_THIRD_PASS
        /* the third pass: head, passed, then elems; the second: head, elems, late */
        pkt.emit(hdr.passed);
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 32
        pkt.emit(hdr.passed_hi);
#endif
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

/* Egress parses up to the INA header (ECN mark, multicast rewrite); the
 * payload passes through unparsed. */
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
        transition select(hdr.bridge.recirculate) {
            1: parse_pass;
            default: parse_ethernet;
        }
    }
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
    }
}

Pipeline(InaIngressParser(), InaIngress(), InaIngressDeparser(),
         InaEgressParser(), InaEgress(), InaEgressDeparser()) pipe;

Switch(pipe) main;
