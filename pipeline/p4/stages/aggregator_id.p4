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

    /* id_claim / id_match: claim if empty, refresh if equal, else collide. */
    INA_PAIR_REGISTER_ACTION(id_hit_t, aggregator_id_reg, id_claim_or_match, meta.row, meta.id_hit,
        if (value.key == 0) {
            value.key = meta.key;
            value.ts = meta.ts_now;
            result = ID_CLAIMED;
        } else if (value.key == meta.key) {
            value.ts = meta.ts_now;
            result = ID_MATCH;
        } else {
            result = ID_COLLIDE;
        }
    )

    /* id_release: a resent gradient frees its own aggregator, and reports
     * whether another <job, seq> holds it. */
    INA_PAIR_REGISTER_ACTION(id_hit_t, aggregator_id_reg, id_release, meta.row, meta.id_hit,
        if (value.key == meta.key) {
            value.key = 0;
            value.ts = 0;
            result = ID_RELEASED;
        } else if (value.key == 0) {
            result = ID_MISS;
        } else {
            result = ID_COLLIDE;
        }
    )

    /* id_release_ack: a parameter packet frees its own aggregator, or a
     * foreign one idle for longer than gc_timeout (ATP section 3.7). */
    INA_PAIR_REGISTER_ACTION(id_hit_t, aggregator_id_reg, id_release_ack, meta.row, meta.id_hit,
        if (value.key == meta.key) {
            value.key = 0;
            value.ts = 0;
            result = ID_RELEASED;
        } else if (value.ts > meta.gc_before) {
            value.key = 0;
            value.ts = 0;
            result = ID_RELEASED_STALE;
        } else {
            result = ID_MISS;
        }
    )

    apply {
        meta.id_hit = ID_NONE;
        if (meta.cls == CLASS_GRADIENT) {
            id_claim_or_match();
        } else if (meta.cls == CLASS_RESEND) {
            id_release();
        } else if (meta.cls == CLASS_ACK) {
            id_release_ack();
        }
    }
}

#endif
