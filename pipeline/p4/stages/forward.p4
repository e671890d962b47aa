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
        /* parse's and filter's comparisons with the configuration, here
         * with the action's data so that they are known in the first
         * stage (a Tofino gateway compares a field with a constant only;
         * parse.p4 says why the sign bits are exact): elem_count above
         * `elements`, the index against `aggregators` (at most 65536; an
         * index with a high half set is out of range anyway), GOAT's
         * aggregation node against this switch. The configured value is
         * the first operand: a Tofino subtraction takes its second from
         * the packet, metadata or a constant, not from action data. */
        meta.elems_left = elements - hdr.ina.elem_count;
        meta.index_room = aggregators - hdr.ina.agg_index;
        meta.node_diff = hdr.ina.agg_node ^ switch_id;
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

/* switchd's forwarding lookups, keyed on the packet alone, applied in the
 * pipe's first stages; `forward_decision` picks one once the verdict is
 * known. Written as an if / else-if chain around the lookups, each lookup
 * waited for the verdict and the one before it. */
control forward(inout ina_headers_t hdr, inout ina_meta_t meta) {
    action to_neighbour(bit<9> port, bit<48> mac) {
        meta.route_hit = 1;
        meta.route_port = port;
        meta.route_mac = mac;
    }
    action ipv4_miss() {
    }
    action to_port(bit<9> port) {
        meta.l2_hit = 1;
        meta.l2_port = port;
    }
    action to_group(bit<16> group) {
        meta.group_hit = 1;
        meta.job_group = group;
    }
    action no_route() {
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
        ipv4_route.apply();
        l2_forward.apply();
        job_multicast.apply();
    }
}

/* Where the packet goes, from its verdict and the lookups above. */
control forward_decision(inout ina_headers_t hdr, inout ina_meta_t meta) {
    action drop() { meta.fwd_drop = 1; }
    action to_job_group() { meta.fwd_group = meta.job_group; }
    action to_cpu() { meta.fwd_port = meta.cpu_port; }
    action flood() { meta.fwd_group = meta.flood_group; }
    action routed() {
        meta.fwd_port = meta.route_port;
        hdr.ethernet.dst = meta.route_mac;
    }
    action switched() { meta.fwd_port = meta.l2_port; }
    /* switchd's forwarding, in its order: by verdict; then IPv4 multicast
     * and broadcast flood, a routed IPv4 destination, an Ethernet
     * multicast or broadcast flood, the MAC table; nothing left: drop. */
    table forward_select {
        key = {
            meta.verdict       : ternary;
            meta.group_hit     : ternary;
            hdr.ipv4.isValid() : ternary @name("ipv4_valid");
            hdr.ipv4.dst       : ternary @name("ipv4_dst");
            meta.route_hit     : ternary;
            hdr.ethernet.dst[40:40] : ternary @name("eth_group_bit");
            meta.l2_hit        : ternary;
        }
        actions = { drop; to_job_group; to_cpu; flood; routed; switched; }
        const default_action = drop();
        const entries = {
            (VERDICT_DROP, _, _, _, _, _, _) : drop();
            (VERDICT_MULTICAST, 1, _, _, _, _, _) : to_job_group();
            (VERDICT_MULTICAST, _, _, _, _, _, _) : drop();
            (VERDICT_CONTROL, _, _, _, _, _, _) : to_cpu();
            (_, _, true, 0xE0000000 &&& 0xF0000000, _, _, _) : flood();
            (_, _, true, 0xFFFFFFFF, _, _, _) : flood();
            (_, _, true, _, 1, _, _) : routed();
            (_, _, _, _, _, 1, _) : flood();
            (_, _, _, _, _, _, 1) : switched();
        }
    }

    apply {
        forward_select.apply();
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
    /* Each copy gets the port's addresses; the IPv4 checksum is recomputed
     * only when the address changes (switchd's copy_for). Whether it
     * changes is a lookup of the copy's own address, `mcast_mac`, which
     * hits when it already is the port's: comparing the field after the
     * rewrite with a copy of it taken before held that 32-bit copy in
     * egress PHV, which Tofino 2's pair lanes need. */
    action group_mac(bit<48> mac) {
        hdr.ethernet.dst = mac;
    }
    action rewrite(bit<48> mac, bit<32> ip) {
        hdr.ethernet.dst = mac;
        hdr.ipv4.dst = ip;
        meta.ip_changed = 1;
    }
    action keep() {
    }
    table mcast_mac {
        key = {
            rid : exact;
            egress_port : exact;
            hdr.ipv4.dst : exact;
        }
        actions = { group_mac; keep; }
        default_action = keep();
        size = 4096;
    }
    table mcast_rewrite {
        key = {
            rid : exact;
            egress_port : exact;
        }
        actions = { rewrite; keep; }
        default_action = keep();
        size = 4096;
    }

    /* qdepth >= threshold as the sign of their difference, taken in the
     * threshold's own action (a Tofino gateway compares with constants
     * only, and a threshold field of its own was 32 more bits of egress
     * PHV); both are below 2^31 (a 19-bit queue depth, a threshold of the
     * same range). The entry holds the threshold negated (p4gen writes
     * 2^32 - depth): a Tofino ALU takes a subtraction's second operand from
     * PHV or a constant, never from action data, but adds action data. A
     * port without a threshold leaves a negative difference. */
    bit<32> depth_left = 0;
    action set_threshold(bit<32> minus_depth) {
        depth_left = qdepth + minus_depth;
    }
    action no_threshold() {
        depth_left = 0x80000000;
    }
    table ecn_threshold {
        key = { egress_port : exact; }
        actions = { set_threshold; no_threshold; }
        default_action = no_threshold();
        size = 64;
    }

    apply {
        drop = 0;
        meta.ip_changed = 0;
        if (rid != 0 && egress_port == meta.in_port && rid == meta.flood_group) {
            drop = 1;
        } else {
            if (rid != 0 && hdr.ina.isValid()) {
                if (!mcast_mac.apply().hit) {
                    mcast_rewrite.apply();
                }
            }
            /* As switchd (config/README.md, ecn_threshold): INA packets get
             * the INA ECN flag and IP CE, other ECN-capable IPv4 packets CE. */
            ecn_threshold.apply();
            if (depth_left[31:31] == 0 && hdr.ipv4.isValid()) {
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
