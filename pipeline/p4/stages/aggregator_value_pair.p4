/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_value`, pair form (Tofino 2's default layout, and BMv2
 * with -DINA_PAIR_LANES, which runs the conformance vectors through it;
 * include/constants.p4): lane i holds
 * elements 2i and 2i+1 in one 64-bit register word (SwitchML's layout), so
 * 2 * INA_LANES elements take ONE pass. A Tofino 2
 * stateful ALU reads 64 bits of PHV, has four comparison units and four
 * output words: one RegisterAction adds both elements, holds each half at
 * INT32_MAX / INT32_MIN (two comparisons per half), and returns both new
 * words straight into the packet's elements, as the single-word lanes do.
 *
 * The four RegisterActions of a lane are the single-word lane's (write,
 * clear, add, read) on both halves. A packet with an odd count has no
 * element 2i+1 in its last lane: the parser writes a zero into that
 * (invalid) element's word, so that the ALU reads a known word: a claim
 * writes 0 there, an add adds 0, and what the ALU returns into it is never
 * deparsed (at most four RegisterActions per register leave no room for
 * one-element variants).
 *
 * The overflow test is the single-word lanes' (a returned element at
 * INT32_MAX or INT32_MIN, adding packets only), one ternary table per 13
 * elements (433 key bits; with 15, 498 bits, the back end could not place
 * the third of three tables), each setting its own bit (clip_k): tables
 * writing the same field must be in different stages, so that chained
 * tables (five for 62 elements) would follow one another. One gateway ORs
 * the bits into `clipped` and the aggregator's flags. The padded element
 * is invalid, so its entries (validity in the key) never match; the
 * control plane writes two entries per element as for the single-word
 * lanes (p4gen --pair-lanes).
 *
 * The second pass (which a pair build takes only for the fair share's
 * job_full change, never for elements) runs no lane.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_VALUE
#define INA_P4_STAGE_AGGREGATOR_VALUE

#if defined(__TARGET_TOFINO__) && __TARGET_TOFINO__ != 2
#error "the pair lanes (INA_PAIR_LANES) need Tofino 2's stateful ALU"
#endif

/* Tofino 2: each lane and overflow table has a stage (@stage), in element
 * order from the first stage after the bitmap (6): lanes 0-1 beside the
 * count and job_held, then four a stage (a stage has four stateful ALUs),
 * lane 30 in 14; each overflow table a stage after the lanes of its 13
 * elements, where a stage's ternary match input has room for its 433 bits
 * beside the lanes' keys. Left to itself, the back end placed the lanes
 * highest first, so that every overflow table but the last waited for
 * lane 0, one a stage: 30 lanes took 20 stages and 31 took 22. A stage is
 * a request: where it cannot be met the back end moves the table (in the
 * committed 31-lane build, lanes 10-13 to stage 15, lanes 27-30 to 14; the
 * map is in docs/p4.md, "Tofino 2: pair lanes"). */
#if defined(__TARGET_TOFINO__) && __TARGET_TOFINO__ == 2
#define INA_PAIR_STAGE(N) @stage(N)
#else
#define INA_PAIR_STAGE(N)
#endif

/* A lane's register word: elements 2i (lo) and 2i+1 (hi). */
struct ina_value_pair_t {
    int<32> lo;
    int<32> hi;
}

#define INA_PAIR_LANE(I, N, LO, HI, STAGE) \
    INA_VALUE_PAIR_REGISTER(aggregator_value_##I, INA_VALUE_ROWS); \
    INA_VALUE_PAIR_ACTION_NO_OUT(aggregator_value_##I, value_write_##I, meta.value_row, LO, HI, \
        value.lo = (int<32>)LO.v; \
        value.hi = (int<32>)HI.v; \
    ) \
    INA_VALUE_PAIR_ACTION_NO_OUT(aggregator_value_##I, value_clear_##I, meta.value_row, LO, HI, \
        value.lo = 0; \
        value.hi = 0; \
    ) \
    INA_VALUE_PAIR_ACTION(aggregator_value_##I, value_add_##I, meta.value_row, LO, HI, \
        if ((bit<32>)value.lo != 32w0x7fffffff && (bit<32>)value.lo != 32w0x80000000) { \
            value.lo = value.lo |+| (int<32>)LO.v; \
        } \
        if ((bit<32>)value.hi != 32w0x7fffffff && (bit<32>)value.hi != 32w0x80000000) { \
            value.hi = value.hi |+| (int<32>)HI.v; \
        } \
        result = (bit<32>)value.lo; \
        result2 = (bit<32>)value.hi; \
    ) \
    INA_VALUE_PAIR_ACTION(aggregator_value_##I, value_read_##I, meta.value_row, LO, HI, \
        result = (bit<32>)value.lo; \
        result2 = (bit<32>)value.hi; \
    ) \
    INA_PAIR_STAGE(STAGE) \
    table lane_##I { \
        key = { \
            meta.cls : ternary; \
            meta.id_hit : ternary; \
            meta.overlap : ternary; \
            hdr.ina.level : ternary; \
            LO.isValid() : ternary; \
            meta.cfg.elements : range @name("elements"); \
        } \
        actions = { value_write_##I; value_clear_##I; value_add_##I; value_read_##I; NoAction; } \
        const default_action = NoAction(); \
        size = 8; \
        const entries = { \
            (CLASS_GRADIENT, ID_CLAIMED, _, _, true, _) : value_write_##I(); \
            (CLASS_GRADIENT, ID_CLAIMED, _, _, false, (N + 1) .. 0xFFFF) : value_clear_##I(); \
            (CLASS_GRADIENT, ID_MATCH, 0, _, true, _) : value_add_##I(); \
            (CLASS_RESEND, ID_RELEASED, 0, 0, true, _) : value_add_##I(); \
            (CLASS_RESEND, ID_RELEASED, _, 0, true, _) : value_read_##I(); \
        } \
    }

/* The lanes run in the first pass only, so an aggregator has one row, its
 * index (INA_VALUE_ROWS is INA_AGGREGATORS in this form). */
control value_rows(inout ina_headers_t hdr, inout ina_meta_t meta) {
    apply {
        meta.value_row = hdr.ina.agg_index;
    }
}

control aggregator_value(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* One action per overflow table: each sets its own bit (see above). */
    action set_clip_0() { meta.clip_0 = 1; }
    action set_clip_1() { meta.clip_1 = 1; }
    action set_clip_2() { meta.clip_2 = 1; }
    action set_clip_3() { meta.clip_3 = 1; }
    action set_clip_4() { meta.clip_4 = 1; }
#if 2 * INA_LANES > 0
    INA_PAIR_STAGE(9)
    table lane_clips {
        key = {
            meta.value_op : ternary;
#if 2 * INA_LANES > 0
            hdr.elems[0].isValid() : ternary @name("elem_0_valid");
            hdr.elems[0].v : ternary @name("elem_0");
#endif
#if 2 * INA_LANES > 1
            hdr.elems[1].isValid() : ternary @name("elem_1_valid");
            hdr.elems[1].v : ternary @name("elem_1");
#endif
#if 2 * INA_LANES > 2
            hdr.elems[2].isValid() : ternary @name("elem_2_valid");
            hdr.elems[2].v : ternary @name("elem_2");
#endif
#if 2 * INA_LANES > 3
            hdr.elems[3].isValid() : ternary @name("elem_3_valid");
            hdr.elems[3].v : ternary @name("elem_3");
#endif
#if 2 * INA_LANES > 4
            hdr.elems[4].isValid() : ternary @name("elem_4_valid");
            hdr.elems[4].v : ternary @name("elem_4");
#endif
#if 2 * INA_LANES > 5
            hdr.elems[5].isValid() : ternary @name("elem_5_valid");
            hdr.elems[5].v : ternary @name("elem_5");
#endif
#if 2 * INA_LANES > 6
            hdr.elems[6].isValid() : ternary @name("elem_6_valid");
            hdr.elems[6].v : ternary @name("elem_6");
#endif
#if 2 * INA_LANES > 7
            hdr.elems[7].isValid() : ternary @name("elem_7_valid");
            hdr.elems[7].v : ternary @name("elem_7");
#endif
#if 2 * INA_LANES > 8
            hdr.elems[8].isValid() : ternary @name("elem_8_valid");
            hdr.elems[8].v : ternary @name("elem_8");
#endif
#if 2 * INA_LANES > 9
            hdr.elems[9].isValid() : ternary @name("elem_9_valid");
            hdr.elems[9].v : ternary @name("elem_9");
#endif
#if 2 * INA_LANES > 10
            hdr.elems[10].isValid() : ternary @name("elem_10_valid");
            hdr.elems[10].v : ternary @name("elem_10");
#endif
#if 2 * INA_LANES > 11
            hdr.elems[11].isValid() : ternary @name("elem_11_valid");
            hdr.elems[11].v : ternary @name("elem_11");
#endif
#if 2 * INA_LANES > 12
            hdr.elems[12].isValid() : ternary @name("elem_12_valid");
            hdr.elems[12].v : ternary @name("elem_12");
#endif
        }
        actions = { set_clip_0; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif
#if 2 * INA_LANES > 13
    INA_PAIR_STAGE(10)
    table lane_clips_1 {
        key = {
            meta.value_op : ternary;
#if 2 * INA_LANES > 13
            hdr.elems[13].isValid() : ternary @name("elem_13_valid");
            hdr.elems[13].v : ternary @name("elem_13");
#endif
#if 2 * INA_LANES > 14
            hdr.elems[14].isValid() : ternary @name("elem_14_valid");
            hdr.elems[14].v : ternary @name("elem_14");
#endif
#if 2 * INA_LANES > 15
            hdr.elems[15].isValid() : ternary @name("elem_15_valid");
            hdr.elems[15].v : ternary @name("elem_15");
#endif
#if 2 * INA_LANES > 16
            hdr.elems[16].isValid() : ternary @name("elem_16_valid");
            hdr.elems[16].v : ternary @name("elem_16");
#endif
#if 2 * INA_LANES > 17
            hdr.elems[17].isValid() : ternary @name("elem_17_valid");
            hdr.elems[17].v : ternary @name("elem_17");
#endif
#if 2 * INA_LANES > 18
            hdr.elems[18].isValid() : ternary @name("elem_18_valid");
            hdr.elems[18].v : ternary @name("elem_18");
#endif
#if 2 * INA_LANES > 19
            hdr.elems[19].isValid() : ternary @name("elem_19_valid");
            hdr.elems[19].v : ternary @name("elem_19");
#endif
#if 2 * INA_LANES > 20
            hdr.elems[20].isValid() : ternary @name("elem_20_valid");
            hdr.elems[20].v : ternary @name("elem_20");
#endif
#if 2 * INA_LANES > 21
            hdr.elems[21].isValid() : ternary @name("elem_21_valid");
            hdr.elems[21].v : ternary @name("elem_21");
#endif
#if 2 * INA_LANES > 22
            hdr.elems[22].isValid() : ternary @name("elem_22_valid");
            hdr.elems[22].v : ternary @name("elem_22");
#endif
#if 2 * INA_LANES > 23
            hdr.elems[23].isValid() : ternary @name("elem_23_valid");
            hdr.elems[23].v : ternary @name("elem_23");
#endif
#if 2 * INA_LANES > 24
            hdr.elems[24].isValid() : ternary @name("elem_24_valid");
            hdr.elems[24].v : ternary @name("elem_24");
#endif
#if 2 * INA_LANES > 25
            hdr.elems[25].isValid() : ternary @name("elem_25_valid");
            hdr.elems[25].v : ternary @name("elem_25");
#endif
        }
        actions = { set_clip_1; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif
#if 2 * INA_LANES > 26
    INA_PAIR_STAGE(12)
    table lane_clips_2 {
        key = {
            meta.value_op : ternary;
#if 2 * INA_LANES > 26
            hdr.elems[26].isValid() : ternary @name("elem_26_valid");
            hdr.elems[26].v : ternary @name("elem_26");
#endif
#if 2 * INA_LANES > 27
            hdr.elems[27].isValid() : ternary @name("elem_27_valid");
            hdr.elems[27].v : ternary @name("elem_27");
#endif
#if 2 * INA_LANES > 28
            hdr.elems[28].isValid() : ternary @name("elem_28_valid");
            hdr.elems[28].v : ternary @name("elem_28");
#endif
#if 2 * INA_LANES > 29
            hdr.elems[29].isValid() : ternary @name("elem_29_valid");
            hdr.elems[29].v : ternary @name("elem_29");
#endif
#if 2 * INA_LANES > 30
            hdr.elems[30].isValid() : ternary @name("elem_30_valid");
            hdr.elems[30].v : ternary @name("elem_30");
#endif
#if 2 * INA_LANES > 31
            hdr.elems[31].isValid() : ternary @name("elem_31_valid");
            hdr.elems[31].v : ternary @name("elem_31");
#endif
#if 2 * INA_LANES > 32
            hdr.elems_hi[0].isValid() : ternary @name("elem_32_valid");
            hdr.elems_hi[0].v : ternary @name("elem_32");
#endif
#if 2 * INA_LANES > 33
            hdr.elems_hi[1].isValid() : ternary @name("elem_33_valid");
            hdr.elems_hi[1].v : ternary @name("elem_33");
#endif
#if 2 * INA_LANES > 34
            hdr.elems_hi[2].isValid() : ternary @name("elem_34_valid");
            hdr.elems_hi[2].v : ternary @name("elem_34");
#endif
#if 2 * INA_LANES > 35
            hdr.elems_hi[3].isValid() : ternary @name("elem_35_valid");
            hdr.elems_hi[3].v : ternary @name("elem_35");
#endif
#if 2 * INA_LANES > 36
            hdr.elems_hi[4].isValid() : ternary @name("elem_36_valid");
            hdr.elems_hi[4].v : ternary @name("elem_36");
#endif
#if 2 * INA_LANES > 37
            hdr.elems_hi[5].isValid() : ternary @name("elem_37_valid");
            hdr.elems_hi[5].v : ternary @name("elem_37");
#endif
#if 2 * INA_LANES > 38
            hdr.elems_hi[6].isValid() : ternary @name("elem_38_valid");
            hdr.elems_hi[6].v : ternary @name("elem_38");
#endif
        }
        actions = { set_clip_2; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif
#if 2 * INA_LANES > 39
    INA_PAIR_STAGE(13)
    table lane_clips_3 {
        key = {
            meta.value_op : ternary;
#if 2 * INA_LANES > 39
            hdr.elems_hi[7].isValid() : ternary @name("elem_39_valid");
            hdr.elems_hi[7].v : ternary @name("elem_39");
#endif
#if 2 * INA_LANES > 40
            hdr.elems_hi[8].isValid() : ternary @name("elem_40_valid");
            hdr.elems_hi[8].v : ternary @name("elem_40");
#endif
#if 2 * INA_LANES > 41
            hdr.elems_hi[9].isValid() : ternary @name("elem_41_valid");
            hdr.elems_hi[9].v : ternary @name("elem_41");
#endif
#if 2 * INA_LANES > 42
            hdr.elems_hi[10].isValid() : ternary @name("elem_42_valid");
            hdr.elems_hi[10].v : ternary @name("elem_42");
#endif
#if 2 * INA_LANES > 43
            hdr.elems_hi[11].isValid() : ternary @name("elem_43_valid");
            hdr.elems_hi[11].v : ternary @name("elem_43");
#endif
#if 2 * INA_LANES > 44
            hdr.elems_hi[12].isValid() : ternary @name("elem_44_valid");
            hdr.elems_hi[12].v : ternary @name("elem_44");
#endif
#if 2 * INA_LANES > 45
            hdr.elems_hi[13].isValid() : ternary @name("elem_45_valid");
            hdr.elems_hi[13].v : ternary @name("elem_45");
#endif
#if 2 * INA_LANES > 46
            hdr.elems_hi[14].isValid() : ternary @name("elem_46_valid");
            hdr.elems_hi[14].v : ternary @name("elem_46");
#endif
#if 2 * INA_LANES > 47
            hdr.elems_hi[15].isValid() : ternary @name("elem_47_valid");
            hdr.elems_hi[15].v : ternary @name("elem_47");
#endif
#if 2 * INA_LANES > 48
            hdr.elems_hi[16].isValid() : ternary @name("elem_48_valid");
            hdr.elems_hi[16].v : ternary @name("elem_48");
#endif
#if 2 * INA_LANES > 49
            hdr.elems_hi[17].isValid() : ternary @name("elem_49_valid");
            hdr.elems_hi[17].v : ternary @name("elem_49");
#endif
#if 2 * INA_LANES > 50
            hdr.elems_hi[18].isValid() : ternary @name("elem_50_valid");
            hdr.elems_hi[18].v : ternary @name("elem_50");
#endif
#if 2 * INA_LANES > 51
            hdr.elems_hi[19].isValid() : ternary @name("elem_51_valid");
            hdr.elems_hi[19].v : ternary @name("elem_51");
#endif
        }
        actions = { set_clip_3; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif
#if 2 * INA_LANES > 52
    INA_PAIR_STAGE(15)
    table lane_clips_4 {
        key = {
            meta.value_op : ternary;
#if 2 * INA_LANES > 52
            hdr.elems_hi[20].isValid() : ternary @name("elem_52_valid");
            hdr.elems_hi[20].v : ternary @name("elem_52");
#endif
#if 2 * INA_LANES > 53
            hdr.elems_hi[21].isValid() : ternary @name("elem_53_valid");
            hdr.elems_hi[21].v : ternary @name("elem_53");
#endif
#if 2 * INA_LANES > 54
            hdr.elems_hi[22].isValid() : ternary @name("elem_54_valid");
            hdr.elems_hi[22].v : ternary @name("elem_54");
#endif
#if 2 * INA_LANES > 55
            hdr.elems_hi[23].isValid() : ternary @name("elem_55_valid");
            hdr.elems_hi[23].v : ternary @name("elem_55");
#endif
#if 2 * INA_LANES > 56
            hdr.elems_hi[24].isValid() : ternary @name("elem_56_valid");
            hdr.elems_hi[24].v : ternary @name("elem_56");
#endif
#if 2 * INA_LANES > 57
            hdr.elems_hi[25].isValid() : ternary @name("elem_57_valid");
            hdr.elems_hi[25].v : ternary @name("elem_57");
#endif
#if 2 * INA_LANES > 58
            hdr.elems_hi[26].isValid() : ternary @name("elem_58_valid");
            hdr.elems_hi[26].v : ternary @name("elem_58");
#endif
#if 2 * INA_LANES > 59
            hdr.elems_hi[27].isValid() : ternary @name("elem_59_valid");
            hdr.elems_hi[27].v : ternary @name("elem_59");
#endif
#if 2 * INA_LANES > 60
            hdr.elems_hi[28].isValid() : ternary @name("elem_60_valid");
            hdr.elems_hi[28].v : ternary @name("elem_60");
#endif
#if 2 * INA_LANES > 61
            hdr.elems_hi[29].isValid() : ternary @name("elem_61_valid");
            hdr.elems_hi[29].v : ternary @name("elem_61");
#endif
        }
        actions = { set_clip_4; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif
#if INA_LANES > 0
    INA_PAIR_LANE(0, 0, hdr.elems[0], hdr.elems[1], 6)
#endif
#if INA_LANES > 1
    INA_PAIR_LANE(1, 2, hdr.elems[2], hdr.elems[3], 6)
#endif
#if INA_LANES > 2
    INA_PAIR_LANE(2, 4, hdr.elems[4], hdr.elems[5], 7)
#endif
#if INA_LANES > 3
    INA_PAIR_LANE(3, 6, hdr.elems[6], hdr.elems[7], 7)
#endif
#if INA_LANES > 4
    INA_PAIR_LANE(4, 8, hdr.elems[8], hdr.elems[9], 7)
#endif
#if INA_LANES > 5
    INA_PAIR_LANE(5, 10, hdr.elems[10], hdr.elems[11], 7)
#endif
#if INA_LANES > 6
    INA_PAIR_LANE(6, 12, hdr.elems[12], hdr.elems[13], 8)
#endif
#if INA_LANES > 7
    INA_PAIR_LANE(7, 14, hdr.elems[14], hdr.elems[15], 8)
#endif
#if INA_LANES > 8
    INA_PAIR_LANE(8, 16, hdr.elems[16], hdr.elems[17], 8)
#endif
#if INA_LANES > 9
    INA_PAIR_LANE(9, 18, hdr.elems[18], hdr.elems[19], 8)
#endif
#if INA_LANES > 10
    INA_PAIR_LANE(10, 20, hdr.elems[20], hdr.elems[21], 9)
#endif
#if INA_LANES > 11
    INA_PAIR_LANE(11, 22, hdr.elems[22], hdr.elems[23], 9)
#endif
#if INA_LANES > 12
    INA_PAIR_LANE(12, 24, hdr.elems[24], hdr.elems[25], 9)
#endif
#if INA_LANES > 13
    INA_PAIR_LANE(13, 26, hdr.elems[26], hdr.elems[27], 9)
#endif
#if INA_LANES > 14
    INA_PAIR_LANE(14, 28, hdr.elems[28], hdr.elems[29], 10)
#endif
#if INA_LANES > 15
    INA_PAIR_LANE(15, 30, hdr.elems[30], hdr.elems[31], 10)
#endif
#if INA_LANES > 16
    INA_PAIR_LANE(16, 32, hdr.elems_hi[0], hdr.elems_hi[1], 10)
#endif
#if INA_LANES > 17
    INA_PAIR_LANE(17, 34, hdr.elems_hi[2], hdr.elems_hi[3], 10)
#endif
#if INA_LANES > 18
    INA_PAIR_LANE(18, 36, hdr.elems_hi[4], hdr.elems_hi[5], 11)
#endif
#if INA_LANES > 19
    INA_PAIR_LANE(19, 38, hdr.elems_hi[6], hdr.elems_hi[7], 11)
#endif
#if INA_LANES > 20
    INA_PAIR_LANE(20, 40, hdr.elems_hi[8], hdr.elems_hi[9], 11)
#endif
#if INA_LANES > 21
    INA_PAIR_LANE(21, 42, hdr.elems_hi[10], hdr.elems_hi[11], 11)
#endif
#if INA_LANES > 22
    INA_PAIR_LANE(22, 44, hdr.elems_hi[12], hdr.elems_hi[13], 12)
#endif
#if INA_LANES > 23
    INA_PAIR_LANE(23, 46, hdr.elems_hi[14], hdr.elems_hi[15], 12)
#endif
#if INA_LANES > 24
    INA_PAIR_LANE(24, 48, hdr.elems_hi[16], hdr.elems_hi[17], 12)
#endif
#if INA_LANES > 25
    INA_PAIR_LANE(25, 50, hdr.elems_hi[18], hdr.elems_hi[19], 12)
#endif
#if INA_LANES > 26
    INA_PAIR_LANE(26, 52, hdr.elems_hi[20], hdr.elems_hi[21], 13)
#endif
#if INA_LANES > 27
    INA_PAIR_LANE(27, 54, hdr.elems_hi[22], hdr.elems_hi[23], 13)
#endif
#if INA_LANES > 28
    INA_PAIR_LANE(28, 56, hdr.elems_hi[24], hdr.elems_hi[25], 13)
#endif
#if INA_LANES > 29
    INA_PAIR_LANE(29, 58, hdr.elems_hi[26], hdr.elems_hi[27], 13)
#endif
#if INA_LANES > 30
    INA_PAIR_LANE(30, 60, hdr.elems_hi[28], hdr.elems_hi[29], 14)
#endif

    apply {
        if (meta.second == 0) {
#if INA_LANES > 0
            lane_0.apply();
#endif
#if INA_LANES > 1
            lane_1.apply();
#endif
#if INA_LANES > 2
            lane_2.apply();
#endif
#if INA_LANES > 3
            lane_3.apply();
#endif
#if INA_LANES > 4
            lane_4.apply();
#endif
#if INA_LANES > 5
            lane_5.apply();
#endif
#if INA_LANES > 6
            lane_6.apply();
#endif
#if INA_LANES > 7
            lane_7.apply();
#endif
#if INA_LANES > 8
            lane_8.apply();
#endif
#if INA_LANES > 9
            lane_9.apply();
#endif
#if INA_LANES > 10
            lane_10.apply();
#endif
#if INA_LANES > 11
            lane_11.apply();
#endif
#if INA_LANES > 12
            lane_12.apply();
#endif
#if INA_LANES > 13
            lane_13.apply();
#endif
#if INA_LANES > 14
            lane_14.apply();
#endif
#if INA_LANES > 15
            lane_15.apply();
#endif
#if INA_LANES > 16
            lane_16.apply();
#endif
#if INA_LANES > 17
            lane_17.apply();
#endif
#if INA_LANES > 18
            lane_18.apply();
#endif
#if INA_LANES > 19
            lane_19.apply();
#endif
#if INA_LANES > 20
            lane_20.apply();
#endif
#if INA_LANES > 21
            lane_21.apply();
#endif
#if INA_LANES > 22
            lane_22.apply();
#endif
#if INA_LANES > 23
            lane_23.apply();
#endif
#if INA_LANES > 24
            lane_24.apply();
#endif
#if INA_LANES > 25
            lane_25.apply();
#endif
#if INA_LANES > 26
            lane_26.apply();
#endif
#if INA_LANES > 27
            lane_27.apply();
#endif
#if INA_LANES > 28
            lane_28.apply();
#endif
#if INA_LANES > 29
            lane_29.apply();
#endif
#if INA_LANES > 30
            lane_30.apply();
#endif
#if 2 * INA_LANES > 0
            lane_clips.apply();
#endif
#if 2 * INA_LANES > 13
            lane_clips_1.apply();
#endif
#if 2 * INA_LANES > 26
            lane_clips_2.apply();
#endif
#if 2 * INA_LANES > 39
            lane_clips_3.apply();
#endif
#if 2 * INA_LANES > 52
            lane_clips_4.apply();
#endif
            if (meta.clip_0 == 1 || meta.clip_1 == 1 || meta.clip_2 == 1 ||
                meta.clip_3 == 1 || meta.clip_4 == 1) {
                meta.clipped = 1;
                meta.flags_in = meta.flags_in | AGG_OVERFLOW;
            }
        }
    }
}

#endif
