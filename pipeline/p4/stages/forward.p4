/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Forwarding around the switch program: the configuration table, the
 * neighbour tables, the job multicast groups, and the egress rewrites. In
 * the software switch this is switchd's code (switchd/src/datapath.cpp:
 * forward_ipv4, forward_l2, multicast); here it is tables that p4gen.py
 * fills from the same configuration, as ina-switchd resolves it
 * (`ina-switchd --check-config FILE`).
 */
#ifndef INA_P4_STAGE_FORWARD
#define INA_P4_STAGE_FORWARD

/* PipelineConfig plus the ports the target needs; one entry, the default
 * action, written by the control plane. */
control switch_config(inout ina_headers_t hdr, inout ina_meta_t meta) {
    action set_config(bit<32> aggregators, bit<16> elements, bit<16> switch_id,
                      bit<32> gc_timeout, bit<9> cpu_port, bit<16> flood_group) {
        meta.cfg.aggregators = aggregators;
        meta.cfg.elements = elements;
        meta.cfg.switch_id = switch_id;
        meta.cfg.gc_timeout = gc_timeout;
        meta.cpu_port = cpu_port;
        meta.flood_group = flood_group;
    }
    table ina_config {
        actions = { set_config; }
        /* Until the control plane speaks: no aggregator, GOAT id 1. */
        default_action = set_config(0, 62, 1, 0, 0, 0);
        size = 1;
    }
    apply {
        ina_config.apply();
    }
}

control forward(inout ina_headers_t hdr, inout ina_meta_t meta) {
    action to_neighbour(bit<9> port, bit<48> mac) {
        meta.fwd_port = port;
        hdr.ethernet.dst = mac;
    }
    action to_port(bit<9> port) {
        meta.fwd_port = port;
    }
    action to_group(bit<16> group) {
        meta.fwd_group = group;
    }
    action flood() {
        meta.fwd_group = meta.flood_group;
    }
    action no_route() {
        meta.fwd_drop = 1;
    }
    action ipv4_miss() {
    }

    /* Neighbour by IPv4 address: port and MAC (ForwardingTable::by_ip). */
    table ipv4_route {
        key = { hdr.ipv4.dst : exact; }
        actions = { to_neighbour; ipv4_miss; }
        default_action = ipv4_miss();
        size = 4096;
    }
    /* Port by MAC address (ForwardingTable::by_mac). */
    table l2_forward {
        key = { hdr.ethernet.dst : exact; }
        actions = { to_port; no_route; }
        default_action = no_route();
        size = 4096;
    }
    /* One PRE multicast group per job: the job's parameter packets are
     * replicated in the traffic manager, the payload is never copied by the
     * pipeline. */
    table job_multicast {
        key = { hdr.ina.job_id : exact; }
        actions = { to_group; no_route; }
        default_action = no_route();
        size = 1024;
    }

    apply {
        meta.fwd_drop = 0;
        meta.fwd_group = 0;
        if (meta.verdict == VERDICT_DROP) {
            meta.fwd_drop = 1;
        } else if (meta.verdict == VERDICT_MULTICAST) {
            job_multicast.apply();
        } else if (meta.verdict == VERDICT_CONTROL) {
            meta.fwd_port = meta.cpu_port;
        } else {
            bool routed = false;
            if (hdr.ipv4.isValid()) {
                if (hdr.ipv4.dst[31:28] == 0xE || hdr.ipv4.dst == 0xFFFFFFFF) {
                    flood();
                    routed = true;
                } else if (ipv4_route.apply().hit) {
                    routed = true;
                }
            }
            if (!routed) {
                if (hdr.ethernet.dst[40:40] == 1) {
                    flood();
                } else {
                    l2_forward.apply();
                }
            }
        }
    }
}

/* Egress: copies of a flood never go back out of their ingress port; a
 * parameter packet's copy toward a port with one worker gets that worker's
 * addresses (switchd McastTarget); INA packets leaving through a queue above
 * the port's threshold get ECN (the egress queue depth exists only in the
 * egress pipeline, so the mark is applied to the packet leaving, and the
 * next aggregation point keeps it, as ATP does). */
control egress_ina(inout ina_headers_t hdr, inout ina_meta_t meta,
                   in bit<9> egress_port, in bit<16> rid, in bit<32> qdepth,
                   out bit<1> drop) {
    /* Whether the address changed is tested after the table: an action
     * cannot compare a header field with its data on Tofino. */
    action rewrite(bit<48> mac, bit<32> ip) {
        hdr.ethernet.dst = mac;
        hdr.ipv4.dst = ip;
    }
    action group_mac(bit<48> mac) {
        hdr.ethernet.dst = mac;
    }
    action keep() {
    }
    table mcast_rewrite {
        key = {
            rid : exact;
            egress_port : exact;
        }
        actions = { rewrite; group_mac; keep; }
        default_action = keep();
        size = 4096;
    }

    bit<32> threshold = 0;
    action set_threshold(bit<32> depth) {
        threshold = depth;
    }
    table ecn_threshold {
        key = { egress_port : exact; }
        actions = { set_threshold; }
        default_action = set_threshold(0);
        size = 64;
    }

    /* qdepth >= threshold by subtraction, in a table's action so that the
     * difference stays a field (a Tofino gateway compares with constants
     * only); both are below 2^31 (a 19-bit queue depth, a threshold of the
     * same range). */
    bit<32> depth_left = 0;
    action depth_minus_threshold() {
        depth_left = qdepth - threshold;
    }
    table depth_compare {
        actions = { depth_minus_threshold; }
        const default_action = depth_minus_threshold();
        size = 1;
    }

    apply {
        drop = 0;
        meta.ip_changed = 0;
        if (rid != 0 && egress_port == meta.in_port && rid == meta.flood_group) {
            drop = 1;
        } else {
            if (rid != 0 && hdr.ina.isValid()) {
                bit<32> dst_before = hdr.ipv4.dst;
                mcast_rewrite.apply();
                if (hdr.ipv4.dst != dst_before) {
                    meta.ip_changed = 1;
                }
            }
            ecn_threshold.apply();
            /* As switchd (config/README.md, ecn_threshold): INA packets get
             * the INA ECN flag and IP CE, other ECN-capable IPv4 packets CE. */
            depth_compare.apply();
            if (threshold != 0 && depth_left[31:31] == 0 && hdr.ipv4.isValid()) {
                if (hdr.ina.isValid() && hdr.ina.type == INA_TYPE_DATA) {
                    hdr.ina.flags = hdr.ina.flags | INA_F_ECN;
                    hdr.ipv4.tos[1:0] = 3;
                    meta.ip_changed = 1;
                } else if (hdr.ipv4.tos[1:0] != 0) {
                    hdr.ipv4.tos[1:0] = 3;
                    meta.ip_changed = 1;
                }
            }
        }
    }
}

#endif
