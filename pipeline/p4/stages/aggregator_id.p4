/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_id`: the identifier <job, seq> and the time of the last
 * aggregation, one pair register word per aggregator. Three RegisterActions,
 * one per process.cpp function; which one runs is decided by the packet's
 * class, never by the register's content, because a Tofino stage picks its
 * stateful ALU instruction before it reads the word.
 *
 * Word layout: key = job ++ seq[15:0] (0 = empty), ts = ~now of the last
 * claim or match. Storing the timestamp inverted makes an empty word (all
 * zeros, the reset state of both targets) look infinitely young, so the GC
 * test needs no third condition for "occupied": a stateful ALU has two.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_ID
#define INA_P4_STAGE_AGGREGATOR_ID

control aggregator_id(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_PAIR_REGISTER(aggregator_id_reg, INA_AGGREGATORS);

    /* Each register action returns the word's old key (or 0), and the
     * outcome (id_hit) is derived from it below: a Tofino stateful ALU has
     * one output and cannot return a different constant per branch. */
    bit<32> old_key = 0;

    /* id_claim / id_match: claim if empty, refresh if equal, else collide.
     * old 0: claimed; old == key: match; else collide. */
    INA_PAIR_REGISTER_ACTION(bit<32>, aggregator_id_reg, id_claim_or_match, meta.row, old_key,
        result = value.key;
        if (value.key == 0) {
            value.key = meta.key;
            value.ts = meta.ts_now;
        } else if (value.key == meta.key) {
            value.ts = meta.ts_now;
        }
    )

    /* id_match_only: the job holds its share (fair_share.p4): refresh if
     * equal, never claim; an empty word stays empty. old 0: refused. */
    INA_PAIR_REGISTER_ACTION(bit<32>, aggregator_id_reg, id_match_only, meta.row, old_key,
        result = value.key;
        if (value.key == meta.key) {
            value.ts = meta.ts_now;
        }
    )

    /* id_release: a resent gradient frees its own aggregator, and reports
     * whether another <job, seq> holds it. old == key: released; old 0:
     * miss; else collide. */
    INA_PAIR_REGISTER_ACTION(bit<32>, aggregator_id_reg, id_release, meta.row, old_key,
        result = value.key;
        if (value.key == meta.key) {
            value.key = 0;
            value.ts = 0;
        }
    )

    /* id_release_ack: a parameter packet frees its own aggregator, or a
     * foreign one idle for longer than gc_timeout (ATP section 3.7). The
     * old key is returned only when the word is freed: old == key:
     * released; other nonzero: released stale; 0: miss (an empty word's
     * timestamp, 0, is never stale). For a parameter packet ts_now holds
     * the GC bound, ~(now - gc_timeout) (filter.p4): a stateful ALU has two
     * PHV inputs, the key and this. */
    INA_PAIR_REGISTER_ACTION(bit<32>, aggregator_id_reg, id_release_ack, meta.row, old_key,
        result = 0;
        if (value.key == meta.key || value.ts > meta.ts_now) {
            result = value.key;
            value.key = 0;
            value.ts = 0;
        }
    )

    apply {
        meta.id_hit = ID_NONE;
        if (meta.cls == CLASS_GRADIENT) {
            /* Chosen by the share test before the register, as every
             * action here is chosen before the word is read. */
            if (meta.at_share == 1) {
                id_match_only();
            } else {
                id_claim_or_match();
            }
            if (old_key == 0 && meta.at_share == 1) {
                meta.id_hit = ID_REFUSED;
            } else if (old_key == 0) {
                meta.id_hit = ID_CLAIMED;
            } else if (old_key == meta.key) {
                meta.id_hit = ID_MATCH;
            } else {
                meta.id_hit = ID_COLLIDE;
            }
        } else if (meta.cls == CLASS_RESEND) {
            id_release();
            if (old_key == meta.key) {
                meta.id_hit = ID_RELEASED;
            } else if (old_key == 0) {
                meta.id_hit = ID_MISS;
            } else {
                meta.id_hit = ID_COLLIDE;
            }
        } else if (meta.cls == CLASS_ACK) {
            id_release_ack();
            meta.holder = old_key[31:16];
            if (old_key == meta.key) {
                meta.id_hit = ID_RELEASED;
            } else if (old_key != 0) {
                meta.id_hit = ID_RELEASED_STALE;
            } else {
                meta.id_hit = ID_MISS;
            }
        }
    }
}

#endif
