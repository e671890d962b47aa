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
 * Two passes for 2 * INA_LANES elements (ATP Appendix C): the first pass
 * runs every control register and lanes 0..INA_LANES-1; a packet that is
 * dropped after aggregation is resubmitted (ingress only: no port
 * bandwidth, the parser skips the first INA_LANES elements), one that
 * leaves is recirculated through a recirculation port (its first half of results is already in the frame, a
 * resubmit would bring back the original bytes).
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
#include "stages/aggregator_id.p4"
#include "stages/aggregator_bitmap.p4"
#include "stages/aggregator_count.p4"
#include "stages/aggregator_value.p4"
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

parser InaIngressParser(packet_in pkt, out ina_headers_t hdr, out ina_meta_t meta,
                        out ingress_intrinsic_metadata_t ig_intr_md) {
    ParserCounter() elems_left;

    state start {
        meta = {
            cfg = {0, 0, 0, 0}, now = 0, ts_now = 0, frame_len = 0, parse_short = 0,
            second = 0, skip_pipeline = 0, adm_reason = 0, share = 0, at_share = 0,
            holder = 0, is_ina = 0, bitmap = 0,
            fan_in = 0, allowed = 0, key = 0,
            row = 0, value_row = 0, row_mask = 0, count_lanes_left = 0, row_lanes_left = 0, cls = 0, id_hit = 0,
            old_bitmap = 0, merged = 0, count = 0, complete = 0, fresh = 0,
            value_op = 0, flags_op = 0, flags_in = 0, flags_out = 0, clipped = 0,
            need_second = 0, write_bitmaps = 0, advance = 0, carry_flags = 0,
            set_flags = 0, fwd_port = 0, fwd_group = 0, fwd_drop = 0, cpu_port = 0,
            flood_group = 0, in_port = 0, ip_changed = 0, verdict = 0, reason = 0,
            side = 0, recirculate = 0
        };
        pkt.extract(ig_intr_md);
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
        meta.value_op = hdr.pass.value_op;
        meta.flags_op = hdr.pass.flags_op;
        meta.clipped = hdr.pass.clipped;
        meta.verdict = hdr.pass.verdict;
        meta.reason = hdr.pass.reason;
        meta.flags_in = hdr.pass.flags_in;
        meta.side = hdr.pass.side;
        meta.carry_flags = hdr.pass.carry;
        hdr.pass.setInvalid();
        transition parse_ethernet;
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
        meta.value_op = hdr.pass.value_op;
        meta.flags_op = hdr.pass.flags_op;
        meta.clipped = hdr.pass.clipped;
        meta.verdict = hdr.pass.verdict;
        meta.reason = hdr.pass.reason;
        meta.flags_in = hdr.pass.flags_in;
        meta.side = hdr.pass.side;
        meta.carry_flags = hdr.pass.carry;
        hdr.pass.setInvalid();
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.version, hdr.ipv4.frag_offset, hdr.ipv4.proto) {
            (4, 0, IP_PROTO_UDP): parse_ipv4_options;
            default: accept;
        }
    }
    /* One state per option word: Tofino's parser has no variable-length
     * extract. */
    state parse_ipv4_options {
        transition select(hdr.ipv4.ihl) {
            5: parse_udp;
            6 .. 15: opt0;
            default: accept;
        }
    }
    /* Option word i in state opt<i>, a fixed stack index per state: the
     * Tofino parser cannot follow `.next` through states entered at
     * different depths. */
    state opt0 { pkt.extract(hdr.ipv4_opts[0]); transition select(hdr.ipv4.ihl) { 6: parse_udp; default: opt1; } }
    state opt1 { pkt.extract(hdr.ipv4_opts[1]); transition select(hdr.ipv4.ihl) { 7: parse_udp; default: opt2; } }
    state opt2 { pkt.extract(hdr.ipv4_opts[2]); transition select(hdr.ipv4.ihl) { 8: parse_udp; default: opt3; } }
    state opt3 { pkt.extract(hdr.ipv4_opts[3]); transition select(hdr.ipv4.ihl) { 9: parse_udp; default: opt4; } }
    state opt4 { pkt.extract(hdr.ipv4_opts[4]); transition select(hdr.ipv4.ihl) { 10: parse_udp; default: opt5; } }
    state opt5 { pkt.extract(hdr.ipv4_opts[5]); transition select(hdr.ipv4.ihl) { 11: parse_udp; default: opt6; } }
    state opt6 { pkt.extract(hdr.ipv4_opts[6]); transition select(hdr.ipv4.ihl) { 12: parse_udp; default: opt7; } }
    state opt7 { pkt.extract(hdr.ipv4_opts[7]); transition select(hdr.ipv4.ihl) { 13: parse_udp; default: opt8; } }
    state opt8 { pkt.extract(hdr.ipv4_opts[8]); transition select(hdr.ipv4.ihl) { 14: parse_udp; default: opt9; } }
    state opt9 { pkt.extract(hdr.ipv4_opts[9]); transition parse_udp; }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            INA_UDP_PORT: parse_ina;
            default: accept;
        }
    }
    state parse_ina {
        meta.is_ina = 1;
        pkt.extract(hdr.ina);
        /* The parser counter loads from a whole header field (a slice is
         * not supported), masked to its low byte: Tofino 1 takes the mask
         * as a width (7: 2^8 - 1), Tofino 2 as the mask itself. */
#if __TARGET_TOFINO__ == 2
        elems_left.set(hdr.ina.elem_count, 8w255, 8w0, 8w255, 8w0);
#else
        elems_left.set(hdr.ina.elem_count, 8w255, 8w0, 3w7, 8w0);
#endif
        /* The pass is told by the intrinsic metadata, as in start and
         * port_metadata: Tofino's parser selects on packet data only, not
         * on meta.second (a constant set in restore_pass). */
        transition select(hdr.ina.version, hdr.ina.type, ig_intr_md.resubmit_flag,
                          ig_intr_md.ingress_port) {
            (INA_VERSION, INA_TYPE_DATA, 1, _): head;
            (INA_VERSION, INA_TYPE_DATA, 0, INA_RECIRC_PORT): head;
            (INA_VERSION, INA_TYPE_DATA, 0, _): first_elems;
            default: accept;
        }
    }
    /* First pass: elements 0..INA_LANES-1. More than INA_LANES extracts into
     * the lane stack would overflow it, so a full pass is one fixed extract
     * sequence. */
    state first_elems {
        transition select(hdr.ina.elem_count) {
            0 .. (INA_LANES - 1): elems;
            default: elems_full;
        }
    }
    state elems_full {
        pkt.extract(hdr.elems[0]);
#if INA_LANES > 1
        pkt.extract(hdr.elems[1]);
#endif
#if INA_LANES > 2
        pkt.extract(hdr.elems[2]);
#endif
#if INA_LANES > 3
        pkt.extract(hdr.elems[3]);
#endif
#if INA_LANES > 4
        pkt.extract(hdr.elems[4]);
#endif
#if INA_LANES > 5
        pkt.extract(hdr.elems[5]);
#endif
#if INA_LANES > 6
        pkt.extract(hdr.elems[6]);
#endif
#if INA_LANES > 7
        pkt.extract(hdr.elems[7]);
#endif
#if INA_LANES > 8
        pkt.extract(hdr.elems[8]);
#endif
#if INA_LANES > 9
        pkt.extract(hdr.elems[9]);
#endif
#if INA_LANES > 10
        pkt.extract(hdr.elems[10]);
#endif
#if INA_LANES > 11
        pkt.extract(hdr.elems[11]);
#endif
#if INA_LANES > 12
        pkt.extract(hdr.elems[12]);
#endif
#if INA_LANES > 13
        pkt.extract(hdr.elems[13]);
#endif
#if INA_LANES > 14
        pkt.extract(hdr.elems[14]);
#endif
#if INA_LANES > 15
        pkt.extract(hdr.elems[15]);
#endif
#if INA_LANES > 16
        pkt.extract(hdr.elems[16]);
#endif
#if INA_LANES > 17
        pkt.extract(hdr.elems[17]);
#endif
#if INA_LANES > 18
        pkt.extract(hdr.elems[18]);
#endif
#if INA_LANES > 19
        pkt.extract(hdr.elems[19]);
#endif
#if INA_LANES > 20
        pkt.extract(hdr.elems[20]);
#endif
#if INA_LANES > 21
        pkt.extract(hdr.elems[21]);
#endif
#if INA_LANES > 22
        pkt.extract(hdr.elems[22]);
#endif
#if INA_LANES > 23
        pkt.extract(hdr.elems[23]);
#endif
#if INA_LANES > 24
        pkt.extract(hdr.elems[24]);
#endif
#if INA_LANES > 25
        pkt.extract(hdr.elems[25]);
#endif
#if INA_LANES > 26
        pkt.extract(hdr.elems[26]);
#endif
#if INA_LANES > 27
        pkt.extract(hdr.elems[27]);
#endif
#if INA_LANES > 28
        pkt.extract(hdr.elems[28]);
#endif
#if INA_LANES > 29
        pkt.extract(hdr.elems[29]);
#endif
#if INA_LANES > 30
        pkt.extract(hdr.elems[30]);
#endif
        transition accept;
    }
    state elems {
        transition select(elems_left.is_zero()) {
            true: accept;
            false: elem_one;
        }
    }
    state elem_one {
        pkt.extract(hdr.elems.next);
        elems_left.decrement(1);
        transition elems;
    }
    /* Second pass: the first INA_LANES elements (or fewer: a claim zeroing
     * the row's second half) were done in the first pass. */
    state head {
        transition select(hdr.ina.elem_count) {
            0 .. (INA_LANES - 1): head_loop;
            default: head_full;
        }
    }
    state head_loop {
        transition select(elems_left.is_zero()) {
            true: accept;
            false: head_one;
        }
    }
    state head_one {
        pkt.extract(hdr.head.next);
        elems_left.decrement(1);
        transition head_loop;
    }
    state head_full {
        pkt.extract(hdr.head[0]);
#if INA_LANES > 1
        pkt.extract(hdr.head[1]);
#endif
#if INA_LANES > 2
        pkt.extract(hdr.head[2]);
#endif
#if INA_LANES > 3
        pkt.extract(hdr.head[3]);
#endif
#if INA_LANES > 4
        pkt.extract(hdr.head[4]);
#endif
#if INA_LANES > 5
        pkt.extract(hdr.head[5]);
#endif
#if INA_LANES > 6
        pkt.extract(hdr.head[6]);
#endif
#if INA_LANES > 7
        pkt.extract(hdr.head[7]);
#endif
#if INA_LANES > 8
        pkt.extract(hdr.head[8]);
#endif
#if INA_LANES > 9
        pkt.extract(hdr.head[9]);
#endif
#if INA_LANES > 10
        pkt.extract(hdr.head[10]);
#endif
#if INA_LANES > 11
        pkt.extract(hdr.head[11]);
#endif
#if INA_LANES > 12
        pkt.extract(hdr.head[12]);
#endif
#if INA_LANES > 13
        pkt.extract(hdr.head[13]);
#endif
#if INA_LANES > 14
        pkt.extract(hdr.head[14]);
#endif
#if INA_LANES > 15
        pkt.extract(hdr.head[15]);
#endif
#if INA_LANES > 16
        pkt.extract(hdr.head[16]);
#endif
#if INA_LANES > 17
        pkt.extract(hdr.head[17]);
#endif
#if INA_LANES > 18
        pkt.extract(hdr.head[18]);
#endif
#if INA_LANES > 19
        pkt.extract(hdr.head[19]);
#endif
#if INA_LANES > 20
        pkt.extract(hdr.head[20]);
#endif
#if INA_LANES > 21
        pkt.extract(hdr.head[21]);
#endif
#if INA_LANES > 22
        pkt.extract(hdr.head[22]);
#endif
#if INA_LANES > 23
        pkt.extract(hdr.head[23]);
#endif
#if INA_LANES > 24
        pkt.extract(hdr.head[24]);
#endif
#if INA_LANES > 25
        pkt.extract(hdr.head[25]);
#endif
#if INA_LANES > 26
        pkt.extract(hdr.head[26]);
#endif
#if INA_LANES > 27
        pkt.extract(hdr.head[27]);
#endif
#if INA_LANES > 28
        pkt.extract(hdr.head[28]);
#endif
#if INA_LANES > 29
        pkt.extract(hdr.head[29]);
#endif
#if INA_LANES > 30
        pkt.extract(hdr.head[30]);
#endif
        elems_left.decrement(INA_LANES);
        transition elems;
    }
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
    aggregator_id() aggregator_id_0;
    aggregator_bitmap() aggregator_bitmap_0;
    aggregator_count() aggregator_count_0;
    value_rows() value_rows_0;
    aggregator_value() aggregator_value_0;
    aggregator_flags() aggregator_flags_0;
    deparse() deparse_0;
    counters() counters_0;
    forward() forward_0;

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
        /* No frame length in ingress on Tofino: the parser's own error
         * flags a frame cut short. */
        meta.frame_len = 0;
        if (ig_prsr_md.parser_err != 0) {
            meta.parse_short = 1;
        }
        meta.in_port = ig_intr_md.ingress_port;

        switch_config_0.apply(hdr, meta);
        value_rows_0.apply(hdr, meta);
        if (meta.second == 0) {
            admission_0.apply(hdr, meta);
            if (meta.skip_pipeline == 0) {
                parse_0.apply(hdr, meta);
                filter_0.apply(hdr, meta);
                aggregator_id_0.apply(hdr, meta);
                aggregator_bitmap_0.apply(hdr, meta);
                aggregator_count_0.apply(hdr, meta);
            }
        }
        aggregator_value_0.apply(hdr, meta);
        if (meta.second == 1 || meta.need_second == 0) {
            aggregator_flags_0.apply(hdr, meta);
        }
        if (meta.skip_pipeline == 0) {
            /* A packet admission forwards unregistered leaves untouched. */
            deparse_0.apply(hdr, meta);
        }

        hdr.bridge.setValid();
        hdr.bridge.recirculate = 0;
        hdr.bridge.pad0 = 0;
        hdr.bridge.in_port = meta.in_port;
        hdr.bridge.flood_group = meta.flood_group;
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
        } else {
            counters_0.apply(hdr, meta);
            forward_0.apply(hdr, meta);
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
        pkt.emit(hdr.ipv4_opts);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.ina);
        pkt.emit(hdr.head);
        pkt.emit(hdr.elems);
    }
}

