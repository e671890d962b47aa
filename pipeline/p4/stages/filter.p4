/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `filter` (process.cpp process(), between parse and the registers):
 * control messages, A2TP bypass, float payloads, GOAT's aggregation-node
 * filter and packets past their levels leave here untouched; what is left is
 * classified for the register stages as gradient, resent gradient or
 * parameter packet.
 */
#ifndef INA_P4_STAGE_FILTER
#define INA_P4_STAGE_FILTER

control filter(inout ina_headers_t hdr, inout ina_meta_t meta) {
    action forward_untouched(reason_t why) {
        meta.verdict = VERDICT_DOWNSTREAM;
        meta.reason = why;
    }

    /* Field comparisons by subtraction, in a table's action so that the
     * differences stay fields (a Tofino gateway compares with constants
     * only; parse.p4). parse let through level <= levels <= 4 only, so
     * level >= levels is levels - level == 0; the index is below 65536 and
     * aggregators at most 65536 (parse); gc_timeout is below 2^31 (p4gen
     * caps it), so a clock with its top bit set is past it. */
    bit<8>  levels_left = 0;
    bit<32> index_left = 0;
    bit<32> clock_left = 0;
    action differences() {
        levels_left = hdr.ina.levels - hdr.ina.level;
        index_left = hdr.ina.agg_index - meta.cfg.aggregators;
        clock_left = meta.cfg.gc_timeout - meta.now;
    }
    table compare {
        actions = { differences; }
        const default_action = differences();
        size = 1;
    }

    apply {
        compare.apply();
        bool index_over = hdr.ina.agg_index[31:16] != 0 || index_left[31:31] == 0;
        bool clock_past = meta.now[31:31] == 1 || clock_left[31:31] == 1;
        meta.cls = CLASS_NONE;
        if (meta.reason == CTR_NONE) {
            bool ack = (hdr.ina.flags & INA_F_ACK) != 0;
            if (hdr.ina.type == INA_TYPE_CONTROL) {
                meta.verdict = VERDICT_CONTROL;
                meta.reason = CTR_control;
            } else if (!ack && (hdr.ina.flags & INA_F_BYPASS) != 0) {
                forward_untouched(CTR_bypass);
            } else if (!ack && (hdr.ina.flags & INA_F_FLOAT) != 0) {
                forward_untouched(CTR_float_forwarded);
            } else if (!ack && hdr.ina.agg_node != INA_AGG_NODE_ANY &&
                       hdr.ina.agg_node != meta.cfg.switch_id) {
                forward_untouched(CTR_goat_forwarded);
            } else if (!ack && levels_left == 0) {
                forward_untouched(CTR_past_levels);
            } else if (!ack && hdr.ina.level >= INA_P4_LEVELS) {
                /* Levels 2 and 3: the P4 build implements ATP's two levels
                 * (docs/p4.md); the software switch would aggregate here. */
                forward_untouched(CTR_past_levels);
            } else if (ack && index_over) {
                /* A parameter packet for an index this switch does not have
                 * still reaches the workers; it frees nothing. */
                meta.verdict = VERDICT_MULTICAST;
                meta.reason = CTR_ack_unmatched;
                meta.side = SIDE_MULTICAST;
            } else if (ack) {
                meta.cls = CLASS_ACK;
                /* GC: a foreign aggregator last written before now - timeout
                 * is stale (process.cpp id_release_ack). The register holds
                 * the timestamp inverted (aggregator_id.p4), so the test
                 * becomes "stored > ~(now - timeout)"; 0 never matches.
                 * ~(now - timeout) is ~now + timeout: one ALU operation,
                 * as a Tofino action has one per field. The bound takes
                 * ts_now's place (a parameter packet writes no timestamp):
                 * a stateful ALU reads at most two PHV fields, and
                 * aggregator_id's register actions read the key and this. */
                if (meta.cfg.gc_timeout != 0 && clock_past) {
                    meta.ts_now = meta.ts_now + meta.cfg.gc_timeout;
                } else {
                    meta.ts_now = 0xFFFFFFFF;
                }
            } else if ((hdr.ina.flags & INA_F_RESEND) != 0) {
                meta.cls = CLASS_RESEND;
            } else {
                meta.cls = CLASS_GRADIENT;
            }
            /* Flags the aggregator keeps from this packet (agg_flags_of). */
            meta.flags_in = 0;
            if ((hdr.ina.flags & INA_F_ECN) != 0) { meta.flags_in = meta.flags_in | AGG_ECN; }
            if ((hdr.ina.flags & INA_F_COL) != 0) { meta.flags_in = meta.flags_in | AGG_COL; }
            if ((hdr.ina.flags & INA_F_OVERFLOW) != 0) { meta.flags_in = meta.flags_in | AGG_OVERFLOW; }
        }
    }
}

#endif
