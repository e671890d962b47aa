/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Fair share (docs/pipeline.md, "Fair share"): job_held[job] counts the
 * aggregators whose key names the job; a gradient that finds its aggregator
 * empty while its job holds its share (meta.share, from admission's
 * job_admission) claims nothing (aggregator_id's id_match_only) and goes on
 * like a collision, counted share_refusals.
 *
 * BMv2 (share_check, share_count): the check reads job_held before
 * aggregator_id and the claim or free updates it after, two accesses to one
 * register in one pass, which BMv2 allows and a Tofino stage does not.
 *
 * Tofino (share_flag, share_holder, share_held; docs/p4.md "Fair share"):
 * the count after aggregator_id, a per-job flag before it. job_held is
 * exact; job_full, the flag a gradient reads before aggregator_id, is
 * changed in the packet's next pass by a claim that reaches the share or a
 * free that leaves it (aggregator_count's count_verdict keys on held_pred
 * and gives such a packet a second pass, the operation in its side byte).
 */
#ifndef INA_P4_STAGE_FAIR_SHARE
#define INA_P4_STAGE_FAIR_SHARE

#if defined(__TARGET_TOFINO__)

/* Before aggregator_id, in both passes (index: the packet's job). First
 * pass: read the flag into at_share. Second pass: the change a crossing
 * packet carries. It keys on nothing a table writes before it, so that it
 * can sit in the first stage. */
control share_flag(inout ina_headers_t hdr, inout ina_meta_t meta) {
    Register<bit<8>, bit<32>>(65536, 0) job_full;

    RegisterAction<bit<8>, bit<32>, bit<8>>(job_full) full_read_salu = {
        void apply(inout bit<8> value, out bit<8> result) { result = value; }
    };
    RegisterAction<bit<8>, bit<32>, bit<8>>(job_full) full_set_salu = {
        void apply(inout bit<8> value) { value = 1; }
    };
    RegisterAction<bit<8>, bit<32>, bit<8>>(job_full) full_clear_salu = {
        void apply(inout bit<8> value) { value = 0; }
    };
    action full_read() {
        meta.at_share = full_read_salu.execute((bit<32>)hdr.ina.job_id);
    }
    action full_set() { full_set_salu.execute((bit<32>)hdr.ina.job_id); }
    action full_clear() { full_clear_salu.execute((bit<32>)hdr.ina.job_id); }

    table full_op {
        key = {
            hdr.ina.isValid() : exact @name("ina_valid");
            meta.second       : ternary;
            meta.side         : ternary;
        }
        actions = { full_read; full_set; full_clear; NoAction; }
        const default_action = NoAction();
        const entries = {
            (true, 0, _) : full_read();
            (true, 1, SIDE_FULL_SET &&& SIDE_FULL_SET) : full_set();
            (true, 1, SIDE_FULL_CLEAR &&& SIDE_FULL_CLEAR) : full_clear();
        }
    }

    apply {
        full_op.apply();
    }
}

/* After aggregator_id (beside aggregator_bitmap, keyed as it is): the job
 * in each aggregator's key, held once more, because aggregator_id's
 * stateful ALU returns its predicate and cannot return the cleared key's
 * job too. Its output, meta.holder, is the job whose key was set or
 * cleared: the index of job_held (a GC free clears another job's key). */
control share_holder(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_REGISTER(bit<16>, aggregator_holder, INA_AGGREGATORS);

    INA_REGISTER_ACTION(bit<16>, bit<16>, aggregator_holder, holder_set_salu, meta.row, meta.holder,
        value = hdr.ina.job_id;
        result = value;
    )
    /* A claim; also share - 1 for held_inc's test, in a stage that is
     * there anyway (a subtraction is an operation of its own). */
    action holder_set() {
        holder_set_salu();
        meta.share_m1 = meta.share - 1;
    }
    INA_REGISTER_ACTION(bit<16>, bit<16>, aggregator_holder, holder_take, meta.row, meta.holder,
        result = value;
        value = 0;
    )
    /* A refused gradient: its own job (share_held checks its count). */
    action holder_own() { meta.holder = hdr.ina.job_id; }

    table holder_op {
        key = {
            meta.cls      : ternary;
            meta.at_share : ternary;
            meta.id_pred  : ternary;
        }
        actions = { holder_set; holder_take; holder_own; NoAction; }
        const default_action = NoAction();
        const entries = {
            (CLASS_GRADIENT, 0, PRED_LO) : holder_set();   /* claimed */
            (CLASS_GRADIENT, _, PRED_LO) : holder_own();   /* refused */
            (CLASS_RESEND, _, PRED_HI) : holder_take();    /* released */
            (CLASS_ACK, _, PRED_LO) : holder_take();       /* released */
            (CLASS_ACK, _, PRED_BOTH) : holder_take();
            (CLASS_ACK, _, PRED_HI) : holder_take();       /* released stale */
        }
    }

    apply {
        holder_op.apply();
    }
}

/* job_held[holder]: +1 for a claim, -1 for every free, each returning
 * whether job_full must change (held_pred PRED_LO): a claim that reaches
 * the share (old >= share - 1) sets it, a free of the packet's own job
 * that leaves it (old == share) clears it. A GC free clears another job's
 * key, whose flag the second pass (indexed by the packet's job) cannot
 * reach; and two crossings' second passes may arrive swapped. Either can
 * leave the flag set below the share: a refused gradient checks the count
 * and, below the share, clears its job's flag (held_check). */
control share_held(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_REGISTER(bit<32>, job_held, 65536);

    INA_REGISTER_ACTION(bit<32>, pred_t, job_held, held_inc, (bit<32>)meta.holder, meta.held_pred,
        result = INA_PREDICATE1(value >= meta.share_m1);
        value = value + 1;
    )
    INA_REGISTER_ACTION(bit<32>, pred_t, job_held, held_dec, (bit<32>)meta.holder, meta.held_pred,
        result = INA_PREDICATE1(value == meta.share);
        value = value - 1;
    )
    INA_REGISTER_ACTION(bit<32>, pred_t, job_held, held_check, (bit<32>)meta.holder, meta.held_pred,
        result = INA_PREDICATE1(value < meta.share);
    )

    table held_op {
        key = {
            meta.cls    : ternary;
            meta.id_hit : ternary;
        }
        actions = { held_inc; held_dec; held_check; NoAction; }
        const default_action = NoAction();
        const entries = {
            (CLASS_GRADIENT, ID_CLAIMED) : held_inc();
            (CLASS_GRADIENT, ID_REFUSED) : held_check();
            (CLASS_RESEND, ID_RELEASED) : held_dec();
            (CLASS_ACK, ID_RELEASED) : held_dec();
            (CLASS_ACK, ID_RELEASED_STALE) : held_dec();
        }
    }

    apply {
        held_op.apply();
    }
}

#else /* v1model */

/* One word per job id, as the software switch's job_held; a top-level
 * instance so that the check and the count below share it. */
register<bit<32>>(65536) job_held;

/* Before aggregator_id: does a gradient's job hold its share? */
control share_check(inout ina_headers_t hdr, inout ina_meta_t meta) {
    apply {
        meta.at_share = 0;
        if (meta.cls == CLASS_GRADIENT) {
            bit<32> held;
            job_held.read(held, (bit<32>)hdr.ina.job_id);
            if (held >= meta.share) {
                meta.at_share = 1;
            }
        }
    }
}

/* After aggregator_id: +1 for a claim, -1 for every free, for the job whose
 * key was set or cleared (a GC free clears another job's: meta.holder). */
control share_count(inout ina_headers_t hdr, inout ina_meta_t meta) {
    apply {
        bit<32> job = (bit<32>)hdr.ina.job_id;
        bit<32> held;
        if (meta.cls == CLASS_GRADIENT && meta.id_hit == ID_CLAIMED) {
            job_held.read(held, job);
            job_held.write(job, held + 1);
        } else if (meta.cls == CLASS_RESEND && meta.id_hit == ID_RELEASED) {
            job_held.read(held, job);
            job_held.write(job, held - 1);
        } else if (meta.cls == CLASS_ACK &&
                   (meta.id_hit == ID_RELEASED || meta.id_hit == ID_RELEASED_STALE)) {
            job = (bit<32>)meta.holder;
            job_held.read(held, job);
            job_held.write(job, held - 1);
        }
    }
}

#endif /* v1model */

#endif
