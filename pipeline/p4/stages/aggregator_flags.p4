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

    apply {
        meta.flags_out = 0;
        if (meta.clipped == 1) {
            meta.side = meta.side | SIDE_OVERFLOW;
            if (meta.flags_op != FLAGS_SET_COL && meta.flags_op != FLAGS_CLEAR) {
                meta.flags_in = meta.flags_in | AGG_OVERFLOW;
            }
        }
        if (meta.flags_op == FLAGS_INIT) {
            flags_init();
        } else if (meta.flags_op == FLAGS_MERGE) {
            flags_merge();
        } else if (meta.flags_op == FLAGS_SET_COL) {
            flags_set_col();
        } else if (meta.flags_op == FLAGS_READ_CLEAR || meta.flags_op == FLAGS_CLEAR) {
            /* FLAGS_CLEAR (an ACK freeing the slot) runs read-clear: at
             * most four RegisterActions per register on Tofino, and an ACK
             * never carries the flags it reads (carry_flags is 0). */
            flags_read_clear();
        }
    }
}

#endif
