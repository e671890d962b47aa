/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `parse` (process.cpp parse()): the facts that classify INA vs
 * other traffic and validate the INA header. The verdict on them is
 * filter.p4's `classify`, whose entries follow the C++ stage's order so
 * that a packet with several defects is counted under the same
 * malformed_* reason. The byte extraction itself is done by the
 * architecture's parser (the TNA and v1model wrappers).
 */
#ifndef INA_P4_STAGE_PARSE
#define INA_P4_STAGE_PARSE

control parse(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* GOAT split sub-models (docs/goat.md, "Split sub-models"): the
     * children a plan gives a range of this switch's aggregators for a job,
     * in place of the fragment's fan-in and the bits below it (switchd's
     * GOAT table, ina::Children in process.cpp). Every entry carries this
     * switch's id as agg_node, so fragments for other switches miss, as in
     * C++; the control plane fills it from the PS's GOAT control message. */
    action set_children(bit<8> fan_in) {
        meta.goat_check = CHECK_OK;
        meta.goat_fan_in = fan_in;
    }
    action children_bitmap_bad() {
        meta.goat_check = CHECK_BITMAP;
    }
    table goat_children {
        key = {
            hdr.ina.job_id    : exact;
            hdr.ina.agg_node  : exact;
            /* The low 16 bits: a Tofino range match takes at most 5
             * nibbles of key, and a packet whose index has a high half set
             * is malformed_index whatever this table says. Named as the
             * whole field, so the control plane's key (agg_index_start /
             * _end) stays. */
            hdr.ina.agg_index[15:0] : range @name("hdr.ina.agg_index");
            /* The children's bitmap test in the same lookup, as in
             * bitmap_check: per range one entry for a zero bitmap
             * (children_bitmap_bad), one for a bitmap within the children's
             * bits (value 0, mask ~allowed: set_children), one for any
             * other (children_bitmap_bad); p4gen writes all three. */
            meta.bitmap : ternary @name("bitmap");
        }
        actions = { set_children; children_bitmap_bad; NoAction; }
        const default_action = NoAction();
        size = 1024;
    }

    /* The UDP length check, udp.length == INA_UDP_FIXED_LEN + 4 * elem_count
     * (process.cpp computes it in 32 bits): the two sides in this action,
     * one ALU operation each, their difference in the next table's. All
     * 16 bits wide like the header fields they come from (Tofino's ALUs
     * take operands of one container size: a 32-bit difference of 16-bit
     * fields could not be placed in PHV). A count above
     * INA_LENGTH_MAX_COUNT needs more than 65535 bytes, so no 16-bit length
     * matches it; the 16-bit difference could wrap onto 0 only for such a
     * count, which count_room's sign and the count's top bits catch.
     * max_left: elem_count against the build's maximum, exact once the
     * length check has passed. Comparisons of two fields are subtractions
     * whose sign bit is then tested (a Tofino gateway compares a field
     * with a constant only), in a table's action so that the compiler
     * keeps the differences as fields. The differences against the
     * configuration (elems_left, index_room) are switch_config's, computed
     * by its action with its data. */
    bit<16> udp_body = 0;
    action differences() {
        meta.levels_left = hdr.ina.levels - hdr.ina.level;
        meta.max_left = INA_P4_MAX_ELEMENTS - hdr.ina.elem_count;
        meta.count_room = INA_LENGTH_MAX_COUNT - hdr.ina.elem_count;
        udp_body = hdr.udp.length - INA_UDP_FIXED_LEN;
        meta.elem_bytes = hdr.ina.elem_count << 2;
        /* elem_count > INA_ONE_PASS_ELEMENTS_16: a second pass (value_rows) */
        meta.count_lanes_left = INA_ONE_PASS_ELEMENTS_16 - hdr.ina.elem_count;
    }
    table compare {
        actions = { differences; }
        const default_action = differences();
        size = 1;
    }
    action length_difference() {
        meta.length_diff = udp_body - meta.elem_bytes;
    }
    table compare_length {
        actions = { length_difference; }
        const default_action = length_difference();
        size = 1;
    }

    /* The level's fields (process.cpp reads bitmap[level] and
     * fan_in[level]) and admission's level key, in one table on the level:
     * a chain of gateways would take a stage per level. Any level above 3
     * is past every job's levels (at most 4): admission's key 4, and parse
     * counts it malformed_level. */
    action level_0() {
        meta.level_key = 0;
        meta.bitmap = hdr.ina.bitmap0;
        meta.fan_in = hdr.ina.fan_in0;
        meta.fan_in_m1 = hdr.ina.fan_in0 - 1;
    }
    action level_1() {
        meta.level_key = 1;
        meta.bitmap = hdr.ina.bitmap1;
        meta.fan_in = hdr.ina.fan_in1;
        meta.fan_in_m1 = hdr.ina.fan_in1 - 1;
    }
    action level_2() {
        meta.level_key = 2;
        meta.bitmap = hdr.ina.bitmap2;
        meta.fan_in = hdr.ina.fan_in2;
        meta.fan_in_m1 = hdr.ina.fan_in2 - 1;
    }
    action level_3() {
        meta.level_key = 3;
        meta.bitmap = hdr.ina.bitmap3;
        meta.fan_in = hdr.ina.fan_in3;
        meta.fan_in_m1 = hdr.ina.fan_in3 - 1;
    }
    action level_above() { meta.level_key = 4; }
    table level_select {
        key = { hdr.ina.level : exact; }
        actions = { level_0; level_1; level_2; level_3; level_above; }
        const default_action = level_above();
        const entries = {
            0 : level_0();
            1 : level_1();
            2 : level_2();
            3 : level_3();
        }
    }

    /* The bitmap against the fan-in (fan_in 1..32, a nonzero bitmap within
     * its low fan_in bits), as one ternary lookup on both fields: the mask
     * (1 << fan_in) - 1 and the AND with the bitmap would be two dependent
     * operations, and their test a third stage. In parse()'s order: a
     * fan-in of 0, a zero bitmap, one entry per fan-in for "inside", the
     * rest of 1..31 outside; a fan-in above 32 matches no entry. */
    action fan_in_bad() { meta.plain_check = CHECK_FAN_IN; }
    action bitmap_bad() { meta.plain_check = CHECK_BITMAP; }
    action bitmap_inside() { meta.plain_check = CHECK_OK; }
    table bitmap_check {
        key = {
            meta.fan_in : ternary;
            meta.bitmap : ternary;
        }
        actions = { fan_in_bad; bitmap_bad; bitmap_inside; }
        const default_action = fan_in_bad();
        const entries = {
            (0, _) : fan_in_bad();
            (0x00 &&& 0xE0, 0) : bitmap_bad();  /* fan_in 1..31 (0 above) */
            (32, 0) : bitmap_bad();
            (1, 0x00000000 &&& 0xFFFFFFFE) : bitmap_inside();
            (2, 0x00000000 &&& 0xFFFFFFFC) : bitmap_inside();
            (3, 0x00000000 &&& 0xFFFFFFF8) : bitmap_inside();
            (4, 0x00000000 &&& 0xFFFFFFF0) : bitmap_inside();
            (5, 0x00000000 &&& 0xFFFFFFE0) : bitmap_inside();
            (6, 0x00000000 &&& 0xFFFFFFC0) : bitmap_inside();
            (7, 0x00000000 &&& 0xFFFFFF80) : bitmap_inside();
            (8, 0x00000000 &&& 0xFFFFFF00) : bitmap_inside();
            (9, 0x00000000 &&& 0xFFFFFE00) : bitmap_inside();
            (10, 0x00000000 &&& 0xFFFFFC00) : bitmap_inside();
            (11, 0x00000000 &&& 0xFFFFF800) : bitmap_inside();
            (12, 0x00000000 &&& 0xFFFFF000) : bitmap_inside();
            (13, 0x00000000 &&& 0xFFFFE000) : bitmap_inside();
            (14, 0x00000000 &&& 0xFFFFC000) : bitmap_inside();
            (15, 0x00000000 &&& 0xFFFF8000) : bitmap_inside();
            (16, 0x00000000 &&& 0xFFFF0000) : bitmap_inside();
            (17, 0x00000000 &&& 0xFFFE0000) : bitmap_inside();
            (18, 0x00000000 &&& 0xFFFC0000) : bitmap_inside();
            (19, 0x00000000 &&& 0xFFF80000) : bitmap_inside();
            (20, 0x00000000 &&& 0xFFF00000) : bitmap_inside();
            (21, 0x00000000 &&& 0xFFE00000) : bitmap_inside();
            (22, 0x00000000 &&& 0xFFC00000) : bitmap_inside();
            (23, 0x00000000 &&& 0xFF800000) : bitmap_inside();
            (24, 0x00000000 &&& 0xFF000000) : bitmap_inside();
            (25, 0x00000000 &&& 0xFE000000) : bitmap_inside();
            (26, 0x00000000 &&& 0xFC000000) : bitmap_inside();
            (27, 0x00000000 &&& 0xF8000000) : bitmap_inside();
            (28, 0x00000000 &&& 0xF0000000) : bitmap_inside();
            (29, 0x00000000 &&& 0xE0000000) : bitmap_inside();
            (30, 0x00000000 &&& 0xC0000000) : bitmap_inside();
            (31, 0x00000000 &&& 0x80000000) : bitmap_inside();
            (32, _) : bitmap_inside();
            (0x00 &&& 0xE0, _) : bitmap_bad();  /* fan_in 1..31, bits outside */
        }
    }

    apply {
        /* Facts only: the verdict is filter.p4's `classify`, one ternary
         * table over these facts and filter's, whose entries follow
         * parse()'s order of checks so that a packet with several defects
         * is counted under the same malformed_* reason. Each fact is at most
         * one operation or lookup away from the packet, so that all of
         * them are known two stages into the pipe. */
        /* An IPv4 header of another version is no INA packet (the TNA
         * parser leaves this test to the pipeline). */
        if (hdr.ipv4.version != 4) {
            meta.is_ina = 0;
        }
        level_select.apply();
        compare.apply();
        compare_length.apply();
        bitmap_check.apply();
        if ((hdr.ina.flags & (INA_F_BYPASS | INA_F_FLOAT)) == 0) {
            goat_children.apply();
        }
        /* agg_index >= aggregators: room negative here, room 0 a key of
         * classify (the whole test reads more bytes than a gateway may). */
        if (hdr.ina.agg_index[31:16] != 0 || meta.index_room[31:31] == 1) {
            meta.index_over = 1;
        }
        if (hdr.ina.levels > INA_MAX_LEVELS || hdr.ina.level > INA_MAX_LEVELS ||
            meta.levels_left[7:7] == 1) {
            meta.level_bad = 1;
        }
        /* The frame length is known on BMv2 only; on Tofino a frame shorter
         * than its headers is cut off by the parser, and frame_len is 0
         * (comparing it with a sum of fields would be a comparison of two
         * fields, which a Tofino gateway cannot do). */
#if !defined(__TARGET_TOFINO__)
        bit<32> options = ((bit<32>)hdr.ipv4.ihl - 5) << 2;
        if (meta.frame_len != 0 &&
            meta.frame_len < INA_PAYLOAD_OFFSET + options + (bit<32>)meta.elem_bytes) {
            meta.parse_short = 1;
        }
#endif
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
