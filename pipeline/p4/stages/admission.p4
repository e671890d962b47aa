/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `admission` (switchd/src/aggregate.cpp: the job lookup, admit() and
 * the epoch check, which run before process()), and the job's share of the
 * aggregators (stages/fair_share.p4) from the same entry: a data packet of a
 * registered job is admitted only from where its registration says it comes
 * from (docs/security.md, "Data plane"). The same checks in the same order,
 * with the same counter names:
 *
 *   job not registered                 -> forwarded as plain traffic  unregistered_job
 *   ACK not from the PS's <IP, port, MAC>                       -> drop  forged_result_drops
 *   from the PS's IP: another port / another MAC                -> drop  spoof_port_drops / spoof_mac_drops
 *   not a worker's IP                                           -> drop  admission_drops
 *   a worker's IP: another port / another MAC                   -> drop  spoof_port_drops / spoof_mac_drops
 *   below the worker's first level, or not exactly its bit there -> drop  admission_drops
 *   admitted, but of another run (epoch) of an epoch-checked job -> drop  stale_epoch_drops
 *
 * Everything is an exact match on fields of the packet, filled by the
 * control plane (p4gen.py) from the same registrations as switchd's job
 * table; no comparison of two packet fields is needed, which a Tofino
 * gateway could not do (docs/p4.md). The four source tables have no data
 * dependency on one another, so a Tofino can place them in one stage and
 * decide in the gateways of the next:
 *
 *   source_ip        <job, ipv4.src>                      is it the PS's or a worker's IP
 *   source_port      <job, ipv4.src, port>                ... arriving on its port
 *   ps_admission     <job, ipv4.src, port, eth.src>       the PS, whole
 *   worker_admission <job, ipv4.src, port, eth.src, level> a worker, whole, and what
 *                    its registration says about that level (admit, check its bit, refuse)
 *
 * A packet a lookup misses is told apart by the smaller keys, so every
 * reason has its own counter: one exact table on the whole tuple would only
 * know "not admitted". The level is in the key (0..3, and 4 for any level
 * above) so that "level above the worker's first one", "below it" and
 * "at it" are the control plane's arithmetic, not a comparison of the
 * packet's level with table data.
 *
 * Packets this stage does not judge go on to `parse` as before: not INA,
 * an INA header cut short, another version, job 0 (parse counts them
 * malformed), control messages. A packet it refuses or forwards unregistered
 * skips the switch program (meta.skip_pipeline) and is counted here, in the
 * first pass: it never takes a second one.
 */
#ifndef INA_P4_STAGE_ADMISSION
#define INA_P4_STAGE_ADMISSION

