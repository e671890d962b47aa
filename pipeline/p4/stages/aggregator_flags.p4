/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_flags`: ECN, Col (A2TP) and overflow, kept by the
 * aggregator until the result leaves. It runs in the packet's last pass,
 * after every lane, so that it records the overflow of all 62 elements;
 * the action was chosen in the first pass and travels with the packet.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_FLAGS
#define INA_P4_STAGE_AGGREGATOR_FLAGS

control aggregator_flags(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_REGISTER(bit<8>, aggregator_flags_reg, INA_AGGREGATORS);

    INA_REGISTER_ACTION(bit<8>, bit<8>, aggregator_flags_reg, flags_init, hdr.ina.agg_index, meta.flags_out,
        value = meta.flags_in;
        result = value;
    )
    INA_REGISTER_ACTION(bit<8>, bit<8>, aggregator_flags_reg, flags_merge, hdr.ina.agg_index, meta.flags_out,
        value = value | meta.flags_in;
        result = value;
    )
    INA_REGISTER_ACTION(bit<8>, bit<8>, aggregator_flags_reg, flags_set_col, hdr.ina.agg_index, meta.flags_out,
        value = value | AGG_COL;
        result = value;
    )
    INA_REGISTER_ACTION(bit<8>, bit<8>, aggregator_flags_reg, flags_read_clear, hdr.ina.agg_index, meta.flags_out,
        result = value | meta.flags_in;
        value = 0;
    )

    table flags_update {
        key = { meta.flags_op : exact; }
        actions = { flags_init; flags_merge; flags_set_col; flags_read_clear; NoAction; }
        const default_action = NoAction();
        const entries = {
            FLAGS_INIT : flags_init();
            FLAGS_MERGE : flags_merge();
            FLAGS_SET_COL : flags_set_col();
            FLAGS_READ_CLEAR : flags_read_clear();
            /* An ACK freeing the slot runs read-clear: at most four
             * RegisterActions per register on Tofino, and an ACK never
             * carries the flags it reads (carry_flags is 0). */
            FLAGS_CLEAR : flags_read_clear();
        }
    }

    /* The side counter `overflow` (counters.p4): a lane saturated in this
     * pass or the first (process.cpp counts it for a packet whose add
     * clipped). Here, in the packet's last pass after the overflow test,
     * so that the other counters need not wait for it. */
    INA_COUNTER(overflow_counter, 1);

    apply {
        /* A clip of this packet is in flags_in already (lane_clips). */
        flags_update.apply();
        if (meta.clipped == 1) {
            INA_COUNT(overflow_counter, 0);
        }
    }
}

#endif
