/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_value`: the running sums. One register array per lane,
 * because a Tofino stateful ALU updates one 32-bit word per packet: lane i
 * holds element i in pass 1 (row 2 * index) and element INA_LANES + i in
 * pass 2 (row 2 * index + 1), so 2 * INA_LANES elements take two passes
 * through the same lanes (ATP Appendix C). INA_LANES (include/constants.p4)
 * is a compile-time parameter: lanes past it are not compiled.
 *
 * Each lane is one table, `lane_i`, with the RegisterActions of the
 * software switch's value kernels (value_write, value_add, value_read, and
 * value_clear below), suffixed with the lane number. Hardware constraints
 * behind the shape:
 *
 *  - A stateful ALU's instruction is chosen before it reads the word, so the
 *    action is picked by the table's key, never by the word: whether the
 *    packet's element is present, whether the lane belongs to the row, and
 *    what the register stages decided. In the first pass that is the
 *    class, id_hit, fresh and the level themselves, not the value action
 *    derived from them (value_op, below, waits for aggregator_count's
 *    completion test and would hold every lane back by the stages of that
 *    chain); in the second pass it is the value action the first carried.
 *    One table per lane, not one per call site: Tofino has 16 logical
 *    tables per stage, and four lanes' registers share one.
 *  - At most four RegisterActions per register: value_add_read is
 *    value_add's register program, the packet keeping what it returns.
 *  - A stateful ALU has one output word: the adding action returns the NEW
 *    (saturated, held) word, straight into the packet's element, so a lane
 *    costs one PHV word, the element itself. A claim owns the whole row:
 *    value_write writes the packet's elements and value_clear zeroes the
 *    lanes past them up to `elements` (process.cpp's memset), so a longer
 *    packet of the same fragment adds onto zeros.
 *
 * The register saturates (|+| on int<32>, done by the stateful ALU), and a
 * word at INT32_MAX or INT32_MIN is not added to (ATP section 3.8; the
 * register program's two conditions). The overflow test looks only at what
 * the add returns: a lane whose new word is at INT32_MAX or INT32_MIN counts
 * as a clip (it clipped, it was held, or it landed there exactly), as in
 * pipeline/src/value_simd.cpp. It is one gateway per lane (a field compared
 * with two constants) setting the lane's own bit `clip_i`; the table
 * `lane_clips` after the lanes ORs the bits of an adding packet (value_op
 * VALUE_ADD or VALUE_ADD_READ) into meta.clipped (one ternary entry per
 * lane). The exact test (old ^ sum) & (v ^ sum) is a chain of five
 * dependent ALU operations and three more PHV words per lane, which Tofino
 * cannot place (docs/p4.md, "The overflow test").
 */
#ifndef INA_P4_STAGE_AGGREGATOR_VALUE
#define INA_P4_STAGE_AGGREGATOR_VALUE

#define INA_LANE(I) \
    INA_INT_REGISTER(aggregator_value_##I, INA_VALUE_ROWS); \
    INA_LANE_REGISTER_ACTION_NO_OUT(aggregator_value_##I, value_write_##I, meta.value_row, \
        value = (int<32>)hdr.elems[I].v; \
    ) \
    INA_LANE_REGISTER_ACTION_NO_OUT(aggregator_value_##I, value_clear_##I, meta.value_row, \
        value = 0; \
    ) \
    INA_LANE_REGISTER_ACTION(aggregator_value_##I, value_add_##I, meta.value_row, hdr.elems[I].v, \
        if (value != INA_INT32_MAX && value != INA_INT32_MIN) { \
            value = value |+| (int<32>)hdr.elems[I].v; \
        } \
        result = (bit<32>)value; \
    ) \
    INA_LANE_REGISTER_ACTION(aggregator_value_##I, value_read_##I, meta.value_row, hdr.elems[I].v, \
        result = (bit<32>)value; \
    ) \
    table lane_##I { \
        key = { \
            meta.second : ternary; \
            meta.value_op : ternary; \
            meta.cls : ternary; \
            meta.id_hit : ternary; \
            meta.fresh : ternary; \
            hdr.ina.level : ternary; \
            hdr.elems[I].isValid() : ternary; \
            meta.row_mask[I:I] : ternary; \
        } \
        actions = { value_write_##I; value_clear_##I; value_add_##I; value_read_##I; NoAction; } \
        const default_action = NoAction(); \
        size = 16; \
        const entries = { \
            (0, _, CLASS_GRADIENT, ID_CLAIMED, _, _, true, _) : value_write_##I(); \
            (0, _, CLASS_GRADIENT, ID_CLAIMED, _, _, false, 1) : value_clear_##I(); \
            (0, _, CLASS_GRADIENT, ID_MATCH, 1, _, true, _) : value_add_##I(); \
            (0, _, CLASS_RESEND, ID_RELEASED, 1, 0, true, _) : value_add_##I(); \
            (0, _, CLASS_RESEND, ID_RELEASED, 0, 0, true, _) : value_read_##I(); \
            (1, VALUE_WRITE, _, _, _, _, true, _) : value_write_##I(); \
            (1, VALUE_WRITE, _, _, _, _, false, 1) : value_clear_##I(); \
            (1, VALUE_ADD, _, _, _, _, true, _) : value_add_##I(); \
            (1, VALUE_ADD_READ, _, _, _, _, true, _) : value_add_##I(); \
            (1, VALUE_READ, _, _, _, _, true, _) : value_read_##I(); \
        } \
    }

/* Lane I's clip test, after its table: the element is at a limit. One
 * gateway: a 32-bit field against two constants and the validity bit,
 * within a gateway's 4 bytes + 12 bits of PHV input. Whether the lane
 * added (a written or read element at a limit is no clip) is lane_clips'
 * business, so that the test does not wait for the value action. */
#define INA_LANE_APPLY(I) \
    lane_##I.apply(); \
    if (hdr.elems[I].isValid() && \
        (hdr.elems[I].v == 0x7fffffff || hdr.elems[I].v == 0x80000000)) { \
        clip_##I = 1; \
    }

/* The lanes' row in this pass and which lanes belong to it, applied first
 * in both passes (right after switch_config): they depend only on the
 * configuration and the pass, and the lane tables key on them, so they
 * must not wait behind the register stages in control order (Tofino
 * places a table no earlier than what it reads). */
control value_rows(inout ina_headers_t hdr, inout ina_meta_t meta) {
    bit<16> row_lanes = 0;
    /* Bit i: lane i belongs to the row in this pass (i < row_lanes). */
    action set_row_mask(bit<32> mask) { meta.row_mask = mask; }
    table lane_mask {
        key = { row_lanes : exact; }
        actions = { set_row_mask; }
        /* row_lanes above 31: every lane of the pass */
        const default_action = set_row_mask(0x7FFFFFFF);
        size = 32;
        const entries = {
            0 : set_row_mask(32w0x00000000);
            1 : set_row_mask(32w0x00000001);
            2 : set_row_mask(32w0x00000003);
            3 : set_row_mask(32w0x00000007);
            4 : set_row_mask(32w0x0000000f);
            5 : set_row_mask(32w0x0000001f);
            6 : set_row_mask(32w0x0000003f);
            7 : set_row_mask(32w0x0000007f);
            8 : set_row_mask(32w0x000000ff);
            9 : set_row_mask(32w0x000001ff);
            10 : set_row_mask(32w0x000003ff);
            11 : set_row_mask(32w0x000007ff);
            12 : set_row_mask(32w0x00000fff);
            13 : set_row_mask(32w0x00001fff);
            14 : set_row_mask(32w0x00003fff);
            15 : set_row_mask(32w0x00007fff);
            16 : set_row_mask(32w0x0000ffff);
            17 : set_row_mask(32w0x0001ffff);
            18 : set_row_mask(32w0x0003ffff);
            19 : set_row_mask(32w0x0007ffff);
            20 : set_row_mask(32w0x000fffff);
            21 : set_row_mask(32w0x001fffff);
            22 : set_row_mask(32w0x003fffff);
            23 : set_row_mask(32w0x007fffff);
            24 : set_row_mask(32w0x00ffffff);
            25 : set_row_mask(32w0x01ffffff);
            26 : set_row_mask(32w0x03ffffff);
            27 : set_row_mask(32w0x07ffffff);
            28 : set_row_mask(32w0x0fffffff);
            29 : set_row_mask(32w0x1fffffff);
            30 : set_row_mask(32w0x3fffffff);
            31 : set_row_mask(32w0x7fffffff);
        }
    }

    /* elem_count > INA_LANES and elements > INA_LANES as sign bits of
     * differences (a gateway's `>` against a constant that is not a power
     * of two minus one takes more rows and bytes than a gateway has: "limit
     * of 4 bytes + 12 bits"); exact, as both are at most 62 where they are
     * read (parse, p4gen). */
    action lane_differences() {
        meta.count_lanes_left = INA_LANES_16 - hdr.ina.elem_count;
        meta.row_lanes_left = INA_LANES_16 - meta.cfg.elements;
    }
    table compare_lanes {
        actions = { lane_differences; }
        const default_action = lane_differences();
        size = 1;
    }

    apply {
        compare_lanes.apply();
        /* Lanes of this pass that belong to the row (`elements`), as a bit
         * mask: a Tofino gateway tests a bit, not `I < row_lanes`, in the
         * few bytes each lane's condition may read. */
        row_lanes = meta.cfg.elements;
        if (meta.second == 1) {
            row_lanes = meta.cfg.elements - INA_LANES_16;
        }
        lane_mask.apply();
        meta.value_row = (hdr.ina.agg_index << 1) | (bit<32>)meta.second;
    }
}

control aggregator_value(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* One bit per lane (see lane_clips); lanes past INA_LANES keep 0. */
    bit<1> clip_0 = 0;
    bit<1> clip_1 = 0;
    bit<1> clip_2 = 0;
    bit<1> clip_3 = 0;
    bit<1> clip_4 = 0;
    bit<1> clip_5 = 0;
    bit<1> clip_6 = 0;
    bit<1> clip_7 = 0;
    bit<1> clip_8 = 0;
    bit<1> clip_9 = 0;
    bit<1> clip_10 = 0;
    bit<1> clip_11 = 0;
    bit<1> clip_12 = 0;
    bit<1> clip_13 = 0;
    bit<1> clip_14 = 0;
    bit<1> clip_15 = 0;
    bit<1> clip_16 = 0;
    bit<1> clip_17 = 0;
    bit<1> clip_18 = 0;
    bit<1> clip_19 = 0;
    bit<1> clip_20 = 0;
    bit<1> clip_21 = 0;
    bit<1> clip_22 = 0;
    bit<1> clip_23 = 0;
    bit<1> clip_24 = 0;
    bit<1> clip_25 = 0;
    bit<1> clip_26 = 0;
    bit<1> clip_27 = 0;
    bit<1> clip_28 = 0;
    bit<1> clip_29 = 0;
    bit<1> clip_30 = 0;
    action set_clipped() { meta.clipped = 1; }
    /* The OR of the lanes' clip bits, for a packet that added (value_op 2 or
     * 3: VALUE_ADD &&& 0b110): a ternary table (one TCAM entry per lane, the
     * other bits don't care), because an OR over fields written
     * in several stages is one ALU operation per field on Tofino and would
     * chain through as many stages. */
    table lane_clips {
        key = {
            meta.value_op : ternary;
            clip_0 : ternary;
            clip_1 : ternary;
            clip_2 : ternary;
            clip_3 : ternary;
            clip_4 : ternary;
            clip_5 : ternary;
            clip_6 : ternary;
            clip_7 : ternary;
            clip_8 : ternary;
            clip_9 : ternary;
            clip_10 : ternary;
            clip_11 : ternary;
            clip_12 : ternary;
            clip_13 : ternary;
            clip_14 : ternary;
            clip_15 : ternary;
            clip_16 : ternary;
            clip_17 : ternary;
            clip_18 : ternary;
            clip_19 : ternary;
            clip_20 : ternary;
            clip_21 : ternary;
            clip_22 : ternary;
            clip_23 : ternary;
            clip_24 : ternary;
            clip_25 : ternary;
            clip_26 : ternary;
            clip_27 : ternary;
            clip_28 : ternary;
            clip_29 : ternary;
            clip_30 : ternary;
        }
        actions = { set_clipped; NoAction; }
        const default_action = NoAction();
        size = 32;
        const entries = {
            (VALUE_ADD &&& 0b110, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _) : set_clipped();
            (VALUE_ADD &&& 0b110, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1) : set_clipped();
        }
    }

    INA_LANE(0)
#if INA_LANES > 1
    INA_LANE(1)
#endif
#if INA_LANES > 2
    INA_LANE(2)
#endif
#if INA_LANES > 3
    INA_LANE(3)
#endif
#if INA_LANES > 4
    INA_LANE(4)
#endif
#if INA_LANES > 5
    INA_LANE(5)
#endif
#if INA_LANES > 6
    INA_LANE(6)
#endif
#if INA_LANES > 7
    INA_LANE(7)
#endif
#if INA_LANES > 8
    INA_LANE(8)
#endif
#if INA_LANES > 9
    INA_LANE(9)
#endif
#if INA_LANES > 10
    INA_LANE(10)
#endif
#if INA_LANES > 11
    INA_LANE(11)
#endif
#if INA_LANES > 12
    INA_LANE(12)
#endif
#if INA_LANES > 13
    INA_LANE(13)
#endif
#if INA_LANES > 14
    INA_LANE(14)
#endif
#if INA_LANES > 15
    INA_LANE(15)
#endif
#if INA_LANES > 16
    INA_LANE(16)
#endif
#if INA_LANES > 17
    INA_LANE(17)
#endif
#if INA_LANES > 18
    INA_LANE(18)
#endif
#if INA_LANES > 19
    INA_LANE(19)
#endif
#if INA_LANES > 20
    INA_LANE(20)
#endif
#if INA_LANES > 21
    INA_LANE(21)
#endif
#if INA_LANES > 22
    INA_LANE(22)
#endif
#if INA_LANES > 23
    INA_LANE(23)
#endif
#if INA_LANES > 24
    INA_LANE(24)
#endif
#if INA_LANES > 25
    INA_LANE(25)
#endif
#if INA_LANES > 26
    INA_LANE(26)
#endif
#if INA_LANES > 27
    INA_LANE(27)
#endif
#if INA_LANES > 28
    INA_LANE(28)
#endif
#if INA_LANES > 29
    INA_LANE(29)
#endif
#if INA_LANES > 30
    INA_LANE(30)
#endif

    apply {
        /* The lanes first: in the first pass their key is what the register
         * stages decided, in the second the carried value action, which the
         * first pass computes only below (after the lanes in control order,
         * so that no lane waits for it). */
        INA_LANE_APPLY(0)
#if INA_LANES > 1
        INA_LANE_APPLY(1)
#endif
#if INA_LANES > 2
        INA_LANE_APPLY(2)
#endif
#if INA_LANES > 3
        INA_LANE_APPLY(3)
#endif
#if INA_LANES > 4
        INA_LANE_APPLY(4)
#endif
#if INA_LANES > 5
        INA_LANE_APPLY(5)
#endif
#if INA_LANES > 6
        INA_LANE_APPLY(6)
#endif
#if INA_LANES > 7
        INA_LANE_APPLY(7)
#endif
#if INA_LANES > 8
        INA_LANE_APPLY(8)
#endif
#if INA_LANES > 9
        INA_LANE_APPLY(9)
#endif
#if INA_LANES > 10
        INA_LANE_APPLY(10)
#endif
#if INA_LANES > 11
        INA_LANE_APPLY(11)
#endif
#if INA_LANES > 12
        INA_LANE_APPLY(12)
#endif
#if INA_LANES > 13
        INA_LANE_APPLY(13)
#endif
#if INA_LANES > 14
        INA_LANE_APPLY(14)
#endif
#if INA_LANES > 15
        INA_LANE_APPLY(15)
#endif
#if INA_LANES > 16
        INA_LANE_APPLY(16)
#endif
#if INA_LANES > 17
        INA_LANE_APPLY(17)
#endif
#if INA_LANES > 18
        INA_LANE_APPLY(18)
#endif
#if INA_LANES > 19
        INA_LANE_APPLY(19)
#endif
#if INA_LANES > 20
        INA_LANE_APPLY(20)
#endif
#if INA_LANES > 21
        INA_LANE_APPLY(21)
#endif
#if INA_LANES > 22
        INA_LANE_APPLY(22)
#endif
#if INA_LANES > 23
        INA_LANE_APPLY(23)
#endif
#if INA_LANES > 24
        INA_LANE_APPLY(24)
#endif
#if INA_LANES > 25
        INA_LANE_APPLY(25)
#endif
#if INA_LANES > 26
        INA_LANE_APPLY(26)
#endif
#if INA_LANES > 27
        INA_LANE_APPLY(27)
#endif
#if INA_LANES > 28
        INA_LANE_APPLY(28)
#endif
#if INA_LANES > 29
        INA_LANE_APPLY(29)
#endif
#if INA_LANES > 30
        INA_LANE_APPLY(30)
#endif
        if (meta.second == 0) {
            /* Which value action this packet runs, in both passes. */
            meta.value_op = VALUE_NONE;
            if (meta.cls == CLASS_GRADIENT && meta.id_hit == ID_CLAIMED) {
                meta.value_op = VALUE_WRITE;
            } else if (meta.cls == CLASS_GRADIENT && meta.id_hit == ID_MATCH &&
                       meta.reason != CTR_duplicate) {
                if (meta.complete == 1) {
                    meta.value_op = VALUE_ADD_READ;
                } else {
                    meta.value_op = VALUE_ADD;
                }
            } else if (meta.cls == CLASS_RESEND && meta.reason == CTR_resend_merged) {
                if (meta.fresh == 1) {
                    meta.value_op = VALUE_ADD_READ;
                } else {
                    meta.value_op = VALUE_READ;
                }
            }
            meta.need_second = 0;
            if (meta.value_op != VALUE_NONE && meta.count_lanes_left[15:15] == 1) {
                meta.need_second = 1;
            }
            if (meta.value_op == VALUE_WRITE && meta.row_lanes_left[15:15] == 1) {
                /* the row's second half must be zeroed too */
                meta.need_second = 1;
            }
        }
        lane_clips.apply();
    }
}

#endif