control admission(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_COUNTER(admission_counter, ADM_COUNTERS);

    /* The job: registered, and the run (epoch) its packets must carry. */
    bit<1> registered_job = 0;
    bit<1> epoch_checked = 0;
    bit<8> epoch_diff = 0;
    /* flags bits 8-15 XOR the job's epoch, in the action: a Tofino gateway
     * compares a field with a constant, not with table data. */
    action registered(bit<8> epoch, bit<1> checked, bit<32> share) {
        registered_job = 1;
        epoch_checked = checked;
        epoch_diff = hdr.ina.flags[15:8] ^ epoch;
        meta.share = share;
    }
    action unregistered() {
        registered_job = 0;
    }
    table job_admission {
        key = { hdr.ina.job_id : exact @name("job_id"); }
        actions = { registered; unregistered; }
        default_action = unregistered();
        size = 1024;
    }

    /* Whose IP: the PS's (checked first, as admit() does) or a worker's. */
    adm_role_t role = ROLE_NONE;
    action ps_ip() { role = ROLE_PS; }
    action worker_ip() { role = ROLE_WORKER; }
    action stranger() { role = ROLE_NONE; }
    table source_ip {
        key = {
            hdr.ina.job_id : exact @name("job_id");
            hdr.ipv4.src   : exact @name("src_ip");
        }
        actions = { ps_ip; worker_ip; stranger; }
        default_action = stranger();
        size = 8192;
    }

    /* That IP on the port its neighbour entry names. */
    bit<1> on_port = 0;
    action right_port() { on_port = 1; }
    action other_port() { on_port = 0; }
    table source_port {
        key = {
            hdr.ina.job_id : exact @name("job_id");
            hdr.ipv4.src   : exact @name("src_ip");
            meta.in_port   : exact @name("in_port");
        }
        actions = { right_port; other_port; }
        default_action = other_port();
        size = 8192;
    }

    /* The job's PS: the only source of parameter packets (ACK) and of
     * anything else from its IP (its float requests). */
    bit<1> from_ps = 0;
    action is_ps() { from_ps = 1; }
    action not_ps() { from_ps = 0; }
    table ps_admission {
        key = {
            hdr.ina.job_id   : exact @name("job_id");
            hdr.ipv4.src     : exact @name("src_ip");
            meta.in_port     : exact @name("in_port");
            hdr.ethernet.src : exact @name("src_mac");
        }
        actions = { is_ps; not_ps; }
        default_action = not_ps();
        size = 1024;
    }

    /* A worker at one level: above its first level (a lower switch's
     * result) or past the job's levels it is admitted as is; at its first
     * level its bitmap must be exactly its bit; below it, refused. */
    adm_rule_t rule = RULE_NO_MATCH;
    bit<32> bit_diff = 0;
    action admit_level() { rule = RULE_ADMIT; }
    /* bitmap[level] XOR the worker's bit, in the action (see epoch_diff). */
    action check_bit(bit<32> mask) {
        rule = RULE_CHECK_BIT;
        bit_diff = meta.bitmap ^ mask;
    }
    action below_first_level() { rule = RULE_BELOW_START; }
    action no_match() { rule = RULE_NO_MATCH; }
    table worker_admission {
        key = {
            hdr.ina.job_id   : exact @name("job_id");
            hdr.ipv4.src     : exact @name("src_ip");
            meta.in_port     : exact @name("in_port");
            hdr.ethernet.src : exact @name("src_mac");
            meta.level_key   : exact @name("level");
        }
        actions = { admit_level; check_bit; below_first_level; no_match; }
        default_action = no_match();
        size = 16384;
    }

    /* The run check, as a fact of its own (a gateway on job_admission's
     * results, one stage before the decision). */
    bit<1> stale = 0;

    /* The decision: one ternary table over the facts above, entries in
     * admit()'s order (the first that matches wins). It runs beside
     * parse's and filter's decision (filter.p4, `classify`) in the same
     * stage: a chain of gateways here, each waiting for the one before,
     * took four stages. `judged` packets are the data packets of a nonzero
     * job with a readable header; the others are parse's business. */
    action admitted() {
        meta.skip_pipeline = 0;
        meta.adm_reason = ADM_NONE;
    }
    action refuse(adm_reason_t why) {
        meta.skip_pipeline = 1;
        meta.adm_verdict = VERDICT_DROP;
        meta.adm_reason = why;
    }
    action forward_unregistered() {
        meta.skip_pipeline = 1;
        meta.adm_verdict = VERDICT_PASS;
        meta.adm_reason = ADM_unregistered_job;
    }
    table admit {
        key = {
            meta.is_ina       : ternary @name("is_ina");
            hdr.ina.isValid() : ternary @name("ina_valid");
            hdr.ina.version   : ternary @name("version");
            hdr.ina.type      : ternary @name("type");
            hdr.ina.job_id    : ternary @name("job_id");
            hdr.ina.flags     : ternary @name("flags");
            registered_job    : ternary;
            role              : ternary;
            on_port           : ternary;
            from_ps           : ternary;
            rule              : ternary;
            bit_diff          : ternary;
            stale             : ternary;
        }
        actions = { admitted; refuse; forward_unregistered; }
        const default_action = admitted();
        const entries = {
            /* Not judged here: not INA, no readable header, a control message,
             * job 0, another version (every entry below names INA_VERSION). */
            (0, _, _, _, _, _, _, _, _, _, _, _, _) : admitted();
            (_, false, _, _, _, _, _, _, _, _, _, _, _) : admitted();
            (_, _, _, INA_TYPE_CONTROL, _, _, _, _, _, _, _, _, _) : admitted();
            (_, _, _, _, 0, _, _, _, _, _, _, _, _) : admitted();
            /* Plain traffic: the PS-only baseline, a job aggregated at other
             * switches, or one not registered yet. */
            (_, _, INA_VERSION, _, _, _, 0, _, _, _, _, _, _) : forward_unregistered();
            /* Results only from the job's PS. */
            (_, _, INA_VERSION, _, _, INA_F_ACK &&& INA_F_ACK, _, _, _, 0, _, _, _) :
                refuse(ADM_forged_result_drops);
            (_, _, INA_VERSION, _, _, INA_F_ACK &&& INA_F_ACK, _, _, _, _, _, _, 1) :
                refuse(ADM_stale_epoch_drops);
            (_, _, INA_VERSION, _, _, INA_F_ACK &&& INA_F_ACK, _, _, _, _, _, _, _) : admitted();
            /* The PS's IP: its port, then its MAC. */
            (_, _, INA_VERSION, _, _, _, _, ROLE_PS, 0, _, _, _, _) : refuse(ADM_spoof_port_drops);
            (_, _, INA_VERSION, _, _, _, _, ROLE_PS, _, 0, _, _, _) : refuse(ADM_spoof_mac_drops);
            (_, _, INA_VERSION, _, _, _, _, ROLE_PS, _, _, _, _, 1) : refuse(ADM_stale_epoch_drops);
            (_, _, INA_VERSION, _, _, _, _, ROLE_PS, _, _, _, _, _) : admitted();
            /* Not a member. */
            (_, _, INA_VERSION, _, _, _, _, ROLE_NONE, _, _, _, _, _) : refuse(ADM_admission_drops);
            /* A worker's IP: its port, its MAC (no entry), its level. */
            (_, _, INA_VERSION, _, _, _, _, _, 0, _, _, _, _) : refuse(ADM_spoof_port_drops);
            (_, _, INA_VERSION, _, _, _, _, _, _, _, RULE_NO_MATCH, _, _) : refuse(ADM_spoof_mac_drops);
            (_, _, INA_VERSION, _, _, _, _, _, _, _, RULE_BELOW_START, _, _) : refuse(ADM_admission_drops);
            /* At its first level: exactly its bit (bit_diff 0), else refused. */
            (_, _, INA_VERSION, _, _, _, _, _, _, _, RULE_CHECK_BIT, 0, 1) : refuse(ADM_stale_epoch_drops);
            (_, _, INA_VERSION, _, _, _, _, _, _, _, RULE_CHECK_BIT, 0, _) : admitted();
            (_, _, INA_VERSION, _, _, _, _, _, _, _, RULE_CHECK_BIT, _, _) : refuse(ADM_admission_drops);
            /* Admitted as is (RULE_ADMIT), after the run check, as in
             * aggregate(): a packet of another run never reaches the
             * aggregators. */
            (_, _, INA_VERSION, _, _, _, _, _, _, _, _, _, 1) : refuse(ADM_stale_epoch_drops);
        }
    }

    apply {
        /* The level's key and bitmap are parse's (parse.p4, `level_fields`,
         * applied before this control): any level above 3 is key 4, past
         * every job's levels (at most 4). */
        job_admission.apply();
        source_ip.apply();
        source_port.apply();
        ps_admission.apply();
        worker_admission.apply();
        if (epoch_checked == 1 && epoch_diff != 0) {
            stale = 1;
        }
        admit.apply();
        if (meta.adm_reason != ADM_NONE) {
            INA_COUNT(admission_counter, meta.adm_reason);
        }
    }
}

#endif
