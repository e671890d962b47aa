/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The INA switch program for v1model (BMv2 simple_switch). The stages are
 * the shared controls in stages/; this file only binds them to v1model's
 * parser, intrinsic metadata, resubmit/recirculate and packet replication
 * engine. Build: see docs/p4.md.
 *
 *   p4c-bm2-ss --std p4-16 -I pipeline/p4 -o ina_v1model.json \
 *       pipeline/p4/ina_v1model.p4
 */
#include <core.p4>
#include <v1model.p4>

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
/* -DINA_PAIR_LANES: the pair form of the Tofino 2 build, two elements per
 * lane, all of them in one pass (stages/aggregator_value_pair.p4). */
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

/* The port a packet is sent to for its second pass. BMv2 recirculates from
 * any port; 68 is pipe 0's recirculation port on Tofino, kept for symmetry. */
#ifndef INA_RECIRC_PORT
#define INA_RECIRC_PORT 68
#endif

/* BMv2 instance types (simple_switch.cpp PKT_INSTANCE_TYPE_*). */
const bit<32> INSTANCE_RECIRC = 4;
const bit<32> INSTANCE_RESUBMIT = 6;

parser InaParser(packet_in pkt, out ina_headers_t hdr, inout ina_meta_t meta,
                 inout standard_metadata_t sm) {
    bit<16> remaining = 0;
    bit<8> taken = 0;

    state start {
        transition select(sm.instance_type) {
            INSTANCE_RECIRC: recirculated;
            INSTANCE_RESUBMIT: second_pass;
            default: parse_ethernet;
        }
    }
    state recirculated {
#if INA_LEAD_LANES > 0
        meta.recirculated = 1;
#endif
        transition second_pass;
    }
    state second_pass {
        meta.second = 1;
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
    /* One state per option word: no variable-length extract on Tofino, and
     * the same shape here. */
    state parse_ipv4_options {
        transition select(hdr.ipv4.ihl) {
            5: parse_udp;
            6: opt1;  7: opt2;  8: opt3;  9: opt4; 10: opt5;
           11: opt6; 12: opt7; 13: opt8; 14: opt9; 15: opt10;
            default: accept;
        }
    }
    state opt10 { pkt.extract(hdr.ipv4_opts.next); transition opt9; }
    state opt9 { pkt.extract(hdr.ipv4_opts.next); transition opt8; }
    state opt8 { pkt.extract(hdr.ipv4_opts.next); transition opt7; }
    state opt7 { pkt.extract(hdr.ipv4_opts.next); transition opt6; }
    state opt6 { pkt.extract(hdr.ipv4_opts.next); transition opt5; }
    state opt5 { pkt.extract(hdr.ipv4_opts.next); transition opt4; }
    state opt4 { pkt.extract(hdr.ipv4_opts.next); transition opt3; }
    state opt3 { pkt.extract(hdr.ipv4_opts.next); transition opt2; }
    state opt2 { pkt.extract(hdr.ipv4_opts.next); transition opt1; }
    state opt1 { pkt.extract(hdr.ipv4_opts.next); transition parse_udp; }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            INA_UDP_PORT: parse_ina;
            default: accept;
        }
    }
    state parse_ina {
        /* Set before the extract: a frame cut inside the INA header is
         * INA traffic that is too short, not other traffic. */
        meta.is_ina = 1;
        pkt.extract(hdr.ina);
        remaining = hdr.ina.elem_count;
        transition select(hdr.ina.version, hdr.ina.type, meta.second) {
#if INA_LEAD_LANES > 0
            (INA_VERSION, INA_TYPE_DATA, 0): aside;
            (INA_VERSION, INA_TYPE_DATA, 1): lead;
#else
            (INA_VERSION, INA_TYPE_DATA, 0): elems;
#ifndef INA_PAIR_LANES
            (INA_VERSION, INA_TYPE_DATA, 1): head;
#endif
#endif
            default: accept;
        }
    }
#ifdef INA_PAIR_LANES
    /* The pair form: every element in the first pass, 0..31 into elems
     * and the rest into elems_hi (as Tofino 2's states,
     * include/pair_elements.p4); its second pass carries none. */
    state elems {
        transition select(remaining, taken) {
            (0, _): accept;
            (_, 32): elems_hi;
            (_, INA_PASS_ELEMENTS): accept;
            default: elem_one;
        }
    }
    state elem_one {
        pkt.extract(hdr.elems.next);
        taken = taken + 1;
        remaining = remaining - 1;
        transition elems;
    }
