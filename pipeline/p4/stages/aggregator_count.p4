/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_count`: how many children are in. Its result decides
 * whether this packet completes the aggregation, so the verdict of every
 * gradient and resent packet is settled here (table count_verdict), while
 * the value lanes run: on Tofino the first pass must know whether the
 * packet is dropped (resubmit) or forwarded (recirculate) before it leaves
 * ingress.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_COUNT
#define INA_P4_STAGE_AGGREGATOR_COUNT

control aggregator_count(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_REGISTER(bit<32>, aggregator_count_reg, INA_AGGREGATORS);

    INA_REGISTER_ACTION(bit<32>, pred_t, aggregator_count_reg, count_init, meta.row, meta.count_pred,
        value = 1;
        result = 0;
    )
    /* Returns whether this packet completes the aggregation: the count it
     * leaves (old + 1) reaches fan_in, i.e. old >= fan_in - 1 (lo), as
     * the predicate of the stateful ALU's condition: the count itself
     * would need a subtraction and a test after it, two stages. */
    INA_REGISTER_ACTION(bit<32>, pred_t, aggregator_count_reg, count_add, meta.row, meta.count_pred,
        result = INA_PREDICATE1(value >= (bit<32>)meta.fan_in_m1);
        value = value + 1;
    )
    INA_REGISTER_ACTION(bit<32>, pred_t, aggregator_count_reg, count_clear, meta.row, meta.count_pred,
        value = 0;
        result = 0;
    )

    table count_op {
        key = {
            meta.cls     : ternary;
            meta.id_hit  : ternary;
            meta.overlap : ternary;
        }
        actions = { count_init; count_add; count_clear; NoAction; }
        const default_action = NoAction();
        const entries = {
            (CLASS_GRADIENT, ID_CLAIMED, _) : count_init();
            (CLASS_GRADIENT, ID_MATCH, 0) : count_add();  /* not a duplicate */
            (CLASS_RESEND, ID_RELEASED, _) : count_clear();
            (CLASS_ACK, ID_RELEASED, _) : count_clear();
            (CLASS_ACK, ID_RELEASED_STALE, _) : count_clear();
        }
    }

    /* The verdict of every gradient, resent gradient and parameter packet,
     * one ternary lookup on what the register stages found (ATP Figure 7,
     * process.cpp): the verdict and its counters, the flags register's
     * operation, the header changes, and which value action the lanes run
     * in the second pass. */
    action registers(verdict_t verdict, reason_t reason, bit<8> side, flags_op_t flags_op,
                     bit<16> set_flags, bit<1> write_bitmaps, bit<1> carry_flags,
                     bit<1> advance, value_op_t value_op) {
        meta.verdict = verdict;
        meta.reason = reason;
        meta.side = side;
        meta.flags_op = flags_op;
        meta.set_flags = set_flags;
        meta.write_bitmaps = write_bitmaps;
        meta.carry_flags = carry_flags;
        meta.advance = advance;
        meta.value_op = value_op;
    }
    /* The same for a packet that adds or reads (the lanes of elements
     * INA_LANES.. still have to run when it has more elements than one
     * pass's lanes) and for a claim (the row's second half has to be
     * zeroed too when the row is longer than one pass): whether the packet
     * takes a second pass is a fact computed before (value_rows). */
    action registers_add(verdict_t verdict, reason_t reason, bit<8> side, flags_op_t flags_op,
                         bit<16> set_flags, bit<1> write_bitmaps, bit<1> carry_flags,
                         bit<1> advance, value_op_t value_op) {
        registers(verdict, reason, side, flags_op, set_flags, write_bitmaps, carry_flags,
                  advance, value_op);
        meta.need_second = meta.count_lanes_left[15:15];
    }
    action registers_write(verdict_t verdict, reason_t reason, bit<8> side, flags_op_t flags_op,
                           bit<16> set_flags, bit<1> write_bitmaps, bit<1> carry_flags,
                           bit<1> advance, value_op_t value_op) {
        registers(verdict, reason, side, flags_op, set_flags, write_bitmaps, carry_flags,
                  advance, value_op);
        meta.need_second = meta.two_rows;
    }
    /* The same for a packet that crosses its job's share (Tofino's fair
     * share, fair_share.p4): side carries the job_full change, which the
     * second pass makes, so the packet takes one whatever its elements. */
    action registers_cross(verdict_t verdict, reason_t reason, bit<8> side, flags_op_t flags_op,
                           bit<16> set_flags, bit<1> write_bitmaps, bit<1> carry_flags,
                           bit<1> advance, value_op_t value_op) {
        registers(verdict, reason, side, flags_op, set_flags, write_bitmaps, carry_flags,
                  advance, value_op);
        meta.need_second = 1;
    }
    /* ATP Figure 7 box 7: already aggregated; the aggregator keeps the
     * copy's congestion mark only. */
    action duplicate() {
        meta.verdict = VERDICT_DROP;
        meta.reason = CTR_duplicate;
        meta.flags_op = FLAGS_MERGE;
        meta.flags_in = meta.flags_in & AGG_ECN;
    }
    /* Figure 17, higher level: its bitmap has one bit per lower switch and
     * cannot describe a partial child, so the partial sum is discarded; its
     * congestion and collision marks travel on. */
    action resend_flushed() {
        meta.verdict = VERDICT_DOWNSTREAM;
        meta.reason = CTR_resend_flushed;
        meta.advance = 1;
        meta.flags_op = FLAGS_READ_CLEAR;
        meta.flags_in = 0;
        meta.carry_flags = 1;
    }
    action resend_flushed_cross() {
        resend_flushed();
        meta.side = SIDE_FULL_CLEAR;
        meta.need_second = 1;
    }
    table count_verdict {
        key = {
            meta.cls        : ternary;
            meta.id_hit     : ternary;
            meta.overlap    : ternary;
            meta.count_pred : ternary;
            meta.fan_in     : ternary;
            hdr.ina.level   : ternary;
            meta.held_pred  : ternary;
        }
        actions = { registers; registers_add; registers_write; registers_cross; duplicate;
                    resend_flushed; resend_flushed_cross; NoAction; }
        const default_action = NoAction();
        const entries = {
            /* Tofino's fair share (fair_share.p4): a packet whose job_held
             * update crosses the share (held_pred PRED_LO; never on BMv2,
             * whose count is exact) is the packet below, with a second
             * pass that sets or clears job_full. */
            (CLASS_GRADIENT, ID_REFUSED, _, _, _, _, PRED_LO) :
                registers_cross(VERDICT_DOWNSTREAM, CTR_share_refusals, SIDE_FULL_CLEAR,
                          FLAGS_NONE, INA_F_RESEND | INA_F_COLLISION, 0, 0, 1, VALUE_NONE);
            (CLASS_GRADIENT, ID_CLAIMED, _, _, 1, _, PRED_LO) :
                registers_cross(VERDICT_DOWNSTREAM, CTR_completed,
                          SIDE_CLAIMED | SIDE_AGGREGATED | SIDE_FULL_SET, FLAGS_INIT, 0, 1, 1, 1,
                          VALUE_WRITE);
            (CLASS_GRADIENT, ID_CLAIMED, _, _, _, _, PRED_LO) :
                registers_cross(VERDICT_DROP, CTR_aggregated, SIDE_CLAIMED | SIDE_FULL_SET,
                          FLAGS_INIT, 0, 0, 0, 0, VALUE_WRITE);
            (CLASS_RESEND, ID_RELEASED, 0, _, _, 0, PRED_LO) :
                registers_cross(VERDICT_DOWNSTREAM, CTR_resend_merged,
                          SIDE_AGGREGATED | SIDE_FULL_CLEAR, FLAGS_READ_CLEAR, 0, 1, 1, 1,
                          VALUE_ADD_READ);
            (CLASS_RESEND, ID_RELEASED, _, _, _, 0, PRED_LO) :
                registers_cross(VERDICT_DOWNSTREAM, CTR_resend_merged, SIDE_FULL_CLEAR,
                          FLAGS_READ_CLEAR, 0, 1, 1, 1, VALUE_READ);
            (CLASS_RESEND, ID_RELEASED, _, _, _, _, PRED_LO) : resend_flushed_cross();
            (CLASS_ACK, ID_RELEASED, _, _, _, _, PRED_LO) :
                registers_cross(VERDICT_MULTICAST, CTR_ack_freed, SIDE_MULTICAST | SIDE_FULL_CLEAR,
                          FLAGS_CLEAR, 0, 0, 0, 0, VALUE_NONE);
            /* Box 2: on to the PS marked as resent so that later levels do
             * not aggregate it; the holder learns of it via Col. */
            (CLASS_GRADIENT, ID_COLLIDE, _, _, _, _, _) :
                registers(VERDICT_DOWNSTREAM, CTR_collision, 0, FLAGS_SET_COL,
                          INA_F_RESEND | INA_F_COLLISION, 0, 0, 1, VALUE_NONE);
            /* Fair share: like box 2, but the aggregator is empty and stays
             * so; no holder to tell, so no Col. The PS sums it. */
            (CLASS_GRADIENT, ID_REFUSED, _, _, _, _, _) :
                registers(VERDICT_DOWNSTREAM, CTR_share_refusals, 0, FLAGS_NONE,
                          INA_F_RESEND | INA_F_COLLISION, 0, 0, 1, VALUE_NONE);
            /* A claim: complete at once when the fan-in is 1. */
            (CLASS_GRADIENT, ID_CLAIMED, _, _, 1, _, _) :
                registers_write(VERDICT_DOWNSTREAM, CTR_completed, SIDE_CLAIMED | SIDE_AGGREGATED,
                          FLAGS_INIT, 0, 1, 1, 1, VALUE_WRITE);
            (CLASS_GRADIENT, ID_CLAIMED, _, _, _, _, _) :
                registers_write(VERDICT_DROP, CTR_aggregated, SIDE_CLAIMED, FLAGS_INIT, 0, 0, 0, 0,
                          VALUE_WRITE);
            (CLASS_GRADIENT, ID_MATCH, 0, PRED_LO, _, _, _) :
                registers_add(VERDICT_DOWNSTREAM, CTR_completed, SIDE_AGGREGATED, FLAGS_MERGE, 0, 1,
                          1, 1, VALUE_ADD_READ);
            (CLASS_GRADIENT, ID_MATCH, 0, _, _, _, _) :
                registers_add(VERDICT_DROP, CTR_aggregated, 0, FLAGS_MERGE, 0, 0, 0, 0, VALUE_ADD);
            (CLASS_GRADIENT, ID_MATCH, _, _, _, _, _) : duplicate();
            (CLASS_RESEND, ID_MISS, _, _, _, _, _) :
                registers(VERDICT_DOWNSTREAM, CTR_resend_forwarded, 0, FLAGS_NONE, 0, 0, 0, 1,
                          VALUE_NONE);
            /* Someone else's aggregator: a collision like Figure 7's box 2,
             * so the holder learns of it (Col) and the PS re-hashes. */
            (CLASS_RESEND, ID_COLLIDE, _, _, _, _, _) :
                registers(VERDICT_DOWNSTREAM, CTR_collision, 0, FLAGS_SET_COL, INA_F_COLLISION,
                          0, 0, 1, VALUE_NONE);
            /* Figure 17, first level: merge and flush the partial; a copy
             * whose bits are in already only reads it. */
            (CLASS_RESEND, ID_RELEASED, 0, _, _, 0, _) :
                registers_add(VERDICT_DOWNSTREAM, CTR_resend_merged, SIDE_AGGREGATED,
                          FLAGS_READ_CLEAR, 0, 1, 1, 1, VALUE_ADD_READ);
            (CLASS_RESEND, ID_RELEASED, _, _, _, 0, _) :
                registers_add(VERDICT_DOWNSTREAM, CTR_resend_merged, 0, FLAGS_READ_CLEAR, 0, 1, 1,
                          1, VALUE_READ);
            (CLASS_RESEND, ID_RELEASED, _, _, _, _, _) : resend_flushed();
            (CLASS_ACK, ID_MISS, _, _, _, _, _) :
                registers(VERDICT_MULTICAST, CTR_ack_unmatched, SIDE_MULTICAST, FLAGS_NONE, 0, 0,
                          0, 0, VALUE_NONE);
            (CLASS_ACK, ID_RELEASED, _, _, _, _, _) :
                registers(VERDICT_MULTICAST, CTR_ack_freed, SIDE_MULTICAST, FLAGS_CLEAR, 0, 0, 0,
                          0, VALUE_NONE);
            (CLASS_ACK, ID_RELEASED_STALE, _, _, _, _, _) :
                registers(VERDICT_MULTICAST, CTR_gc_freed, SIDE_MULTICAST, FLAGS_CLEAR, 0, 0, 0,
                          0, VALUE_NONE);
        }
    }

    apply {
        count_op.apply();
        count_verdict.apply();
    }
}

#endif
