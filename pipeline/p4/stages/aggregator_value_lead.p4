/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `aggregator_value_lead`: the lead lanes (-DINA_LEAD_LANES=N,
 * Tofino 1's 7). Word lanes like stages/aggregator_value.p4's, in the two
 * stages after its overflow test (lane_clips, stage 10) and with it
 * (aggregator_flags, stage 11): stateful ALUs the other lanes cannot use,
 * because a lane's element must be tested for a clip after the lane, and
 * nothing follows stage 11 in ingress. So a lead lane's element is tested
 * where it can still be read:
 *
 *  - the second pass's lead elements lead the frame (elements 0..N-1):
 *    egress, which parses at most 160 bytes on Tofino 1, reads them right
 *    after the INA header and tests them there (lead_overflow, below);
 *  - the first pass's (elements N..2N-1) come back in the recirculated
 *    frame, and the second pass's parser tests them as it sets them aside
 *    (h<i> in ina_tna.p4: meta.lead_limit, which lane_clips folds into the
 *    overflow of a recirculated frame). A packet that does not complete is
 *    resubmitted, the original frame with it, and is dropped after its
 *    second pass: its clip is not tested, and the aggregator's word stays
 *    at the limit (the hold), where the packet that completes finds it.
 *
 * The egress test cannot reach aggregator_flags, so a lead element's clip
 * marks the packet that carries it: the completing packet (the hold keeps
 * every earlier clip in the word it reads) and a resent packet that reads
 * the row (VALUE_READ, which the other tests leave to the aggregator's
 * flags). docs/p4.md, "62 elements on Tofino 1: lead lanes".
 *
 * A lead lane's key is the packet's value action and its element's
 * presence, an exact match (the late lanes' key, on value_op): stage 10's
 * ternary crossbar is lane_clips' (503 bits), and with the word lanes'
 * ternary key and range on `elements` four lead lanes there pushed
 * lane_clips and aggregator_flags two stages on. value_op is known by
 * then in the first pass (count_verdict, stage 6) and restored by the
 * parser in the second. A claim clears every lead lane whose element it
 * lacks, past `elements` too, as the late lanes do: such a lane is never
 * added to or read.
 */
#ifndef INA_P4_STAGE_AGGREGATOR_VALUE_LEAD
#define INA_P4_STAGE_AGGREGATOR_VALUE_LEAD
#if INA_LEAD_LANES > 0

/* Tofino 1: lead lanes 0-3 in stage 10 beside lane_clips, 4-6 in stage 11
 * beside aggregator_flags (INA_LEAD_LANE's STAGE), pinned as the late lanes
 * are to the stateful ALUs the other lanes leave. */
#if defined(__TARGET_TOFINO__) && __TARGET_TOFINO__ == 1
#define INA_LEAD_STAGE(N) @stage(N)
#else
#define INA_LEAD_STAGE(N)
#endif
#define INA_LEAD_LANE(I, STAGE) \
    INA_INT_REGISTER(aggregator_lead_##I, INA_VALUE_ROWS); \
    INA_LANE_REGISTER_ACTION_NO_OUT(aggregator_lead_##I, lead_write_##I, meta.value_row, \
        value = (int<32>)hdr.lead[I].v; \
    ) \
    INA_LANE_REGISTER_ACTION_NO_OUT(aggregator_lead_##I, lead_clear_##I, meta.value_row, \
        value = 0; \
    ) \
    INA_LANE_REGISTER_ACTION(aggregator_lead_##I, lead_add_##I, meta.value_row, hdr.lead[I].v, \
        if ((bit<32>)value != 32w0x7fffffff && (bit<32>)value != 32w0x80000000) { \
            value = value |+| (int<32>)hdr.lead[I].v; \
        } \
        result = (bit<32>)value; \
    ) \
    INA_LANE_REGISTER_ACTION(aggregator_lead_##I, lead_read_##I, meta.value_row, hdr.lead[I].v, \
        result = (bit<32>)value; \
    ) \
    INA_LEAD_STAGE(STAGE) table lead_lane_##I { \
        key = { \
            meta.value_op : exact; \
            hdr.lead[I].isValid() : exact; \
        } \
        actions = { lead_write_##I; lead_clear_##I; lead_add_##I; lead_read_##I; NoAction; } \
        const default_action = NoAction(); \
        size = 8; \
        const entries = { \
            (VALUE_WRITE, true) : lead_write_##I(); \
            (VALUE_WRITE, false) : lead_clear_##I(); \
            (VALUE_ADD, true) : lead_add_##I(); \
            (VALUE_ADD_READ, true) : lead_add_##I(); \
            (VALUE_READ, true) : lead_read_##I(); \
        } \
    }

/* The lead lanes, in both passes, on the word lanes' row (value_rows). */
control aggregator_value_lead(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_LEAD_LANE(0, 10)
#if INA_LEAD_LANES > 1
    INA_LEAD_LANE(1, 10)
#endif
#if INA_LEAD_LANES > 2
    INA_LEAD_LANE(2, 10)
#endif
#if INA_LEAD_LANES > 3
    INA_LEAD_LANE(3, 10)
#endif
#if INA_LEAD_LANES > 4
    INA_LEAD_LANE(4, 11)
#endif
#if INA_LEAD_LANES > 5
    INA_LEAD_LANE(5, 11)
#endif
#if INA_LEAD_LANES > 6
    INA_LEAD_LANE(6, 11)
#endif

    apply {
        lead_lane_0.apply();
#if INA_LEAD_LANES > 1
        lead_lane_1.apply();
#endif
#if INA_LEAD_LANES > 2
        lead_lane_2.apply();
#endif
#if INA_LEAD_LANES > 3
        lead_lane_3.apply();
#endif
#if INA_LEAD_LANES > 4
        lead_lane_4.apply();
#endif
#if INA_LEAD_LANES > 5
        lead_lane_5.apply();
#endif
#if INA_LEAD_LANES > 6
        lead_lane_6.apply();
#endif
    }
}

/* The key of a lead element's overflow test: its validity and value, named
 * as p4gen writes them (lead_<lane>). */
#define INA_STR(X) #X
#define INA_LEAD_CLIP_KEY(I) \
    hdr.lead[I].isValid() : ternary @name(INA_STR(lead_##I##_valid)); \
    hdr.lead[I].v : ternary @name(INA_STR(lead_##I));

/* Egress: the second pass's lead elements of a packet that leaves with the
 * aggregator's flags (carry_flags), as its lead lanes returned them, at
 * INT32_MAX or INT32_MIN in a packet that added or read (VALUE_ADD,
 * VALUE_ADD_READ, VALUE_READ): the result's OVERFLOW flag (entries written
 * by p4gen, two per lane and value action). */
control lead_overflow(inout ina_headers_t hdr, inout ina_meta_t meta) {
    action set_overflow() {
        hdr.ina.flags = hdr.ina.flags | INA_F_OVERFLOW;
    }
    /* In stage 11, whose ternary crossbar and TCAM the ingress leaves
     * free (its lead lanes match exactly), rather than beside the word
     * lanes, whose keys use those of stages 6-9. */
    INA_LEAD_STAGE(11) table lead_clips {
        key = {
            meta.pass_value_op : ternary @name("value_op");
            INA_LEAD_CLIP_KEY(0)
#if INA_LEAD_LANES > 1
            INA_LEAD_CLIP_KEY(1)
#endif
#if INA_LEAD_LANES > 2
            INA_LEAD_CLIP_KEY(2)
#endif
#if INA_LEAD_LANES > 3
            INA_LEAD_CLIP_KEY(3)
#endif
#if INA_LEAD_LANES > 4
            INA_LEAD_CLIP_KEY(4)
#endif
#if INA_LEAD_LANES > 5
            INA_LEAD_CLIP_KEY(5)
#endif
#if INA_LEAD_LANES > 6
            INA_LEAD_CLIP_KEY(6)
#endif
        }
        actions = { set_overflow; NoAction; }
        const default_action = NoAction();
        size = 32;
    }

    apply {
        lead_clips.apply();
    }
}

#endif /* INA_LEAD_LANES */
#endif
