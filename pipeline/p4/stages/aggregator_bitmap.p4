/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_bitmap`: which children the aggregator holds. The OR is
 * written before the old value is tested (ATP section 4: a write of the
 * bitmap is "set a bit", so it can precede the read), which makes the
 * duplicate test one read-modify-write.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_BITMAP
#define INA_P4_STAGE_AGGREGATOR_BITMAP

control aggregator_bitmap(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_REGISTER(bit<32>, aggregator_bitmap_reg, INA_AGGREGATORS);

    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_reg, bitmap_init, meta.row, meta.old_bitmap,
        value = meta.bitmap;
        result = 0;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_reg, bitmap_or, meta.row, meta.old_bitmap,
        result = value;
        value = value | meta.bitmap;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_reg, bitmap_read_clear, meta.row, meta.old_bitmap,
        result = value;
        value = 0;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_bitmap_reg, bitmap_clear, meta.row, meta.old_bitmap,
        value = 0;
        result = 0;
    )

    /* The overlap is a field of its own, set by a table's action so that
     * the compiler keeps it: a Tofino gateway tests a field against a
     * constant, not the AND of two fields. */
    bit<32> overlap = 0;
    action old_and_new() {
        overlap = meta.old_bitmap & meta.bitmap;
    }
    table compare {
        actions = { old_and_new; }
        const default_action = old_and_new();
        size = 1;
    }

    apply {
        meta.old_bitmap = 0;
        if (meta.cls == CLASS_GRADIENT) {
            if (meta.id_hit == ID_CLAIMED) {
                bitmap_init();
            } else if (meta.id_hit == ID_MATCH) {
                bitmap_or();
            }
        } else if (meta.cls == CLASS_RESEND) {
            if (meta.id_hit == ID_RELEASED) {
                if (hdr.ina.level == 0) {
                    bitmap_read_clear();
                } else {
                    bitmap_clear();
                }
            }
        } else if (meta.cls == CLASS_ACK) {
            if (meta.id_hit == ID_RELEASED || meta.id_hit == ID_RELEASED_STALE) {
                bitmap_clear();
            }
        }
        compare.apply();
        if (meta.cls == CLASS_GRADIENT && meta.id_hit == ID_MATCH && overlap != 0) {
            /* ATP Figure 7 box 7: already aggregated; the aggregator keeps
             * the copy's congestion mark only. */
            meta.verdict = VERDICT_DROP;
            meta.reason = CTR_duplicate;
            meta.flags_op = FLAGS_MERGE;
            meta.flags_in = meta.flags_in & AGG_ECN;
        }
        meta.merged = meta.old_bitmap | meta.bitmap;
        meta.fresh = 0;
        if (overlap == 0) {
            meta.fresh = 1;
        }
    }
}

#endif
