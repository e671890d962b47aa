/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_value`: the running sums. One register array per lane,
 * because a Tofino stateful ALU updates one 32-bit word per packet: lane i
 * holds element i in pass 1 (row 2 * index) and element 31 + i in pass 2
 * (row 2 * index + 1), so 62 elements need two passes through the same 31
 * lanes (ATP Appendix C). Each lane has the RegisterActions of the software
 * switch's value kernels (value_write, value_add, value_read, and
 * value_clear below), suffixed with the lane number: Tofino attaches at
 * most four RegisterActions to one register, so value_add_read is
 * value_add's register program, the packet taking the sum in the lane's
 * action ALUs that follow (INA_LANE_SUM). A claim owns the whole row:
 * value_write writes the packet's elements and zeroes the lanes past them up
 * to `elements` (process.cpp's memset), with value_clear on those lanes, so
 * a longer packet of the same fragment adds onto zeros.
 *
 * The register saturates (|+| on int<32>, done by the stateful ALU). A
 * stateful ALU has a single output word, and the packet needs both the sum
 * and whether it clipped; so the adding actions return the register's old
 * value, and the lane recomputes the saturated sum and the clip test from
 * old value and packet value in the action ALUs that follow:
 *
 *   sum     = old |+| pkt
 *   clipped = sign bit of ((old ^ wrapped) & (pkt ^ wrapped)), wrapped = old + pkt
 *
 * which is exact (a sum that lands on INT32_MAX without clipping is not an
 * overflow). VALUE_ADD and VALUE_ADD_READ run the same register action;
 * they differ in whether the packet takes the sum, as in the C++ kernels.
 *
 * Saturation holds (ATP section 3.8): a word at INT32_MAX or INT32_MIN is
 * not added to (the register program's two conditions), and the lane gives
 * the packet that word. The word keeps no trace of whether it clipped or
 * landed on the limit exactly, so an add that would have moved it counts as
 * a clip: the result carries OVERFLOW and the PS recomputes in floating
 * point, as with pipeline/src/value_simd.cpp.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_VALUE
#define INA_P4_STAGE_AGGREGATOR_VALUE

#define INA_LANE(I) \
    int<32> old_##I = 0; \
    INA_INT_REGISTER(aggregator_value_##I, INA_VALUE_ROWS); \
    INA_INT_REGISTER_ACTION(aggregator_value_##I, value_write_##I, meta.value_row, old_##I, \
        value = (int<32>)hdr.elems[I].v; \
        result = 0; \
    ) \
    INA_INT_REGISTER_ACTION(aggregator_value_##I, value_clear_##I, meta.value_row, old_##I, \
        value = 0; \
        result = 0; \
    ) \
    INA_INT_REGISTER_ACTION(aggregator_value_##I, value_add_##I, meta.value_row, old_##I, \
        result = value; \
        if (value != INA_INT32_MAX && value != INA_INT32_MIN) { \
            value = value |+| (int<32>)hdr.elems[I].v; \
        } \
    ) \
    INA_INT_REGISTER_ACTION(aggregator_value_##I, value_read_##I, meta.value_row, old_##I, \
        result = value; \
    )

/* Lane I's old word was saturated: the register program held it. */
#define INA_LANE_HELD(I) (old_##I == INA_INT32_MAX || old_##I == INA_INT32_MIN)

/* Clip test of lane I, accumulated into `clip` (sign bit): the add clipped,
 * or it was held and the packet's element would have moved it. */
#define INA_LANE_CLIP(I) \
    if (INA_LANE_HELD(I)) { \
        if (hdr.elems[I].v != 0) { \
            clip = clip | 0x80000000; \
        } \
    } else { \
        clip = clip | ((((bit<32>)old_##I) ^ ((bit<32>)old_##I + hdr.elems[I].v)) & \
                       (hdr.elems[I].v ^ ((bit<32>)old_##I + hdr.elems[I].v))); \
    }

/* The sum lane I stored: the old word if held, else the saturated add. */
#define INA_LANE_SUM(I) \
    if (INA_LANE_HELD(I)) { \
        hdr.elems[I].v = (bit<32>)old_##I; \
    } else { \
        hdr.elems[I].v = (bit<32>)(old_##I |+| (int<32>)hdr.elems[I].v); \
    }

#define INA_LANE_APPLY(I) \
    if (hdr.elems[I].isValid()) { \
        if (meta.value_op == VALUE_WRITE) { \
            value_write_##I(); \
        } else if (meta.value_op == VALUE_ADD) { \
            value_add_##I(); \
            INA_LANE_CLIP(I) \
        } else if (meta.value_op == VALUE_ADD_READ) { \
            value_add_##I(); \
            INA_LANE_CLIP(I) \
            INA_LANE_SUM(I) \
        } else if (meta.value_op == VALUE_READ) { \
            value_read_##I(); \
            hdr.elems[I].v = (bit<32>)old_##I; \
        } \
    } else if (meta.value_op == VALUE_WRITE && row_mask[I:I] == 1) { \
        value_clear_##I(); \
    }

control aggregator_value(inout ina_headers_t hdr, inout ina_meta_t meta) {
    bit<16> row_lanes = 0;
    /* Bit i: lane i belongs to the row in this pass (i < row_lanes). */
    bit<32> row_mask = 0;
    action set_row_mask(bit<32> mask) { row_mask = mask; }
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

    INA_LANE(0)
    INA_LANE(1)
    INA_LANE(2)
    INA_LANE(3)
    INA_LANE(4)
    INA_LANE(5)
    INA_LANE(6)
    INA_LANE(7)
    INA_LANE(8)
    INA_LANE(9)
    INA_LANE(10)
    INA_LANE(11)
    INA_LANE(12)
    INA_LANE(13)
    INA_LANE(14)
    INA_LANE(15)
    INA_LANE(16)
    INA_LANE(17)
    INA_LANE(18)
    INA_LANE(19)
    INA_LANE(20)
    INA_LANE(21)
    INA_LANE(22)
    INA_LANE(23)
    INA_LANE(24)
    INA_LANE(25)
    INA_LANE(26)
    INA_LANE(27)
    INA_LANE(28)
    INA_LANE(29)
    INA_LANE(30)

    apply {
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
            if (meta.value_op != VALUE_NONE && hdr.ina.elem_count > INA_LANES_16) {
                meta.need_second = 1;
            }
            if (meta.value_op == VALUE_WRITE && meta.cfg.elements > INA_LANES_16) {
                /* the row's second half must be zeroed too */
                meta.need_second = 1;
            }
        }
        /* Lanes of this pass that belong to the row (`elements`), as a bit
         * mask: a Tofino gateway tests a bit, not `I < row_lanes`, in the
         * few bytes each lane's condition may read. */
        row_lanes = meta.cfg.elements;
        if (meta.second == 1) {
            row_lanes = meta.cfg.elements - INA_LANES_16;
        }
        lane_mask.apply();
        meta.value_row = (hdr.ina.agg_index << 1) | (bit<32>)meta.second;
        bit<32> clip = 0;
        INA_LANE_APPLY(0)
        INA_LANE_APPLY(1)
        INA_LANE_APPLY(2)
        INA_LANE_APPLY(3)
        INA_LANE_APPLY(4)
        INA_LANE_APPLY(5)
        INA_LANE_APPLY(6)
        INA_LANE_APPLY(7)
        INA_LANE_APPLY(8)
        INA_LANE_APPLY(9)
        INA_LANE_APPLY(10)
        INA_LANE_APPLY(11)
        INA_LANE_APPLY(12)
        INA_LANE_APPLY(13)
        INA_LANE_APPLY(14)
        INA_LANE_APPLY(15)
        INA_LANE_APPLY(16)
        INA_LANE_APPLY(17)
        INA_LANE_APPLY(18)
        INA_LANE_APPLY(19)
        INA_LANE_APPLY(20)
        INA_LANE_APPLY(21)
        INA_LANE_APPLY(22)
        INA_LANE_APPLY(23)
        INA_LANE_APPLY(24)
        INA_LANE_APPLY(25)
        INA_LANE_APPLY(26)
        INA_LANE_APPLY(27)
        INA_LANE_APPLY(28)
        INA_LANE_APPLY(29)
        INA_LANE_APPLY(30)
        if (clip[31:31] == 1) {
            meta.clipped = 1;
        }
    }
}

#endif
