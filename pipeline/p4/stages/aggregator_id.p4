/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_id`: the identifier <job, seq> and the time of the last
 * aggregation, one pair register word per aggregator. Four RegisterActions,
 * one per process.cpp function; which one runs is decided by the packet's
 * class (table id_op), never by the register's content, because a Tofino
 * stage picks its stateful ALU instruction before it reads the word.
 *
 * Word layout: key = job ++ seq[15:0] (0 = empty), ts = ~now of the last
 * claim or match. Storing the timestamp inverted makes an empty word (all
 * zeros, the reset state of both targets) look infinitely young, so the GC
 * test needs no third condition for "occupied": a stateful ALU has two.
 *
 * Each action returns the predicate of its two conditions (pred_t): what
 * the word held, in the terms the next stages key on, straight out of the
 * stateful ALU. Returning the old key instead left the comparison with the
 * packet's key to two more stages.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_ID
#define INA_P4_STAGE_AGGREGATOR_ID

control aggregator_id(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_PAIR_REGISTER(aggregator_id_reg, INA_AGGREGATORS);

    /* id_claim / id_match: claim if empty (lo), refresh if equal (hi), else
     * collide (neither). */
    INA_PAIR_REGISTER_ACTION(pred_t, aggregator_id_reg, id_claim_or_match, meta.row, meta.id_pred,
        result = INA_PREDICATE(value.key == 0, value.key == meta.key);
        if (value.key == 0) {
            value.key = meta.key;
            value.ts = meta.ts_now;
        } else if (value.key == meta.key) {
            value.ts = meta.ts_now;
        }
    )

    /* id_match_only: the job holds its share (fair_share.p4): refresh if
     * equal (hi), never claim; an empty word (lo) stays empty: refused. */
    INA_PAIR_REGISTER_ACTION(pred_t, aggregator_id_reg, id_match_only, meta.row, meta.id_pred,
        result = INA_PREDICATE(value.key == 0, value.key == meta.key);
        if (value.key == meta.key) {
            value.ts = meta.ts_now;
        }
    )

    /* id_release: a resent gradient frees its own aggregator (hi), finds
     * it empty (lo: miss) or held by another <job, seq> (neither: collide). */
    INA_PAIR_REGISTER_ACTION(pred_t, aggregator_id_reg, id_release, meta.row, meta.id_pred,
        result = INA_PREDICATE(value.key == 0, value.key == meta.key);
        if (value.key == meta.key) {
            value.key = 0;
            value.ts = 0;
        }
    )

    /* id_release_ack: a parameter packet frees its own aggregator (lo), or
     * a foreign one idle for longer than gc_timeout (hi only: released
     * stale; ATP section 3.7); neither: miss (an empty word's timestamp, 0,
     * is never stale). For a parameter packet ts_now holds the GC bound,
     * ~(now - gc_timeout) (filter.p4): a stateful ALU has two PHV inputs,
     * the key and this. BMv2 also keeps the holder, the job of the freed
     * key, for the fair share's count (fair_share.p4). */
    INA_PAIR_REGISTER_ACTION(pred_t, aggregator_id_reg, id_release_ack, meta.row, meta.id_pred,
        result = INA_PREDICATE(value.key == meta.key, value.ts > meta.ts_now);
        if (value.key == meta.key || value.ts > meta.ts_now) {
            INA_V1MODEL_ONLY(meta.holder = value.key[31:16];)
            value.key = 0;
            value.ts = 0;
        }
    )

    /* Chosen by the class and the share test before the register, as every
     * action here is chosen before the word is read. */
    table id_op {
        key = {
            meta.cls      : ternary;
            meta.at_share : ternary;
        }
        actions = { id_claim_or_match; id_match_only; id_release; id_release_ack; NoAction; }
        const default_action = NoAction();
        const entries = {
            (CLASS_GRADIENT, 0) : id_claim_or_match();
            (CLASS_GRADIENT, 1) : id_match_only();
            (CLASS_RESEND, _) : id_release();
            (CLASS_ACK, _) : id_release_ack();
        }
    }

    /* The outcome in process.cpp's terms (id_hit), for the stages that
     * come two or more stages later; aggregator_bitmap, the next one, keys
     * on the predicate itself. */
    action set_id_hit(id_hit_t hit) { meta.id_hit = hit; }
    table id_outcome {
        key = {
            meta.cls      : ternary;
            meta.at_share : ternary;
            meta.id_pred  : ternary;
        }
        actions = { set_id_hit; }
        const default_action = set_id_hit(ID_NONE);
        const entries = {
            (CLASS_GRADIENT, 1, PRED_LO) : set_id_hit(ID_REFUSED);
            (CLASS_GRADIENT, _, PRED_LO) : set_id_hit(ID_CLAIMED);
            (CLASS_GRADIENT, _, PRED_HI) : set_id_hit(ID_MATCH);
            (CLASS_GRADIENT, _, PRED_NEITHER) : set_id_hit(ID_COLLIDE);
            (CLASS_RESEND, _, PRED_HI) : set_id_hit(ID_RELEASED);
            (CLASS_RESEND, _, PRED_LO) : set_id_hit(ID_MISS);
            (CLASS_RESEND, _, PRED_NEITHER) : set_id_hit(ID_COLLIDE);
            (CLASS_ACK, _, PRED_LO) : set_id_hit(ID_RELEASED);
            (CLASS_ACK, _, PRED_BOTH) : set_id_hit(ID_RELEASED);
            (CLASS_ACK, _, PRED_HI) : set_id_hit(ID_RELEASED_STALE);
            (CLASS_ACK, _, PRED_NEITHER) : set_id_hit(ID_MISS);
        }
    }

    apply {
        id_op.apply();
        id_outcome.apply();
    }
}

#endif
