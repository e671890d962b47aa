/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_value`: the running sums. One register array per lane,
 * because a Tofino stateful ALU updates one 32-bit word per packet: lane i
 * holds element i in pass 1 (row index) and element INA_LANES + i in
 * pass 2 (row INA_AGGREGATORS + index), so 2 * INA_LANES elements take two passes
 * through the same lanes (ATP Appendix C); with lead lanes
 * (stages/aggregator_value_lead.p4, Tofino 1) their elements come first and
 * lane i holds INA_FIRST_ELEMENT + i and INA_SECOND_ELEMENT + i. The late lanes
 * (stages/aggregator_value_late.p4) add elements after those in the second
 * pass. INA_LANES (include/constants.p4) is a compile-time parameter: lanes
 * past it are not compiled.
 *
 * Each lane is one table, `lane_i`, with the RegisterActions of the
 * software switch's value kernels (value_write, value_add, value_read, and
 * value_clear below), suffixed with the lane number. Hardware constraints
 * behind the shape:
 *
 *  - A stateful ALU's instruction is chosen before it reads the word, so the
 *    action is picked by the table's key, never by the word: whether the
 *    packet's element is present, whether the lane belongs to the row
 *    (`elements`, a range: the lane's element number below it), and what
 *    the register stages decided. In the first pass that is the class,
 *    id_hit, the overlap (a duplicate's bits are in already) and the
 *    level themselves, not the value action derived from them (value_op,
 *    set by aggregator_count's verdict, would hold every lane back by that
 *    stage); in the second pass it is the value action the first carried
 *    (pass_value_op).
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
 * register program's two conditions, written on the word as unsigned: the
 * back end turns `value != INT32_MIN` into a comparison with -INT32_MIN,
 * which a stateful ALU's constant cannot hold). The overflow test looks
 * only at what the add returns: a lane whose new word is at INT32_MAX or
 * INT32_MIN counts as a clip (it clipped, it was held, or it landed there
 * exactly), as in pipeline/src/value_simd.cpp. It is a ternary lookup,
 * `lane_clips` (and `lane_clips_1`, `lane_clips_2` past 15 lanes), on the
 * adding packet's value_op (VALUE_ADD or VALUE_ADD_READ) and the returned
 * elements, after the lanes. The
 * exact test (old ^ sum) & (v ^ sum) is a chain of five dependent ALU
 * operations and three more PHV words per lane, which Tofino cannot place
 * (docs/p4.md, "The overflow test").
 */
#ifndef INA_P4_STAGE_AGGREGATOR_VALUE
#define INA_P4_STAGE_AGGREGATOR_VALUE

/* Tofino 1 with lead lanes: the word lanes pinned to stages 6-9 (lanes
 * 12-14 in 6 beside the count's verdict, 8-11 in 7, 4-7 in 8, 0-3 in 9),
 * where the lead lanes' stages 10 and 11 leave them. */
#if defined(__TARGET_TOFINO__) && __TARGET_TOFINO__ == 1 && INA_LEAD_LANES > 0
#define INA_LEAD_LAYOUT_STAGE(N) @stage(N)
#else
#define INA_LEAD_LAYOUT_STAGE(N)
#endif

#define INA_LANE(I, PIN) \
    INA_INT_REGISTER(aggregator_value_##I, INA_VALUE_ROWS); \
    INA_LANE_REGISTER_ACTION_NO_OUT(aggregator_value_##I, value_write_##I, meta.value_row, \
        value = (int<32>)hdr.elems[I].v; \
    ) \
    INA_LANE_REGISTER_ACTION_NO_OUT(aggregator_value_##I, value_clear_##I, meta.value_row, \
        value = 0; \
    ) \
    INA_LANE_REGISTER_ACTION(aggregator_value_##I, value_add_##I, meta.value_row, hdr.elems[I].v, \
        if ((bit<32>)value != 32w0x7fffffff && (bit<32>)value != 32w0x80000000) { \
            value = value |+| (int<32>)hdr.elems[I].v; \
        } \
        result = (bit<32>)value; \
    ) \
    INA_LANE_REGISTER_ACTION(aggregator_value_##I, value_read_##I, meta.value_row, hdr.elems[I].v, \
        result = (bit<32>)value; \
    ) \
    PIN table lane_##I { \
        key = { \
            meta.second : ternary; \
            meta.pass_value_op : ternary; \
            meta.cls : ternary; \
            meta.id_hit : ternary; \
            meta.overlap : ternary; \
            hdr.ina.level : ternary; \
            hdr.elems[I].isValid() : ternary; \
            meta.cfg.elements : range @name("elements"); \
        } \
        actions = { value_write_##I; value_clear_##I; value_add_##I; value_read_##I; NoAction; } \
        const default_action = NoAction(); \
        size = 16; \
        const entries = { \
            (0, _, CLASS_GRADIENT, ID_CLAIMED, _, _, true, _) : value_write_##I(); \
            (0, _, CLASS_GRADIENT, ID_CLAIMED, _, _, false, (INA_FIRST_ELEMENT + I + 1) .. 0xFFFF) : value_clear_##I(); \
            (0, _, CLASS_GRADIENT, ID_MATCH, 0, _, true, _) : value_add_##I(); \
            (0, _, CLASS_RESEND, ID_RELEASED, 0, 0, true, _) : value_add_##I(); \
            (0, _, CLASS_RESEND, ID_RELEASED, _, 0, true, _) : value_read_##I(); \
            (1, VALUE_WRITE, _, _, _, _, true, _) : value_write_##I(); \
            (1, VALUE_WRITE, _, _, _, _, false, (INA_SECOND_ELEMENT + I + 1) .. 0xFFFF) : value_clear_##I(); \
            (1, VALUE_ADD, _, _, _, _, true, _) : value_add_##I(); \
            (1, VALUE_ADD_READ, _, _, _, _, true, _) : value_add_##I(); \
            (1, VALUE_READ, _, _, _, _, true, _) : value_read_##I(); \
        } \
    }

#define INA_LANE_APPLY(I) \
    lane_##I.apply();

/* The lanes' row in this pass: the aggregator's index in the first,
 * INA_AGGREGATORS + index in the second. One operation (row_offset is
 * the pass's constant, set by the target's parser or wrapper): the
 * interleaved 2 * index + pass took two, and the lanes wait for it.
 * Applied first in both passes (right after switch_config). */
control value_rows(inout ina_headers_t hdr, inout ina_meta_t meta) {
    apply {
        meta.value_row = hdr.ina.agg_index + meta.row_offset;
    }
}

control aggregator_value(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* A lane saturated: the aggregator records the overflow (every
     * adding packet's flags operation keeps flags_in) and the packet's last
     * pass counts it (`overflow`, counters.p4); both ride into the second
     * pass. */
    action set_clipped() {
        meta.clipped = 1;
        meta.flags_in = meta.flags_in | AGG_OVERFLOW;
    }
    /* The overflow test of an adding packet (value_op VALUE_ADD or
     * VALUE_ADD_READ: 2 &&& 0b110): one of its elements, as the lanes
     * returned them, is at INT32_MAX or INT32_MIN. A ternary lookup on the
     * elements themselves, two entries per lane written by the control
     * plane (p4gen.py, which knows the build's lanes), the other lanes
     * don't care: a test per lane and an OR of their results took two more
     * stages after the last lane. A present element only (the validity bit
     * is in the key: an absent element's container may hold another
     * field's value). One table per 15 lanes (lane_clips for
     * lanes 0..14, lane_clips_1 for 15..29, lane_clips_2 for 30): a
     * ternary key holds at most 524 bits, 33 per lane and the value
     * action; each table sets the same bits, so any one that matches is
     * the clip (docs/p4.md, "The overflow test"). */
    table lane_clips {
        key = {
            meta.value_op : ternary;
#if INA_LATE_LANES > 0
            /* The late lanes' overflow tests (aggregator_value_late.p4): one
             * entry per bit. */
            meta.late_clip_0 : ternary @name("late_clip_0");
#endif
#if INA_LATE_LANES > 4
            meta.late_clip_1 : ternary @name("late_clip_1");
#endif
#if INA_LATE_LANES > 15
            meta.late_clip_2 : ternary @name("late_clip_2");
#endif
#if INA_LEAD_LANES > 0
            /* The first pass's lead lanes' test (aggregator_value_lead.p4):
             * the parser's limit, in a recirculated frame. */
            meta.lead_limit : ternary @name("lead_limit");
            meta.recirculated : ternary @name("recirculated");
#endif
#if INA_LANES > 0
            hdr.elems[0].isValid() : ternary @name("elem_0_valid");
            hdr.elems[0].v : ternary @name("elem_0");
#endif
#if INA_LANES > 1
            hdr.elems[1].isValid() : ternary @name("elem_1_valid");
            hdr.elems[1].v : ternary @name("elem_1");
#endif
#if INA_LANES > 2
            hdr.elems[2].isValid() : ternary @name("elem_2_valid");
            hdr.elems[2].v : ternary @name("elem_2");
#endif
#if INA_LANES > 3
            hdr.elems[3].isValid() : ternary @name("elem_3_valid");
            hdr.elems[3].v : ternary @name("elem_3");
#endif
#if INA_LANES > 4
            hdr.elems[4].isValid() : ternary @name("elem_4_valid");
            hdr.elems[4].v : ternary @name("elem_4");
#endif
#if INA_LANES > 5
            hdr.elems[5].isValid() : ternary @name("elem_5_valid");
            hdr.elems[5].v : ternary @name("elem_5");
#endif
#if INA_LANES > 6
            hdr.elems[6].isValid() : ternary @name("elem_6_valid");
            hdr.elems[6].v : ternary @name("elem_6");
#endif
#if INA_LANES > 7
            hdr.elems[7].isValid() : ternary @name("elem_7_valid");
            hdr.elems[7].v : ternary @name("elem_7");
#endif
#if INA_LANES > 8
            hdr.elems[8].isValid() : ternary @name("elem_8_valid");
            hdr.elems[8].v : ternary @name("elem_8");
#endif
#if INA_LANES > 9
            hdr.elems[9].isValid() : ternary @name("elem_9_valid");
            hdr.elems[9].v : ternary @name("elem_9");
#endif
#if INA_LANES > 10
            hdr.elems[10].isValid() : ternary @name("elem_10_valid");
            hdr.elems[10].v : ternary @name("elem_10");
#endif
#if INA_LANES > 11
            hdr.elems[11].isValid() : ternary @name("elem_11_valid");
            hdr.elems[11].v : ternary @name("elem_11");
#endif
#if INA_LANES > 12
            hdr.elems[12].isValid() : ternary @name("elem_12_valid");
            hdr.elems[12].v : ternary @name("elem_12");
#endif
#if INA_LANES > 13
            hdr.elems[13].isValid() : ternary @name("elem_13_valid");
            hdr.elems[13].v : ternary @name("elem_13");
#endif
#if INA_LANES > 14
            hdr.elems[14].isValid() : ternary @name("elem_14_valid");
            hdr.elems[14].v : ternary @name("elem_14");
#endif
        }
        actions = { set_clipped; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#if INA_LANES > 15
    table lane_clips_1 {
        key = {
            meta.value_op : ternary;
#if INA_LANES > 15
            hdr.elems[15].isValid() : ternary @name("elem_15_valid");
            hdr.elems[15].v : ternary @name("elem_15");
#endif
#if INA_LANES > 16
            hdr.elems[16].isValid() : ternary @name("elem_16_valid");
            hdr.elems[16].v : ternary @name("elem_16");
#endif
#if INA_LANES > 17
            hdr.elems[17].isValid() : ternary @name("elem_17_valid");
            hdr.elems[17].v : ternary @name("elem_17");
#endif
#if INA_LANES > 18
            hdr.elems[18].isValid() : ternary @name("elem_18_valid");
            hdr.elems[18].v : ternary @name("elem_18");
#endif
#if INA_LANES > 19
            hdr.elems[19].isValid() : ternary @name("elem_19_valid");
            hdr.elems[19].v : ternary @name("elem_19");
#endif
#if INA_LANES > 20
            hdr.elems[20].isValid() : ternary @name("elem_20_valid");
            hdr.elems[20].v : ternary @name("elem_20");
#endif
#if INA_LANES > 21
            hdr.elems[21].isValid() : ternary @name("elem_21_valid");
            hdr.elems[21].v : ternary @name("elem_21");
#endif
#if INA_LANES > 22
            hdr.elems[22].isValid() : ternary @name("elem_22_valid");
            hdr.elems[22].v : ternary @name("elem_22");
#endif
#if INA_LANES > 23
            hdr.elems[23].isValid() : ternary @name("elem_23_valid");
            hdr.elems[23].v : ternary @name("elem_23");
#endif
#if INA_LANES > 24
            hdr.elems[24].isValid() : ternary @name("elem_24_valid");
            hdr.elems[24].v : ternary @name("elem_24");
#endif
#if INA_LANES > 25
            hdr.elems[25].isValid() : ternary @name("elem_25_valid");
            hdr.elems[25].v : ternary @name("elem_25");
#endif
#if INA_LANES > 26
            hdr.elems[26].isValid() : ternary @name("elem_26_valid");
            hdr.elems[26].v : ternary @name("elem_26");
#endif
#if INA_LANES > 27
            hdr.elems[27].isValid() : ternary @name("elem_27_valid");
            hdr.elems[27].v : ternary @name("elem_27");
#endif
#if INA_LANES > 28
            hdr.elems[28].isValid() : ternary @name("elem_28_valid");
            hdr.elems[28].v : ternary @name("elem_28");
#endif
#if INA_LANES > 29
            hdr.elems[29].isValid() : ternary @name("elem_29_valid");
            hdr.elems[29].v : ternary @name("elem_29");
#endif
        }
        actions = { set_clipped; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif
#if INA_LANES > 30
    table lane_clips_2 {
        key = {
            meta.value_op : ternary;
#if INA_LANES > 30
            hdr.elems[30].isValid() : ternary @name("elem_30_valid");
            hdr.elems[30].v : ternary @name("elem_30");
#endif
        }
        actions = { set_clipped; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif

    INA_LANE(0, INA_LEAD_LAYOUT_STAGE(9))
#if INA_LANES > 1
    INA_LANE(1, INA_LEAD_LAYOUT_STAGE(9))
#endif
#if INA_LANES > 2
    INA_LANE(2, INA_LEAD_LAYOUT_STAGE(9))
#endif
#if INA_LANES > 3
    INA_LANE(3, INA_LEAD_LAYOUT_STAGE(9))
#endif
#if INA_LANES > 4
    INA_LANE(4, INA_LEAD_LAYOUT_STAGE(8))
#endif
#if INA_LANES > 5
    INA_LANE(5, INA_LEAD_LAYOUT_STAGE(8))
#endif
#if INA_LANES > 6
    INA_LANE(6, INA_LEAD_LAYOUT_STAGE(8))
#endif
#if INA_LANES > 7
    INA_LANE(7, INA_LEAD_LAYOUT_STAGE(8))
#endif
#if INA_LANES > 8
    INA_LANE(8, INA_LEAD_LAYOUT_STAGE(7))
#endif
#if INA_LANES > 9
    INA_LANE(9, INA_LEAD_LAYOUT_STAGE(7))
#endif
#if INA_LANES > 10
    INA_LANE(10, INA_LEAD_LAYOUT_STAGE(7))
#endif
#if INA_LANES > 11
    INA_LANE(11, INA_LEAD_LAYOUT_STAGE(7))
#endif
#if INA_LANES > 12
    INA_LANE(12, INA_LEAD_LAYOUT_STAGE(6))
#endif
#if INA_LANES > 13
    INA_LANE(13, INA_LEAD_LAYOUT_STAGE(6))
#endif
#if INA_LANES > 14
    INA_LANE(14, INA_LEAD_LAYOUT_STAGE(6))
#endif
#if INA_LANES > 15
    INA_LANE(15, )
#endif
#if INA_LANES > 16
    INA_LANE(16, )
#endif
#if INA_LANES > 17
    INA_LANE(17, )
#endif
#if INA_LANES > 18
    INA_LANE(18, )
#endif
#if INA_LANES > 19
    INA_LANE(19, )
#endif
#if INA_LANES > 20
    INA_LANE(20, )
#endif
#if INA_LANES > 21
    INA_LANE(21, )
#endif
#if INA_LANES > 22
    INA_LANE(22, )
#endif
#if INA_LANES > 23
    INA_LANE(23, )
#endif
#if INA_LANES > 24
    INA_LANE(24, )
#endif
#if INA_LANES > 25
    INA_LANE(25, )
#endif
#if INA_LANES > 26
    INA_LANE(26, )
#endif
#if INA_LANES > 27
    INA_LANE(27, )
#endif
#if INA_LANES > 28
    INA_LANE(28, )
#endif
#if INA_LANES > 29
    INA_LANE(29, )
#endif
#if INA_LANES > 30
    INA_LANE(30, )
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
        lane_clips.apply();
#if INA_LANES > 15
        lane_clips_1.apply();
#endif
#if INA_LANES > 30
        lane_clips_2.apply();
#endif
    }
}

#endif
