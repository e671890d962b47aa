/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Fair share (docs/pipeline.md, "Fair share"): job_held[job] counts the
 * aggregators whose key names the job; a gradient that finds its aggregator
 * empty while its job holds its share (meta.share, from admission's
 * job_admission) claims nothing (aggregator_id's id_match_only) and goes on
 * like a collision, counted share_refusals.
 *
 * v1model only. The check reads job_held before aggregator_id and the claim
 * or free updates it after: two accesses to one register in one pass, which
 * BMv2 allows and a Tofino stage does not (one access per register per
 * pass). docs/p4.md, "Fair share", designs the TNA mapping (the count after
 * aggregator_id, a per-job flag before it); ina_tna.p4 leaves meta.at_share
 * 0, so its jobs have no limit.
 */
#ifndef INA_P4_STAGE_FAIR_SHARE
#define INA_P4_STAGE_FAIR_SHARE

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

#endif
