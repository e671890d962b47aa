/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_value_late`: second-pass-only lanes, elements
 * 2 * INA_LEAD_LANES + 2 * INA_LANES .. + INA_LATE_LANES - 1
 * (include/constants.p4). The word lanes (stages/aggregator_value.p4)
 * start after the control registers, so a pass returns at most what the
 * stages behind them hold; in the second pass the control registers do not
 * run (the first pass decided and the pass header carries the value
 * action), and their stages are free for lanes of the second pass alone.
 * On Tofino 1 that is 18 more elements: with the word lanes' 30 and the
 * lead lanes' 14 (stages/aggregator_value_lead.p4), 62 in two passes
 * (docs/p4.md, "Tofino back end").
 *
 * A late lane is the word lanes' lane with one row (it runs in one pass,
 * indexed by the aggregator's index) and a key of what the parser restores:
 * the carried value action (pass_value_op) and whether its element is
 * present. A claim clears every late lane its packet has no element for,
 * without the word lanes' range on the row's length (`elements`): a lane
 * past `elements` is never added to or read (a longer packet is
 * malformed_elements), so clearing it changes nothing, and a key on
 * `elements` waited for ina_config's lookup, which kept the late lanes out
 * of stage 0 (12 late lanes took 13 stages with it). It is applied in the else
 * branch of the first pass's control registers (ina_tna.p4), so that the
 * back end sees the two as exclusive and places both in the same stages:
 * applied under a test of its own (`if (meta.second == 1)`) the control
 * moved behind the lanes: 17 stages on Tofino 1 with 14 late lanes.
 *
 * The overflow test is the word lanes' (a ternary lookup on the returned
 * elements, two entries per lane written by p4gen.py), in three tables,
 * late_clips, late_clips_1 and late_clips_2 (below).
 */
#ifndef INA_P4_STAGE_AGGREGATOR_VALUE_LATE
#define INA_P4_STAGE_AGGREGATOR_VALUE_LATE
#if INA_LATE_LANES > 0

/* Tofino 1: each late lane is pinned to a stage with a stateful ALU that
 * the control leaves free (INA_LATE_LANE's STAGE: 3 in stage 0 beside
 * share_flag, 4 in 1 and 2, 3 in 3 beside aggregator_id, 2 in 4 and 5
 * beside the bitmap, the count and the fair share's registers). Placed by
 * the back end, the late lanes took stages from the highest lane down and
 * left ALUs of stages 0 and 1 idle; from 16 late lanes on, lane 0 fell
 * into stage 6, the word lanes behind it, and the program took 13 stages.
 * Pinned, 18 fill every stateful ALU of stages 0-9 (docs/p4.md, "Tofino
 * back end"). */
#if defined(__TARGET_TOFINO__) && __TARGET_TOFINO__ == 1
#define INA_STAGE(N) @stage(N)
#else
#define INA_STAGE(N)
#endif
#define INA_LATE_LANE(I, STAGE) \
    INA_INT_REGISTER(aggregator_late_##I, INA_AGGREGATORS); \
    INA_LANE_REGISTER_ACTION_NO_OUT(aggregator_late_##I, late_write_##I, hdr.ina.agg_index, \
        value = (int<32>)hdr.late[I].v; \
    ) \
    INA_LANE_REGISTER_ACTION_NO_OUT(aggregator_late_##I, late_clear_##I, hdr.ina.agg_index, \
        value = 0; \
    ) \
    INA_LANE_REGISTER_ACTION(aggregator_late_##I, late_add_##I, hdr.ina.agg_index, hdr.late[I].v, \
        if ((bit<32>)value != 32w0x7fffffff && (bit<32>)value != 32w0x80000000) { \
            value = value |+| (int<32>)hdr.late[I].v; \
        } \
        result = (bit<32>)value; \
    ) \
    INA_LANE_REGISTER_ACTION(aggregator_late_##I, late_read_##I, hdr.ina.agg_index, hdr.late[I].v, \
        result = (bit<32>)value; \
    ) \
    INA_STAGE(STAGE) table late_lane_##I { \
        key = { \
            meta.pass_value_op : ternary; \
            hdr.late[I].isValid() : ternary; \
        } \
        actions = { late_write_##I; late_clear_##I; late_add_##I; late_read_##I; NoAction; } \
        const default_action = NoAction(); \
        size = 8; \
        const entries = { \
            (VALUE_WRITE, true) : late_write_##I(); \
            (VALUE_WRITE, false) : late_clear_##I(); \
            (VALUE_ADD, true) : late_add_##I(); \
            (VALUE_ADD_READ, true) : late_add_##I(); \
            (VALUE_READ, true) : late_read_##I(); \
        } \
    }

control aggregator_value_late(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* The overflow test of the late lanes, in three tables: lanes 0-3 in
     * late_clips, 4-14 in late_clips_1, 15-17 in late_clips_2, each keyed
     * on an adding packet's value action (VALUE_ADD or VALUE_ADD_READ) and
     * its late elements as they came back, at INT32_MAX or INT32_MIN. Each
     * sets a bit of its own (late_clip_0, _1, _2), which lane_clips folds
     * into the overflow (stages/aggregator_value.p4), so the tables write
     * nothing the control reads and none waits for another. One table of
     * every late lane's keys (a 498-bit ternary key at 15 lanes) took a
     * stage of its own after the last late lane, and 14 late lanes took 13
     * stages; split, they sit beside the control (docs/p4.md, "Tofino back
     * end"). late_clips follows the last late lanes (0-1, stage 5) into
     * stage 6, the first word lanes' stage, whose 66-byte ternary crossbar
     * it shares with them and the count's verdict: with late lanes 0-6 (31
     * bytes) the stage held two word lanes, with 0-3 (17) it holds three. */
    action set_late_clip_0() {
        meta.late_clip_0 = 1;
    }
    table late_clips {
        key = {
            meta.pass_value_op : ternary @name("value_op");
#if INA_LATE_LANES > 0
            hdr.late[0].isValid() : ternary @name("late_0_valid");
            hdr.late[0].v : ternary @name("late_0");
#endif
#if INA_LATE_LANES > 1
            hdr.late[1].isValid() : ternary @name("late_1_valid");
            hdr.late[1].v : ternary @name("late_1");
#endif
#if INA_LATE_LANES > 2
            hdr.late[2].isValid() : ternary @name("late_2_valid");
            hdr.late[2].v : ternary @name("late_2");
#endif
#if INA_LATE_LANES > 3
            hdr.late[3].isValid() : ternary @name("late_3_valid");
            hdr.late[3].v : ternary @name("late_3");
#endif
        }
        actions = { set_late_clip_0; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#if INA_LATE_LANES > 4
    action set_late_clip_1() {
        meta.late_clip_1 = 1;
    }
    table late_clips_1 {
        key = {
            meta.pass_value_op : ternary @name("value_op");
#if INA_LATE_LANES > 4
            hdr.late[4].isValid() : ternary @name("late_4_valid");
            hdr.late[4].v : ternary @name("late_4");
#endif
#if INA_LATE_LANES > 5
            hdr.late[5].isValid() : ternary @name("late_5_valid");
            hdr.late[5].v : ternary @name("late_5");
#endif
#if INA_LATE_LANES > 6
            hdr.late[6].isValid() : ternary @name("late_6_valid");
            hdr.late[6].v : ternary @name("late_6");
#endif
#if INA_LATE_LANES > 7
            hdr.late[7].isValid() : ternary @name("late_7_valid");
            hdr.late[7].v : ternary @name("late_7");
#endif
#if INA_LATE_LANES > 8
            hdr.late[8].isValid() : ternary @name("late_8_valid");
            hdr.late[8].v : ternary @name("late_8");
#endif
#if INA_LATE_LANES > 9
            hdr.late[9].isValid() : ternary @name("late_9_valid");
            hdr.late[9].v : ternary @name("late_9");
#endif
#if INA_LATE_LANES > 10
            hdr.late[10].isValid() : ternary @name("late_10_valid");
            hdr.late[10].v : ternary @name("late_10");
#endif
#if INA_LATE_LANES > 11
            hdr.late[11].isValid() : ternary @name("late_11_valid");
            hdr.late[11].v : ternary @name("late_11");
#endif
#if INA_LATE_LANES > 12
            hdr.late[12].isValid() : ternary @name("late_12_valid");
            hdr.late[12].v : ternary @name("late_12");
#endif
#if INA_LATE_LANES > 13
            hdr.late[13].isValid() : ternary @name("late_13_valid");
            hdr.late[13].v : ternary @name("late_13");
#endif
#if INA_LATE_LANES > 14
            hdr.late[14].isValid() : ternary @name("late_14_valid");
            hdr.late[14].v : ternary @name("late_14");
#endif
        }
        actions = { set_late_clip_1; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif

#if INA_LATE_LANES > 15
    action set_late_clip_2() {
        meta.late_clip_2 = 1;
    }
    table late_clips_2 {
        key = {
            meta.pass_value_op : ternary @name("value_op");
            hdr.late[15].isValid() : ternary @name("late_15_valid");
            hdr.late[15].v : ternary @name("late_15");
#if INA_LATE_LANES > 16
            hdr.late[16].isValid() : ternary @name("late_16_valid");
            hdr.late[16].v : ternary @name("late_16");
#endif
#if INA_LATE_LANES > 17
            hdr.late[17].isValid() : ternary @name("late_17_valid");
            hdr.late[17].v : ternary @name("late_17");
#endif
        }
        actions = { set_late_clip_2; NoAction; }
        const default_action = NoAction();
        size = 64;
    }
#endif


#if INA_LATE_LANES > 0
    INA_LATE_LANE(0, 5)
#endif
#if INA_LATE_LANES > 1
    INA_LATE_LANE(1, 5)
#endif
#if INA_LATE_LANES > 2
    INA_LATE_LANE(2, 4)
#endif
#if INA_LATE_LANES > 3
    INA_LATE_LANE(3, 4)
#endif
#if INA_LATE_LANES > 4
    INA_LATE_LANE(4, 3)
#endif
#if INA_LATE_LANES > 5
    INA_LATE_LANE(5, 3)
#endif
#if INA_LATE_LANES > 6
    INA_LATE_LANE(6, 3)
#endif
#if INA_LATE_LANES > 7
    INA_LATE_LANE(7, 2)
#endif
#if INA_LATE_LANES > 8
    INA_LATE_LANE(8, 2)
#endif
#if INA_LATE_LANES > 9
    INA_LATE_LANE(9, 2)
#endif
#if INA_LATE_LANES > 10
    INA_LATE_LANE(10, 2)
#endif
#if INA_LATE_LANES > 11
    INA_LATE_LANE(11, 1)
#endif
#if INA_LATE_LANES > 12
    INA_LATE_LANE(12, 1)
#endif
#if INA_LATE_LANES > 13
    INA_LATE_LANE(13, 1)
#endif
#if INA_LATE_LANES > 14
    INA_LATE_LANE(14, 1)
#endif
#if INA_LATE_LANES > 15
    INA_LATE_LANE(15, 0)
#endif
#if INA_LATE_LANES > 16
    INA_LATE_LANE(16, 0)
#endif
#if INA_LATE_LANES > 17
    INA_LATE_LANE(17, 0)
#endif

    apply {
#if INA_LATE_LANES > 0
        late_lane_0.apply();
#endif
#if INA_LATE_LANES > 1
        late_lane_1.apply();
#endif
#if INA_LATE_LANES > 2
        late_lane_2.apply();
#endif
#if INA_LATE_LANES > 3
        late_lane_3.apply();
#endif
#if INA_LATE_LANES > 4
        late_lane_4.apply();
#endif
#if INA_LATE_LANES > 5
        late_lane_5.apply();
#endif
#if INA_LATE_LANES > 6
        late_lane_6.apply();
#endif
#if INA_LATE_LANES > 7
        late_lane_7.apply();
#endif
#if INA_LATE_LANES > 8
        late_lane_8.apply();
#endif
#if INA_LATE_LANES > 9
        late_lane_9.apply();
#endif
#if INA_LATE_LANES > 10
        late_lane_10.apply();
#endif
#if INA_LATE_LANES > 11
        late_lane_11.apply();
#endif
#if INA_LATE_LANES > 12
        late_lane_12.apply();
#endif
#if INA_LATE_LANES > 13
        late_lane_13.apply();
#endif
#if INA_LATE_LANES > 14
        late_lane_14.apply();
#endif
#if INA_LATE_LANES > 15
        late_lane_15.apply();
#endif
#if INA_LATE_LANES > 16
        late_lane_16.apply();
#endif
#if INA_LATE_LANES > 17
        late_lane_17.apply();
#endif
        late_clips.apply();
#if INA_LATE_LANES > 4
        late_clips_1.apply();
#endif
#if INA_LATE_LANES > 15
        late_clips_2.apply();
#endif
    }
}

#endif /* INA_LATE_LANES */
#endif