#if INA_LANES > 16
    state elems_hi {
        transition select(remaining, taken) {
            (0, _): accept;
            (_, INA_PASS_ELEMENTS): accept;
            default: elem_hi_one;
        }
    }
    state elem_hi_one {
        pkt.extract(hdr.elems_hi.next);
        taken = taken + 1;
        remaining = remaining - 1;
        transition elems_hi;
    }
#else
    state elems_hi {
        transition accept;
    }
#endif
#else
#if INA_LEAD_LANES > 0
    /* The lead lanes (as ina_tna.p4): the first pass sets elements
     * 0..INA_LEAD_LANES-1 aside and aggregates the next INA_LEAD_LANES in
     * lead; the second aggregates 0..INA_LEAD_LANES-1 in lead, then sets
     * the first pass's elements aside in head. */
    state aside {
        transition select(remaining, taken) {
            (0, _): accept;
            (_, INA_LEAD_LANES): aside_done;
            default: aside_one;
        }
    }
    state aside_one {
        pkt.extract(hdr.aside.next);
        taken = taken + 1;
        remaining = remaining - 1;
        transition aside;
    }
    state aside_done {
        taken = 0;
        transition lead;
    }
    state lead {
        transition select(remaining, taken) {
            (0, _): accept;
            (_, INA_LEAD_LANES): lead_done;
            default: lead_one;
        }
    }
    state lead_one {
        pkt.extract(hdr.lead.next);
        taken = taken + 1;
        remaining = remaining - 1;
        transition lead;
    }
    state lead_done {
        taken = 0;
        transition select(meta.second) {
            0: elems;
            default: head;
        }
    }
#endif
    /* Second pass: the first pass's elements (or fewer: a claim zeroing
     * the row's second half) are set aside. */
    state head {
        transition select(taken, remaining) {
            (INA_HEAD_ELEMENTS, _): head_done;
            (_, 0): accept;
            default: head_one;
        }
    }
#if INA_LEAD_LANES > 0
    /* The first pass's lead elements are tested for a limit as they are
     * set aside (as ina_tna.p4's parser does). */
    state head_one {
        transition select(taken) {
            0 .. INA_LEAD_LANES - 1: head_lead;
            default: head_take;
        }
    }
    state head_lead {
        transition select(pkt.lookahead<bit<32>>()) {
            0x7fffffff: head_limit;
            0x80000000: head_limit;
            default: head_take;
        }
    }
    state head_limit {
        meta.lead_limit = 1;
        transition head_take;
    }
    state head_take {
#else
    state head_one {
#endif
        pkt.extract(hdr.head.next);
        taken = taken + 1;
        remaining = remaining - 1;
        transition head;
    }
    state head_done {
        taken = 0;
        transition elems;
    }
    /* At most INA_LANES elements per pass, then in the second pass the late
     * lanes' (-DINA_LATE_LANES); the rest stays payload. */
    state elems {
        transition select(remaining, taken, meta.second) {
            (0, _, _): accept;
#if INA_LATE_LANES > 0
            (_, INA_LANES, 1): late_first;
#endif
            (_, INA_LANES, _): accept;
            default: elem_one;
        }
    }
    state elem_one {
        pkt.extract(hdr.elems.next);
        taken = taken + 1;
        remaining = remaining - 1;
        transition elems;
    }
#if INA_LATE_LANES > 0
    state late_first {
        taken = 0;
        transition late;
    }
    state late {
        transition select(remaining, taken) {
            (0, _): accept;
            (_, INA_LATE_LANES): accept;
            default: late_one;
        }
    }
    state late_one {
        pkt.extract(hdr.late.next);
        taken = taken + 1;
        remaining = remaining - 1;
        transition late;
    }
#endif
#endif /* INA_PAIR_LANES */
}

control InaVerifyChecksum(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* The software switch does not check the IPv4 checksum either. */
    apply { }
}