/* Egress parses up to the INA header (ECN mark, multicast rewrite); the
 * payload passes through unparsed. */
parser InaEgressParser(packet_in pkt, out ina_headers_t hdr, out ina_meta_t meta,
                       out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        meta = {
            cfg = {0, 0, 0, 0}, now = 0, ts_now = 0, frame_len = 0, parse_short = 0,
            second = 0, skip_pipeline = 0, adm_reason = 0, share = 0, at_share = 0,
            holder = 0, is_ina = 0, bitmap = 0,
            fan_in = 0, allowed = 0, key = 0,
            row = 0, value_row = 0, row_mask = 0, count_lanes_left = 0, row_lanes_left = 0, cls = 0, id_hit = 0,
            old_bitmap = 0, merged = 0, count = 0, complete = 0, fresh = 0,
            value_op = 0, flags_op = 0, flags_in = 0, flags_out = 0, clipped = 0,
            need_second = 0, write_bitmaps = 0, advance = 0, carry_flags = 0,
            set_flags = 0, fwd_port = 0, fwd_group = 0, fwd_drop = 0, cpu_port = 0,
            flood_group = 0, in_port = 0, ip_changed = 0, verdict = 0, reason = 0,
            side = 0, recirculate = 0
        };
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.bridge);
        meta.in_port = hdr.bridge.in_port;
        meta.flood_group = hdr.bridge.flood_group;
        meta.recirculate = hdr.bridge.recirculate;
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
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
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
            6 .. 15: opt0;
            default: accept;
        }
    }
    /* Option word i in state opt<i>, a fixed stack index per state: the
     * Tofino parser cannot follow `.next` through states entered at
     * different depths. */
    state opt0 { pkt.extract(hdr.ipv4_opts[0]); transition select(hdr.ipv4.ihl) { 6: parse_udp; default: opt1; } }
    state opt1 { pkt.extract(hdr.ipv4_opts[1]); transition select(hdr.ipv4.ihl) { 7: parse_udp; default: opt2; } }
    state opt2 { pkt.extract(hdr.ipv4_opts[2]); transition select(hdr.ipv4.ihl) { 8: parse_udp; default: opt3; } }
    state opt3 { pkt.extract(hdr.ipv4_opts[3]); transition select(hdr.ipv4.ihl) { 9: parse_udp; default: opt4; } }
    state opt4 { pkt.extract(hdr.ipv4_opts[4]); transition select(hdr.ipv4.ihl) { 10: parse_udp; default: opt5; } }
    state opt5 { pkt.extract(hdr.ipv4_opts[5]); transition select(hdr.ipv4.ihl) { 11: parse_udp; default: opt6; } }
    state opt6 { pkt.extract(hdr.ipv4_opts[6]); transition select(hdr.ipv4.ihl) { 12: parse_udp; default: opt7; } }
    state opt7 { pkt.extract(hdr.ipv4_opts[7]); transition select(hdr.ipv4.ihl) { 13: parse_udp; default: opt8; } }
    state opt8 { pkt.extract(hdr.ipv4_opts[8]); transition select(hdr.ipv4.ihl) { 14: parse_udp; default: opt9; } }
    state opt9 { pkt.extract(hdr.ipv4_opts[9]); transition parse_udp; }
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

    apply {
        hdr.bridge.setInvalid();
        if (meta.recirculate == 0) {
            bit<1> drop;
            egress_ina_0.apply(hdr, meta, eg_intr_md.egress_port, eg_intr_md.egress_rid,
                               (bit<32>)eg_intr_md.enq_qdepth, drop);
            if (drop == 1) {
                eg_dprsr_md.drop_ctl = 1;
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
                hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst,
                /* absent option words read as 0 and add nothing */
                hdr.ipv4_opts[0].word, hdr.ipv4_opts[1].word, hdr.ipv4_opts[2].word, hdr.ipv4_opts[3].word,
                hdr.ipv4_opts[4].word, hdr.ipv4_opts[5].word, hdr.ipv4_opts[6].word,
                hdr.ipv4_opts[7].word, hdr.ipv4_opts[8].word, hdr.ipv4_opts[9].word });
        }
        pkt.emit(hdr.pass);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv4_opts);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.ina);
    }
}

Pipeline(InaIngressParser(), InaIngress(), InaIngressDeparser(),
         InaEgressParser(), InaEgress(), InaEgressDeparser()) pipe;

Switch(pipe) main;
