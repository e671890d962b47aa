/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_count`: how many children are in. Its result decides
 * whether this packet completes the aggregation, so the verdict of every
 * gradient and resent packet is settled here, before the value lanes: on
 * Tofino the first pass must know whether the packet is dropped (resubmit)
 * or forwarded (recirculate) before it leaves ingress.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_COUNT
#define INA_P4_STAGE_AGGREGATOR_COUNT

control aggregator_count(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_REGISTER(bit<32>, aggregator_count_reg, INA_AGGREGATORS);

    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_count_reg, count_init, meta.row, meta.count,
        value = 1;
        result = 1;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_count_reg, count_add, meta.row, meta.count,
        value = value + 1;
        result = value;
    )
    INA_REGISTER_ACTION(bit<32>, bit<32>, aggregator_count_reg, count_clear, meta.row, meta.count,
        value = 0;
        result = 0;
    )

    /* count >= fan_in by subtraction, in a table's action so that the
     * difference stays a field (a Tofino gateway compares with constants
     * only); fan_in <= 32, so a count with its top bit set is above it. */
    bit<32> count_left = 0;
    action count_minus_fan_in() {
        count_left = meta.count - (bit<32>)meta.fan_in;
    }
    table compare {
        actions = { count_minus_fan_in; }
        const default_action = count_minus_fan_in();
        size = 1;
    }

    /* The result leaves this level: downstream with level + 1. */
    action leave(reason_t why) {
        meta.verdict = VERDICT_DOWNSTREAM;
        meta.reason = why;
        meta.advance = 1;
    }

    apply {
        meta.count = 0;
        meta.complete = 0;
        if (meta.cls == CLASS_GRADIENT) {
            if (meta.id_hit == ID_COLLIDE) {
                /* Box 2: on to the PS marked as resent so that later levels
                 * do not aggregate it; the holder learns of it via Col. */
                leave(CTR_collision);
                meta.set_flags = INA_F_RESEND | INA_F_COLLISION;
                meta.flags_op = FLAGS_SET_COL;
            } else if (meta.id_hit == ID_REFUSED) {
                /* Fair share: like box 2, but the aggregator is empty and
                 * stays so; no holder to tell, so no Col. The PS sums it. */
                leave(CTR_share_refusals);
                meta.set_flags = INA_F_RESEND | INA_F_COLLISION;
            } else if (meta.id_hit == ID_CLAIMED) {
                count_init();
                meta.side = SIDE_CLAIMED;
                meta.flags_op = FLAGS_INIT;
            } else if (meta.reason != CTR_duplicate) {
                count_add();
                meta.flags_op = FLAGS_MERGE;
            }
            compare.apply();
            if (meta.id_hit == ID_CLAIMED || (meta.id_hit == ID_MATCH && meta.reason != CTR_duplicate)) {
                if (meta.count[31:31] == 1 || count_left[31:31] == 0) {
                    meta.complete = 1;
                    leave(CTR_completed);
                    meta.side = meta.side | SIDE_AGGREGATED;
                    meta.write_bitmaps = 1;
                    meta.carry_flags = 1;
                } else {
                    meta.verdict = VERDICT_DROP;
                    meta.reason = CTR_aggregated;
                }
            }
        } else if (meta.cls == CLASS_RESEND) {
            if (meta.id_hit == ID_MISS) {
                leave(CTR_resend_forwarded);
            } else if (meta.id_hit == ID_COLLIDE) {
                /* Someone else's aggregator: a collision like Figure 7's
                 * box 2, so the holder learns of it (Col) and the PS
                 * re-hashes. */
                leave(CTR_collision);
                meta.set_flags = INA_F_COLLISION;
                meta.flags_op = FLAGS_SET_COL;
            } else {
                count_clear();
                if (hdr.ina.level != 0) {
                    /* Figure 17, higher level: its bitmap has one bit per
                     * lower switch and cannot describe a partial child, so
                     * the partial sum is discarded; its congestion and
                     * collision marks travel on. */
                    leave(CTR_resend_flushed);
                    meta.flags_op = FLAGS_READ_CLEAR;
                    meta.flags_in = 0;
                    meta.carry_flags = 1;
                } else {
                    /* Figure 17, first level: merge and flush the partial. */
                    leave(CTR_resend_merged);
                    meta.flags_op = FLAGS_READ_CLEAR;
                    meta.write_bitmaps = 1;
                    meta.carry_flags = 1;
                    if (meta.fresh == 1) {
                        meta.side = SIDE_AGGREGATED;
                    }
                }
            }
        } else if (meta.cls == CLASS_ACK) {
            meta.verdict = VERDICT_MULTICAST;
            meta.side = SIDE_MULTICAST;
            if (meta.id_hit == ID_MISS) {
                meta.reason = CTR_ack_unmatched;
            } else {
                count_clear();
                meta.flags_op = FLAGS_CLEAR;
                if (meta.id_hit == ID_RELEASED) {
                    meta.reason = CTR_ack_freed;
                } else {
                    meta.reason = CTR_gc_freed;
                }
            }
        }
    }
}

#endif
