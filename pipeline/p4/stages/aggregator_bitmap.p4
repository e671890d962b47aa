/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_bitmap`: which children the aggregator holds. The OR is
 * written before the old value is tested (ATP section 4: a write of the
 * bitmap is "set a bit", so it can precede the read), which makes the
 * duplicate test one read-modify-write.
 *
 * Two register arrays hold the same bitmap, updated alike by every packet:
 * a stateful ALU has one output word, and the stages after this one need
 * two things of the old word, the overlap with the packet's bitmap (the
 * duplicate test) and the merged bitmap (the result's). Each array returns
 * one of them straight out of its ALU; one array returning the old word
 * left both to an action of their own, a stage more before the count and
 * the lanes. aggregator_bitmap_reg is the one the control plane reads.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_BITMAP
#define INA_P4_STAGE_AGGREGATOR_BITMAP

control aggregator_bitmap(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_REGISTER(bit<32>, aggregator_bitmap_reg, INA_AGGREGATORS);
    INA_REGISTER(bit<32>, aggregator_bitmap_merged_reg, INA_AGGREGATORS);

    /* The overlap, old AND new (0 unless the packet's children are in
     * already). */
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_reg, overlap_init, meta.row, meta.overlap,
        value = meta.bitmap;
        result = 0;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_reg, overlap_or, meta.row, meta.overlap,
        result = value & meta.bitmap;
        value = value | meta.bitmap;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_reg, overlap_read_clear, meta.row, meta.overlap,
        result = value & meta.bitmap;
        value = 0;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_reg, overlap_clear, meta.row, meta.overlap,
        value = 0;
        result = 0;
    )
    /* The merged bitmap, old OR new. */
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_merged_reg, merged_init, meta.row, meta.merged,
        value = meta.bitmap;
        result = value;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_merged_reg, merged_or, meta.row, meta.merged,
        value = value | meta.bitmap;
        result = value;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_merged_reg, merged_read_clear, meta.row, meta.merged,
        result = value | meta.bitmap;
        value = 0;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_merged_reg, merged_clear, meta.row, meta.merged,
        value = 0;
        result = 0;
    )

    /* Chosen by the class and what aggregator_id's conditions found
     * (its predicate: the next stage, too early for id_hit); one table per
     * array, as a Tofino table addresses all its registers with one index
     * expression, and an action may address only one stateful ALU through
     * it. OP is the array's action prefix. */
#define INA_BITMAP_TABLE(NAME, OP) \
    table NAME { \
        key = { \
            meta.cls      : ternary; \
            meta.at_share : ternary; \
            meta.id_pred  : ternary; \
            hdr.ina.level : ternary; \
        } \
        actions = { OP##_init; OP##_or; OP##_read_clear; OP##_clear; NoAction; } \
        const default_action = NoAction(); \
        const entries = { \
            (CLASS_GRADIENT, 0, PRED_LO, _) : OP##_init();     /* claimed */ \
            (CLASS_GRADIENT, _, PRED_HI, _) : OP##_or();       /* match */ \
            (CLASS_RESEND, _, PRED_HI, 0) : OP##_read_clear(); /* released, first level */ \
            (CLASS_RESEND, _, PRED_HI, _) : OP##_clear();      /* released, higher level */ \
            (CLASS_ACK, _, PRED_LO, _) : OP##_clear();         /* released */ \
            (CLASS_ACK, _, PRED_BOTH, _) : OP##_clear(); \
            (CLASS_ACK, _, PRED_HI, _) : OP##_clear();         /* released stale */ \
        } \
    }
    INA_BITMAP_TABLE(bitmap_op, overlap)
    INA_BITMAP_TABLE(bitmap_merge_op, merged)

    apply {
        bitmap_op.apply();
        bitmap_merge_op.apply();
    }
}

#endif