control InaIngress(inout ina_headers_t hdr, inout ina_meta_t meta,
                   inout standard_metadata_t sm) {
    switch_config() switch_config_0;
    admission() admission_0;
    parse() parse_0;
    filter() filter_0;
    share_check() share_check_0;
    aggregator_id() aggregator_id_0;
    share_count() share_count_0;
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
    result_flags() result_flags_0;
    counters() counters_0;
    forward() forward_0;
    forward_decision() forward_decision_0;

    apply {
        /* Target inputs of the shared stages. The clock is BMv2's
         * microsecond timestamp in units of 64 us (bits 37:6), close to
         * Tofino's 65.536 us; 32 bits last 76 hours. gc_timeout is
         * configured in the same unit (p4gen.py converts). */
        meta.now = sm.ingress_global_timestamp[37:6];
        meta.ts_now = ~meta.now;
        meta.frame_len = sm.packet_length;
        meta.parse_short = 0;
        if (sm.parser_error == error.PacketTooShort) {
            meta.parse_short = 1;
        }
        meta.in_port = sm.ingress_port;

        /* The lanes of the second pass run the value action the first
         * carried (Tofino's parser restores it from the pass header). */
        meta.pass_value_op = meta.value_op;
        meta.row_offset = 0;
        if (meta.second == 1) {
            meta.row_offset = INA_AGGREGATORS;
        }
        switch_config_0.apply(hdr, meta);
        value_rows_0.apply(hdr, meta);
        forward_0.apply(hdr, meta);
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
                share_check_0.apply(hdr, meta);
                aggregator_id_0.apply(hdr, meta);
                share_count_0.apply(hdr, meta);
                aggregator_bitmap_0.apply(hdr, meta);
                aggregator_count_0.apply(hdr, meta);
            }
        }
#if INA_LATE_LANES > 0
        else {
            /* The second pass's late lanes (as the TNA build). */
            aggregator_value_late_0.apply(hdr, meta);
#if INA_LEAD_LANES > 0
#endif
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
        if (meta.carry_flags == 1 && INA_LAST_PASS) {
            result_flags_0.apply(hdr, meta);
        }

        /* Where the packet goes, whatever the pass (as the TNA build). */
        forward_decision_0.apply(hdr, meta);
        if (meta.second == 0 && meta.need_second == 1) {
            /* Two passes (ATP Appendix C): a packet that is dropped after
             * aggregation is resubmitted (the original bytes come back);
             * one that leaves is recirculated with its first half of
             * results already written. */
            meta.second = 1;
            if (meta.verdict == VERDICT_DROP) {
                resubmit_preserving_field_list(1);
            } else {
                meta.recirculate = 1;
                sm.egress_spec = INA_RECIRC_PORT;
            }
        }
        else {
            if (meta.fwd_drop == 1) {
                mark_to_drop(sm);
            } else if (meta.fwd_group != 0) {
                sm.mcast_grp = meta.fwd_group;
            } else {
                sm.egress_spec = meta.fwd_port;
            }
        }
    }
}

control InaEgress(inout ina_headers_t hdr, inout ina_meta_t meta,
                  inout standard_metadata_t sm) {
    egress_ina() egress_ina_0;
#if INA_LEAD_LANES > 0
    lead_overflow() lead_overflow_0;
#endif

    apply {
        if (meta.recirculate == 1) {
            recirculate_preserving_field_list(1);
        } else {
            bit<1> drop;
            egress_ina_0.apply(hdr, meta, sm.egress_port, sm.egress_rid,
                               (bit<32>)sm.enq_qdepth, drop);
            if (drop == 1) {
                mark_to_drop(sm);
            }
#if INA_LEAD_LANES > 0
            /* The lead lanes' second-pass overflow test, in egress as on
             * Tofino (aggregator_value_lead.p4). */
            if (meta.carry_flags == 1 && hdr.ina.isValid()) {
                lead_overflow_0.apply(hdr, meta);
            }
#endif
        }
    }
}

control InaComputeChecksum(inout ina_headers_t hdr, inout ina_meta_t meta) {
    apply {
        update_checksum(meta.ip_changed == 1 && hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.total_length,
              hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst,
              /* absent option words read as 0 and add nothing */
              hdr.ipv4_opts[0].word, hdr.ipv4_opts[1].word, hdr.ipv4_opts[2].word, hdr.ipv4_opts[3].word,
              hdr.ipv4_opts[4].word, hdr.ipv4_opts[5].word, hdr.ipv4_opts[6].word,
              hdr.ipv4_opts[7].word, hdr.ipv4_opts[8].word, hdr.ipv4_opts[9].word },
            hdr.ipv4.checksum, HashAlgorithm.csum16);
    }
}

control InaDeparser(packet_out pkt, in ina_headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv4_opts);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.ina);
#if INA_LEAD_LANES > 0
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

V1Switch(InaParser(), InaVerifyChecksum(), InaIngress(), InaEgress(),
         InaComputeChecksum(), InaDeparser()) main;
