/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `filter` (process.cpp process(), between parse and the registers):
 * control messages, A2TP bypass, float payloads, GOAT's aggregation-node
 * filter and packets past their levels leave here untouched; what is left is
 * classified for the register stages as gradient, resent gradient or
 * parameter packet.
 *
 * The verdict of parse and filter is one ternary table, `classify`, over
 * the facts parse.p4 and this control compute: its entries are the C++
 * checks in their order, the first that matches wins. On Tofino every
 * condition of an if / else-if chain waits for the table before it, and
 * the two stages' chains took eleven pipeline stages; one TCAM lookup
 * takes one. A check that is a negation ("length differs", "not this
 * switch") is written the TCAM way: later entries require the good value,
 * and an entry after them catches the rest.
 */
#ifndef INA_P4_STAGE_FILTER
#define INA_P4_STAGE_FILTER

control filter(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* GOAT's aggregation-node filter: the fragment names another switch. */
    bit<1> other_node = 0;
    /* now past gc_timeout, by subtraction (gc_timeout is below 2^31, p4gen
     * caps it, so a clock with its top bit set is past it). */
    bit<32> clock_left = 0;
    action clock_difference() {
        clock_left = meta.cfg.gc_timeout - meta.now;
        /* elements > INA_ONE_PASS_ELEMENTS_16: a claim zeroes two rows (value_rows) */
        meta.row_lanes_left = INA_ONE_PASS_ELEMENTS_16 - meta.cfg.elements;
    }
    table compare {
        actions = { clock_difference; }
        const default_action = clock_difference();
        size = 1;
    }

    action pass_through() {
        meta.verdict = VERDICT_PASS;
        meta.reason = CTR_pass_through;
        meta.cls = CLASS_NONE;
    }
    action malformed(reason_t why) {
        meta.verdict = VERDICT_DROP;
        meta.reason = why;
        meta.cls = CLASS_NONE;
    }
    action control_message() {
        meta.verdict = VERDICT_CONTROL;
        meta.reason = CTR_control;
        meta.cls = CLASS_NONE;
    }
    action forward_untouched(reason_t why) {
        meta.verdict = VERDICT_DOWNSTREAM;
        meta.reason = why;
        meta.cls = CLASS_NONE;
    }
    /* A parameter packet for an index this switch does not have still
     * reaches the workers; it frees nothing. */
    action ack_unmatched() {
        meta.verdict = VERDICT_MULTICAST;
        meta.reason = CTR_ack_unmatched;
        meta.side = SIDE_MULTICAST;
        meta.cls = CLASS_NONE;
    }
    /* For the register stages, which set verdict and reason. */
    action to_registers(ina_class_t cls) {
        meta.reason = CTR_NONE;
        meta.cls = cls;
    }

    table classify {
        key = {
            meta.is_ina             : ternary @name("is_ina");
            hdr.ina.isValid()       : ternary @name("ina_valid");
            hdr.ina.version         : ternary @name("version");
            hdr.ina.type            : ternary @name("type");
            hdr.ina.flags           : ternary @name("flags");
            meta.length_diff        : ternary @name("length_diff");
            hdr.ina.elem_count[15:14] : ternary @name("count_high");
            meta.count_room[15:15]  : ternary @name("count_room_sign");
            meta.parse_short        : ternary @name("short");
            meta.max_left[15:15]    : ternary @name("max_left_sign");
            meta.elems_left[15:15]  : ternary @name("elems_left_sign");
            hdr.ina.job_id          : ternary @name("job_id");
            meta.index_over         : ternary @name("index_over");
            meta.index_room         : ternary @name("index_room");
            meta.level_bad          : ternary @name("level_bad");
            meta.levels_left        : ternary @name("levels_left");
            meta.goat_check         : ternary @name("goat_check");
            meta.plain_check        : ternary @name("plain_check");
            other_node              : ternary @name("other_node");
            hdr.ina.level           : ternary @name("level");
        }
        actions = { pass_through; malformed; control_message; forward_untouched;
                    ack_unmatched; to_registers; }
        /* Readable, but another version than INA_VERSION: every entry
         * below that gets this far names it. */
        const default_action = malformed(CTR_malformed_version);
        const entries = {
            /* parse(): not INA, or its header cut short */
            (0, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : pass_through();
            (_, false, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : malformed(CTR_malformed_short);
            /* filter hands control messages to the control plane */
            (_, _, INA_VERSION, INA_TYPE_CONTROL, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : control_message();
            /* Data packets from here on (a readable INA header of this
             * version). The length: every later entry requires a length
             * difference of 0 and the count within 16 bits' worth of
             * bytes; the entry after them catches a data packet whose
             * length is wrong. */
            (_, _, INA_VERSION, INA_TYPE_DATA, _, 0, 0, 0, 1, _, _, _, _, _, _, _, _, _, _, _) : malformed(CTR_malformed_short);
            (_, _, INA_VERSION, INA_TYPE_DATA, _, 0, 0, 0, _, 1, _, _, _, _, _, _, _, _, _, _) : malformed(CTR_malformed_elements);
            (_, _, INA_VERSION, INA_TYPE_DATA, _, 0, 0, 0, _, _, 1, _, _, _, _, _, _, _, _, _) : malformed(CTR_malformed_elements);
            (_, _, INA_VERSION, INA_TYPE_DATA, _, 0, 0, 0, _, _, _, 0, _, _, _, _, _, _, _, _) : malformed(CTR_malformed_job);
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, 1, _, _, _, _, _, _, _) : malformed(CTR_malformed_index);
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, 0, _, _, _, _, _, _) : malformed(CTR_malformed_index);
            (_, _, INA_VERSION, INA_TYPE_DATA, _, 0, 0, 0, _, _, _, _, _, _, 1, _, _, _, _, _) : malformed(CTR_malformed_level);
            /* A gradient past its levels: parse checks no fan-in, filter
             * forwards it (bypass, float and GOAT come first there). */
            (_, _, INA_VERSION, INA_TYPE_DATA, INA_F_BYPASS &&& (INA_F_ACK | INA_F_BYPASS), 0, 0, 0, _, _, _, _, _, _, _, 0, _, _, _, _) : forward_untouched(CTR_bypass);
            (_, _, INA_VERSION, INA_TYPE_DATA, INA_F_FLOAT &&& (INA_F_ACK | INA_F_FLOAT), 0, 0, 0, _, _, _, _, _, _, _, 0, _, _, _, _) : forward_untouched(CTR_float_forwarded);
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, 0, _, _, 1, _) : forward_untouched(CTR_goat_forwarded);
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, 0, _, _, _, _) : forward_untouched(CTR_past_levels);
            /* parse(): a gradient's fan-in and bitmap, the GOAT children's
             * when goat_children matched (it is not applied to BYPASS or
             * FLOAT packets) */
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, _, CHECK_BITMAP, _, _, _) : malformed(CTR_malformed_bitmap);
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, _, CHECK_NONE, CHECK_FAN_IN, _, _) : malformed(CTR_malformed_fan_in);
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, _, CHECK_NONE, CHECK_BITMAP, _, _) : malformed(CTR_malformed_bitmap);
            /* filter */
            (_, _, INA_VERSION, INA_TYPE_DATA, INA_F_BYPASS &&& (INA_F_ACK | INA_F_BYPASS), 0, 0, 0, _, _, _, _, _, _, _, _, _, _, _, _) : forward_untouched(CTR_bypass);
            (_, _, INA_VERSION, INA_TYPE_DATA, INA_F_FLOAT &&& (INA_F_ACK | INA_F_FLOAT), 0, 0, 0, _, _, _, _, _, _, _, _, _, _, _, _) : forward_untouched(CTR_float_forwarded);
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, _, _, _, 1, _) : forward_untouched(CTR_goat_forwarded);
            /* Levels 2 and 3 (and 4 of a 4-level job, past its levels
             * above): the P4 build implements ATP's two levels (docs/p4.md);
             * the software switch would aggregate here. */
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, _, _, _, _, 2) : forward_untouched(CTR_past_levels);
            (_, _, INA_VERSION, INA_TYPE_DATA, 0 &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, _, _, _, _, 3) : forward_untouched(CTR_past_levels);
            (_, _, INA_VERSION, INA_TYPE_DATA, INA_F_ACK &&& INA_F_ACK, 0, 0, 0, _, _, _, _, 1, _, _, _, _, _, _, _) : ack_unmatched();
            (_, _, INA_VERSION, INA_TYPE_DATA, INA_F_ACK &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, 0, _, _, _, _, _, _) : ack_unmatched();
            (_, _, INA_VERSION, INA_TYPE_DATA, INA_F_ACK &&& INA_F_ACK, 0, 0, 0, _, _, _, _, _, _, _, _, _, _, _, _) : to_registers(CLASS_ACK);
            (_, _, INA_VERSION, INA_TYPE_DATA, INA_F_RESEND &&& INA_F_RESEND, 0, 0, 0, _, _, _, _, _, _, _, _, _, _, _, _) : to_registers(CLASS_RESEND);
            (_, _, INA_VERSION, INA_TYPE_DATA, _, 0, 0, 0, _, _, _, _, _, _, _, _, _, _, _, _) : to_registers(CLASS_GRADIENT);
            /* A data packet no entry above took: its length is wrong. */
            (_, _, INA_VERSION, INA_TYPE_DATA, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : malformed(CTR_malformed_length);
            /* Neither data nor control. */
            (_, _, INA_VERSION, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : malformed(CTR_malformed_type);
        }
    }

    /* Flags the aggregator keeps from this packet (agg_flags_of), one
     * lookup rather than three dependent ORs. */
    action set_flags_in(bit<8> flags) { meta.flags_in = flags; }
    table agg_flags_of {
        key = { hdr.ina.flags : ternary; }
        actions = { set_flags_in; }
        const default_action = set_flags_in(0);
        const entries = {
            (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW) &&& (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW) : set_flags_in(AGG_ECN | AGG_COL | AGG_OVERFLOW);
            (INA_F_ECN | INA_F_COL) &&& (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW) : set_flags_in(AGG_ECN | AGG_COL);
            (INA_F_ECN | INA_F_OVERFLOW) &&& (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW) : set_flags_in(AGG_ECN | AGG_OVERFLOW);
            (INA_F_COL | INA_F_OVERFLOW) &&& (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW) : set_flags_in(AGG_COL | AGG_OVERFLOW);
            INA_F_ECN &&& (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW) : set_flags_in(AGG_ECN);
            INA_F_COL &&& (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW) : set_flags_in(AGG_COL);
            INA_F_OVERFLOW &&& (INA_F_ECN | INA_F_COL | INA_F_OVERFLOW) : set_flags_in(AGG_OVERFLOW);
        }
    }

    apply {
        if (hdr.ina.agg_node != INA_AGG_NODE_ANY && meta.node_diff != 0) {
            other_node = 1;
        }
        compare.apply();
        agg_flags_of.apply();
        classify.apply();
        /* A claim's row takes two passes when the packet or the row is
         * longer than one pass's lanes (aggregator_count's verdict). The
         * comparisons with the one-pass elements are sign bits: elem_count and
         * `elements` are at most 62 where this matters (parse, p4gen). */
        if (meta.count_lanes_left[15:15] == 1 || meta.row_lanes_left[15:15] == 1) {
            meta.two_rows = 1;
        }
        /* GC: a foreign aggregator last written before now - timeout is
         * stale (process.cpp id_release_ack). The register holds the
         * timestamp inverted (aggregator_id.p4), so the test becomes
         * "stored > ~(now - timeout)"; 0 never matches. ~(now - timeout) is
         * ~now + timeout: one ALU operation, as a Tofino action has one per
         * field. The bound takes ts_now's place in a parameter packet (it
         * writes no timestamp): a stateful ALU reads at most two PHV
         * fields, and aggregator_id's register actions read the key and
         * this. Set for every ACK, whatever classify says: only a
         * CLASS_ACK packet reaches the register. */
        if ((hdr.ina.flags & INA_F_ACK) != 0) {
            if (meta.cfg.gc_timeout != 0 && (meta.now[31:31] == 1 || clock_left[31:31] == 1)) {
                meta.ts_now = meta.ts_now + meta.cfg.gc_timeout;
            } else {
                meta.ts_now = 0xFFFFFFFF;
            }
        }
        /* The fan-in the count compares with: the GOAT children's where
         * goat_children matched. */
        if (meta.goat_check == CHECK_OK) {
            meta.fan_in = meta.goat_fan_in;
            meta.fan_in_m1 = meta.goat_fan_in - 1;
        }
    }
}

#endif
