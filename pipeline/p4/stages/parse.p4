/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `parse` (process.cpp parse()): classify INA vs other traffic and
 * validate the INA header, in the same order as the C++ stage so that a
 * packet with several defects is counted under the same malformed_* reason.
 * The byte extraction itself is done by the architecture's parser (the
 * TNA and v1model wrappers); this control only judges what was extracted.
 */
#ifndef INA_P4_STAGE_PARSE
#define INA_P4_STAGE_PARSE

control parse(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* Bits a level's bitmap may use under its fan-in: (1 << fan_in) - 1.
     * A table, because Tofino's ALUs shift by constants only. */
    action set_allowed(bit<32> allowed) { meta.allowed = allowed; }
    table fan_in_mask {
        key = { meta.fan_in : exact; }
        actions = { set_allowed; }
        const default_action = set_allowed(0);
        size = 64;
        const entries = {
            1 : set_allowed(0x00000001);  2 : set_allowed(0x00000003);
            3 : set_allowed(0x00000007);  4 : set_allowed(0x0000000F);
            5 : set_allowed(0x0000001F);  6 : set_allowed(0x0000003F);
            7 : set_allowed(0x0000007F);  8 : set_allowed(0x000000FF);
            9 : set_allowed(0x000001FF); 10 : set_allowed(0x000003FF);
           11 : set_allowed(0x000007FF); 12 : set_allowed(0x00000FFF);
           13 : set_allowed(0x00001FFF); 14 : set_allowed(0x00003FFF);
           15 : set_allowed(0x00007FFF); 16 : set_allowed(0x0000FFFF);
           17 : set_allowed(0x0001FFFF); 18 : set_allowed(0x0003FFFF);
           19 : set_allowed(0x0007FFFF); 20 : set_allowed(0x000FFFFF);
           21 : set_allowed(0x001FFFFF); 22 : set_allowed(0x003FFFFF);
           23 : set_allowed(0x007FFFFF); 24 : set_allowed(0x00FFFFFF);
           25 : set_allowed(0x01FFFFFF); 26 : set_allowed(0x03FFFFFF);
           27 : set_allowed(0x07FFFFFF); 28 : set_allowed(0x0FFFFFFF);
           29 : set_allowed(0x1FFFFFFF); 30 : set_allowed(0x3FFFFFFF);
           31 : set_allowed(0x7FFFFFFF); 32 : set_allowed(0xFFFFFFFF);
        }
    }

    /* GOAT split sub-models (docs/goat.md, "Split sub-models"): the
     * children a plan gives a range of this switch's aggregators for a job,
     * in place of the fragment's fan-in and the bits below it (switchd's
     * GOAT table, ina::Children in process.cpp). Every entry carries this
     * switch's id as agg_node, so fragments for other switches miss, as in
     * C++; the control plane fills it from the PS's GOAT control message. */
    action set_children(bit<8> fan_in, bit<32> allowed) {
        meta.fan_in = fan_in;
        meta.allowed = allowed;
    }
    table goat_children {
        key = {
            hdr.ina.job_id    : exact;
            hdr.ina.agg_node  : exact;
            /* The low 16 bits: a Tofino range match takes at most 5
             * nibbles of key, and where this table is applied the index is
             * below `aggregators` (at most 65536; malformed_index before
             * it), so its high half is 0. Named as the whole field, so the
             * control plane's key (agg_index_start / _end) stays. */
            hdr.ina.agg_index[15:0] : range @name("hdr.ina.agg_index");
        }
        actions = { set_children; NoAction; }
        const default_action = NoAction();
        size = 1024;
    }

    action malformed(reason_t why) {
        meta.verdict = VERDICT_DROP;
        meta.reason = why;
    }

    /* Comparisons of two fields are subtractions whose sign bit a gateway
     * then tests: a Tofino gateway compares a field with a constant only.
     * They are actions of a table so that the compiler keeps the
     * differences as fields rather than folding them back into the
     * conditions. The bounds make each sign bit exact: elements <= 62 and
     * elem_count <= 62 where it is read (the constant test before it),
     * levels and level <= 4 likewise, aggregators <= 65536 and an index
     * with a high half set is out of range anyway. */
    bit<16> elems_left = 0;
    bit<8>  levels_left = 0;
    bit<32> index_left = 0;
    bit<32> outside = 0;
    /* The UDP length check, udp.length == INA_UDP_FIXED_LEN + 4 * elem_count
     * (process.cpp computes it in 32 bits): the two sides in this action,
     * one ALU operation each, their difference in the next table's. All
     * 16 bits wide like the header fields they come from (Tofino's ALUs
     * take operands of one container size: a 32-bit difference of 16-bit
     * fields could not be placed in PHV). A count above
     * INA_LENGTH_MAX_COUNT needs more than 65535 bytes, so no 16-bit length
     * matches it; the 16-bit difference could wrap onto 0 only for such a
     * count, which count_room's sign and the count's top bits catch. */
    bit<16> udp_body = 0;
    bit<16> elem_bytes = 0;
    bit<16> length_diff = 0;
    bit<16> count_room = 0;
    /* elem_count against the build's maximum; exact once the length check
     * has passed (count <= INA_LENGTH_MAX_COUNT). A gateway's `>` on the
     * count did not fit beside the conditions merged with it ("limit of 4
     * bytes + 12 bits of PHV input"). */
    bit<16> max_left = 0;
    action differences() {
        elems_left = meta.cfg.elements - hdr.ina.elem_count;
        levels_left = hdr.ina.levels - hdr.ina.level;
        index_left = hdr.ina.agg_index - meta.cfg.aggregators;
        max_left = INA_P4_MAX_ELEMENTS - hdr.ina.elem_count;
        count_room = INA_LENGTH_MAX_COUNT - hdr.ina.elem_count;
        udp_body = hdr.udp.length - INA_UDP_FIXED_LEN;
        elem_bytes = hdr.ina.elem_count << 2;
    }
    table compare {
        actions = { differences; }
        const default_action = differences();
        size = 1;
    }
    action length_difference() {
        length_diff = udp_body - elem_bytes;
    }
    table compare_length {
        actions = { length_difference; }
        const default_action = length_difference();
        size = 1;
    }
    /* The bitmap's bits outside the fan-in's. */
    action bits_outside() {
        outside = meta.bitmap & ~meta.allowed;
    }
    table compare_bitmap {
        actions = { bits_outside; }
        const default_action = bits_outside();
        size = 1;
    }

    apply {
        compare.apply();
        compare_length.apply();
        bool index_over = hdr.ina.agg_index[31:16] != 0 || index_left[31:31] == 0;
        meta.reason = CTR_NONE;
        if (meta.is_ina == 0) {
            meta.verdict = VERDICT_PASS;
            meta.reason = CTR_pass_through;
        } else if (!hdr.ina.isValid()) {
            malformed(CTR_malformed_short);
        } else if (hdr.ina.version != INA_VERSION) {
            malformed(CTR_malformed_version);
        } else if (hdr.ina.type == INA_TYPE_CONTROL) {
            /* filter hands it to the control plane */
        } else if (hdr.ina.type != INA_TYPE_DATA) {
            malformed(CTR_malformed_type);
        } else {
            bool ack = (hdr.ina.flags & INA_F_ACK) != 0;
            /* The frame length is known on BMv2 only; on Tofino a frame
             * shorter than its headers is cut off by the parser, and
             * frame_len is 0 (comparing it with a sum of fields would be a
             * comparison of two fields, which a Tofino gateway cannot do). */
#if defined(__TARGET_TOFINO__)
            bool truncated = meta.parse_short == 1;
#else
            bit<32> options = ((bit<32>)hdr.ipv4.ihl - 5) << 2;
            bool truncated = meta.parse_short == 1 ||
                (meta.frame_len != 0 &&
                 meta.frame_len < INA_PAYLOAD_OFFSET + options + (bit<32>)elem_bytes);
#endif
            if (length_diff != 0 || hdr.ina.elem_count[15:14] != 0 || count_room[15:15] == 1) {
                malformed(CTR_malformed_length);
            } else if (truncated) {
                malformed(CTR_malformed_short);
            } else if (max_left[15:15] == 1) {
                malformed(CTR_malformed_elements);
            } else if (elems_left[15:15] == 1) {
                /* above `elements` (two gateways: one would read too many
                 * bytes) */
                malformed(CTR_malformed_elements);
            } else if (hdr.ina.job_id == 0) {
                malformed(CTR_malformed_job);
            } else if (index_over && !ack) {
                malformed(CTR_malformed_index);
            } else if (hdr.ina.levels > INA_MAX_LEVELS || hdr.ina.level > INA_MAX_LEVELS ||
                       levels_left[7:7] == 1) {
                malformed(CTR_malformed_level);
            } else if (levels_left != 0 && !ack) {
                /* Validate at every level, as the software switch does, even
                 * though this build aggregates at levels 0 and 1 only. */
                if (hdr.ina.level == 0) {
                    meta.bitmap = hdr.ina.bitmap0;
                    meta.fan_in = hdr.ina.fan_in0;
                } else if (hdr.ina.level == 1) {
                    meta.bitmap = hdr.ina.bitmap1;
                    meta.fan_in = hdr.ina.fan_in1;
                } else if (hdr.ina.level == 2) {
                    meta.bitmap = hdr.ina.bitmap2;
                    meta.fan_in = hdr.ina.fan_in2;
                } else {
                    meta.bitmap = hdr.ina.bitmap3;
                    meta.fan_in = hdr.ina.fan_in3;
                }
                fan_in_mask.apply();
                if ((hdr.ina.flags & (INA_F_BYPASS | INA_F_FLOAT)) == 0) {
                    goat_children.apply();
                }
                compare_bitmap.apply();
                if (meta.fan_in == 0 || meta.fan_in > INA_BITMAP_BITS) {
                    malformed(CTR_malformed_fan_in);
                } else if (meta.bitmap == 0 || outside != 0) {
                    malformed(CTR_malformed_bitmap);
                }
            }
        }
        /* The identifier as the aggregator_id register holds it: a Tofino
         * stateful ALU compares at most 32 bits of a word per condition, and
         * the word's other half holds the timestamp, so the 48-bit
         * <job, seq> becomes job ++ seq[15:0], and the job's epoch (flags
         * bits 8-15) is folded into the seq half: job ++ (seq[15:0] ^
         * epoch << 8), so a slot of a dead run is a collision for the next
         * one (docs/p4.md). job != 0 keeps key 0 free to mean "empty". */
        meta.key = hdr.ina.job_id ++ (hdr.ina.seq[15:0] ^ (hdr.ina.flags[15:8] ++ 8w0));
        meta.row = hdr.ina.agg_index;
    }
}

#endif
