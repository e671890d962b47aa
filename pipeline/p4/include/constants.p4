/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Constants of the INA protocol and switch program. Each one mirrors
 * protocol/include/ina/wire.h or pipeline/include/ina/pipeline.h; the vector
 * runner (tests/p4/run_vectors.py) checks the counter numbering against
 * pipeline.h, so the two never drift apart silently.
 */
#ifndef INA_P4_CONSTANTS
#define INA_P4_CONSTANTS

/* wire.h */
const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IP_PROTO_UDP = 17;
const bit<16> INA_UDP_PORT = 18766;
const bit<8>  INA_VERSION = 1;
const bit<8>  INA_TYPE_DATA = 0;
const bit<8>  INA_TYPE_CONTROL = 1;
const bit<8>  INA_MAX_LEVELS = 4;
const bit<8>  INA_BITMAP_BITS = 32;
const bit<16> INA_AGG_NODE_ANY = 0;
const bit<32> INA_ALL_CHILDREN = 0xFFFFFFFF;
/* UDP header + INA header, bytes: the UDP length is this + 4 * elem_count. */
const bit<16> INA_UDP_FIXED_LEN = 52;
/* Ethernet + IPv4 (no options) + UDP + INA header, bytes. */
const bit<32> INA_PAYLOAD_OFFSET = 86;

const bit<16> INA_F_ACK = 0x1;
const bit<16> INA_F_RESEND = 0x2;
const bit<16> INA_F_COLLISION = 0x4;
const bit<16> INA_F_ECN = 0x8;
const bit<16> INA_F_OVERFLOW = 0x10;
const bit<16> INA_F_COL = 0x20;
const bit<16> INA_F_BYPASS = 0x40;
const bit<16> INA_F_FLOAT = 0x80;

/* The layout of the value lanes (docs/p4.md):
 *  - word lanes: one element per lane, a 32-bit register word; 2 * INA_LANES
 *    elements take two passes (ATP Appendix C, stages/aggregator_value.p4).
 *    Tofino 1 and BMv2 build them by default, Tofino 2 with -DINA_WORD_LANES;
 *  - pair lanes: two elements per lane in a 64-bit word, 2 * INA_LANES
 *    elements in one pass (stages/aggregator_value_pair.p4). A Tofino 2
 *    stateful ALU returns both; Tofino 1's returns one word, so Tofino 1 has
 *    no pair form. Tofino 2 builds them by default, BMv2 with
 *    -DINA_PAIR_LANES (which runs the vectors through them). */
#if __TARGET_TOFINO__ == 2 && !defined(INA_WORD_LANES) && !defined(INA_PAIR_LANES)
#define INA_PAIR_LANES 1
#endif
#if defined(INA_WORD_LANES) && defined(INA_PAIR_LANES)
#error "INA_WORD_LANES and INA_PAIR_LANES: a build has one lane layout"
#endif
#if defined(INA_PAIR_LANES) && defined(__TARGET_TOFINO__) && __TARGET_TOFINO__ != 2
#error "INA_PAIR_LANES: pair lanes need Tofino 2's stateful ALU"
#endif


/* Value lanes, a compile-time parameter (-DINA_LANES=N, 1..31): one stateful
 * ALU updates one register word per packet and a stage has four, so the
 * lanes a pass holds are what the stages between the control registers and
 * aggregator_flags leave (docs/p4.md, "Tofino back end"). Tofino 1 and
 * Tofino 2 build the most that fit their 12 and 20 stages by default
 * (pipeline/p4/fit/): 15 word lanes on Tofino 1 (and 18 late and 7 lead lanes, below),
 * 31 pair lanes on Tofino 2, 62 elements in one pass (23 word lanes with
 * -DINA_WORD_LANES); BMv2 has no such limit and builds 31 (62 elements,
 * the protocol default), running the same passes so that every target
 * executes one program. */
#ifndef INA_LANES
#if __TARGET_TOFINO__ == 2 && defined(INA_PAIR_LANES)
#define INA_LANES 31
#elif __TARGET_TOFINO__ == 2
#define INA_LANES 23
#elif defined(__TARGET_TOFINO__)
#define INA_LANES 15
#else
#define INA_LANES 31
#endif
#endif
/* The elements one pass holds: INA_LANES, or two per pair lane. */
#ifdef INA_PAIR_LANES
#define INA_PASS_ELEMENTS (2 * INA_LANES)
#else
#define INA_PASS_ELEMENTS INA_LANES
#endif
/* Second-pass-only lanes (-DINA_LATE_LANES=N, 0..18, word lanes only):
 * elements 2 * INA_LANES .. 2 * INA_LANES + N - 1, in the stages the
 * control registers leave free in the second pass
 * (stages/aggregator_value_late.p4). Tofino 1 builds 18 by default, the
 * other builds none. */
#ifndef INA_LATE_LANES
#if defined(__TARGET_TOFINO__) && __TARGET_TOFINO__ == 1
#define INA_LATE_LANES 18
#else
#define INA_LATE_LANES 0
#endif
#endif
#if INA_LATE_LANES > 18
#error "INA_LATE_LANES: at most 18 (late_clips, late_clips_1, late_clips_2)"
#endif
#if INA_LATE_LANES > 0 && defined(INA_PAIR_LANES)
#error "INA_LATE_LANES: the pair lanes take one pass; late lanes are the word lanes' second"
#endif
/* Lead lanes (-DINA_LEAD_LANES=N, 0..7, with late lanes only): word lanes
 * in the last two stages, after the overflow test of the others, whose
 * own overflow test is made where their elements can still be read: in
 * egress for the second pass's, which lead the frame (elements 0..N-1),
 * and by the second pass's parser for the first's (elements N..2N-1, which
 * the frame carries back when it is recirculated). The word lanes' elements
 * follow them: 2N + i in the first pass, 2N + INA_LANES + i in the second,
 * and the late lanes' 2N + 2 * INA_LANES + i. Tofino 1 builds 7 by
 * default (the stateful ALUs of stages 10 and 11): 7 + 7 + 15 + 15 + 18 =
 * 62 elements in two passes (docs/p4.md, "62 elements on Tofino 1"). At
 * most 7: egress parses them after the headers, within Tofino 1's
 * 160-byte egress parse depth. */
#ifndef INA_LEAD_LANES
#if defined(__TARGET_TOFINO__) && __TARGET_TOFINO__ == 1
#define INA_LEAD_LANES 7
#else
#define INA_LEAD_LANES 0
#endif
#endif
#if INA_LEAD_LANES > 7
#error "INA_LEAD_LANES: at most 7 (egress parses them)"
#endif
#if INA_LEAD_LANES > 0 && INA_LATE_LANES == 0
#error "INA_LEAD_LANES: lead lanes are Tofino 1's layout, built with late lanes (the one tested)"
#endif
#if INA_LEAD_LANES + INA_LANES > 31
#error "INA_LEAD_LANES + INA_LANES: at most 31 (the second pass's head)"
#endif
/* Element numbers of the word lanes: lane i holds element
 * INA_FIRST_ELEMENT + i in the first pass, INA_SECOND_ELEMENT + i in the
 * second. */
#define INA_FIRST_ELEMENT (2 * INA_LEAD_LANES)
#define INA_SECOND_ELEMENT (2 * INA_LEAD_LANES + INA_LANES)
const bit<16> INA_LEAD_LANES_16 = INA_LEAD_LANES;
const bit<16> INA_FIRST_ELEMENT_16 = INA_FIRST_ELEMENT;
const bit<16> INA_SECOND_ELEMENT_16 = INA_SECOND_ELEMENT;
/* The late lanes' first element. */
const bit<16> INA_LATE_ELEMENT_16 = 2 * INA_LEAD_LANES + 2 * INA_LANES;
/* The second pass sets aside what the first aggregated (head): the first
 * pass's lead and word lanes' elements. */
#define INA_HEAD_ELEMENTS (INA_LEAD_LANES + INA_LANES)
/* The most elements a packet has and takes one pass: the first pass's
 * lanes, none with lead lanes (element 0 is the second pass's). */
#if INA_LEAD_LANES > 0
const bit<16> INA_ONE_PASS_ELEMENTS_16 = 0;
#else
const bit<16> INA_ONE_PASS_ELEMENTS_16 = INA_PASS_ELEMENTS;
#endif

/* Whether the parsers extract IPv4 options (up to IHL 15, ina_tna.p4): all
 * builds but Tofino 2's pair lanes, whose PHV holds 62 elements instead,
 * and the lead lanes', whose egress parses elements after the headers
 * (the parse depth). */
#if defined(__TARGET_TOFINO__) && (defined(INA_PAIR_LANES) || INA_LEAD_LANES > 0)
#define INA_IPV4_OPTIONS 0
#else
#define INA_IPV4_OPTIONS 1
#endif

/* The elements the first two passes hold: the lead and word lanes twice
 * and the late lanes. */
#define INA_TWO_PASS_ELEMENTS (2 * INA_LEAD_LANES + 2 * INA_LANES + INA_LATE_LANES)
/* The packet's last pass (counters, aggregator_flags): the first when it
 * takes no second, else the second. */
#define INA_LAST_PASS (meta.second == 1 || meta.need_second == 0)
/* Largest elem_count the P4 build aggregates: two passes of the lead and
 * word lanes and the late lanes (one pass of 2 * INA_LANES in the pair
 * form). */
#ifdef INA_PAIR_LANES
const bit<16> INA_P4_MAX_ELEMENTS = 2 * INA_LANES;
#else
const bit<16> INA_P4_MAX_ELEMENTS = INA_TWO_PASS_ELEMENTS;
#endif
/* Largest elem_count whose UDP length, INA_UDP_FIXED_LEN + 4 * count, fits
 * the 16-bit length field: (65535 - 52) / 4. */
const bit<16> INA_LENGTH_MAX_COUNT = 16370;
/* Aggregation levels the P4 build implements (ATP's two); a packet whose
 * level is 2 or 3 is forwarded as past its levels (docs/p4.md). */
const bit<8>  INA_P4_LEVELS = 2;

/* Register array size: aggregators this build holds. The `aggregators` value
 * of the configuration (table ina_config) may be smaller, never larger. */
#ifndef INA_AGGREGATORS
#define INA_AGGREGATORS 4096
#endif
/* Value lanes hold two rows per aggregator: row i in pass 1,
 * INA_AGGREGATORS + i in pass 2; the pair form's lanes, one pass, one. */
#ifdef INA_PAIR_LANES
#define INA_VALUE_ROWS INA_AGGREGATORS
#else
#define INA_VALUE_ROWS (2 * INA_AGGREGATORS)
#endif

/* The limits of a value lane. A lane at either one is saturated and holds
 * (ATP section 3.8, pipeline/src/value_simd.cpp). */
const int<32> INA_INT32_MAX = 32s0x7fffffff;
const int<32> INA_INT32_MIN = -32s0x7fffffff - 1;

/* aggregator_flags register bits (pipeline/src/registers.h). */
const bit<8> AGG_ECN = 0x1;
const bit<8> AGG_COL = 0x2;
const bit<8> AGG_OVERFLOW = 0x4;

/* Verdicts (pipeline.h enum class Verdict). */
typedef bit<3> verdict_t;
const verdict_t VERDICT_DROP = 0;
const verdict_t VERDICT_DOWNSTREAM = 1;
const verdict_t VERDICT_MULTICAST = 2;
const verdict_t VERDICT_PASS = 3;
const verdict_t VERDICT_CONTROL = 4;

/* Counters, in the order of INA_PIPELINE_COUNTERS in pipeline.h. */
typedef bit<8> reason_t;
const reason_t CTR_pass_through = 0;
const reason_t CTR_control = 1;
const reason_t CTR_malformed_short = 2;
const reason_t CTR_malformed_version = 3;
const reason_t CTR_malformed_type = 4;
const reason_t CTR_malformed_length = 5;
const reason_t CTR_malformed_elements = 6;
const reason_t CTR_malformed_level = 7;
const reason_t CTR_malformed_fan_in = 8;
const reason_t CTR_malformed_bitmap = 9;
const reason_t CTR_malformed_index = 10;
const reason_t CTR_malformed_job = 11;
const reason_t CTR_misrouted = 12;
const reason_t CTR_bypass = 13;
const reason_t CTR_float_forwarded = 14;
const reason_t CTR_goat_forwarded = 15;
const reason_t CTR_past_levels = 16;
const reason_t CTR_claimed = 17;
const reason_t CTR_aggregated = 18;
const reason_t CTR_completed = 19;
const reason_t CTR_collision = 20;
const reason_t CTR_share_refusals = 21;
const reason_t CTR_duplicate = 22;
const reason_t CTR_resend_merged = 23;
const reason_t CTR_resend_flushed = 24;
const reason_t CTR_resend_forwarded = 25;
const reason_t CTR_overflow = 26;
const reason_t CTR_ack_freed = 27;
const reason_t CTR_gc_freed = 28;
const reason_t CTR_ack_unmatched = 29;
const reason_t CTR_multicast = 30;
#define INA_COUNTERS 31
/* "Nothing decided yet": no counter. */
const reason_t CTR_NONE = 0xFF;

/* Admission counters (stages/admission.p4): the names of switchd's per-lcore
 * counters (switchd/src/stats.h SWITCHD_LCORE_COUNTERS), which the vector
 * runner checks. Numbered here only; switchd has no such numbering. */
typedef bit<8> adm_reason_t;
const adm_reason_t ADM_unregistered_job = 0;
const adm_reason_t ADM_admission_drops = 1;
const adm_reason_t ADM_spoof_port_drops = 2;
const adm_reason_t ADM_spoof_mac_drops = 3;
const adm_reason_t ADM_forged_result_drops = 4;
const adm_reason_t ADM_stale_epoch_drops = 5;
#define ADM_COUNTERS 6
/* Admitted, or not judged by admission: no counter. */
const adm_reason_t ADM_NONE = 0xFF;

/* The outcome of a stateful ALU's two conditions (lo, hi), as its
 * predicate output gives it: one bit per combination, 1 << (2 * hi + lo).
 * A register action returns it so that the next stage can key on what the
 * conditions found without comparing the word again (a comparison of two
 * fields would be a subtraction and a stage of its own). target.p4's
 * INA_PREDICATE computes the same value on BMv2. */
typedef bit<4> pred_t;
const pred_t PRED_NEITHER = 1;
const pred_t PRED_LO = 2;
const pred_t PRED_HI = 4;
const pred_t PRED_BOTH = 8;

/* A bitmap against its fan-in (parse.p4 bitmap_check, goat_children). */
typedef bit<2> check_t;
const check_t CHECK_NONE = 0;   /* not looked up (goat_children missed) */
const check_t CHECK_OK = 1;
const check_t CHECK_FAN_IN = 2; /* fan_in 0 or above 32 */
const check_t CHECK_BITMAP = 3; /* bitmap 0, or bits outside the fan-in's */

/* Whose address a packet's source IP is, for its job (table source_ip). */
typedef bit<2> adm_role_t;
const adm_role_t ROLE_NONE = 0;
const adm_role_t ROLE_WORKER = 1;
const adm_role_t ROLE_PS = 2;

/* What a worker's registration says about the packet's level (table
 * worker_admission). */
typedef bit<2> adm_rule_t;
const adm_rule_t RULE_NO_MATCH = 0;    /* no entry: not its MAC */
const adm_rule_t RULE_ADMIT = 1;       /* above its first level, or past the job's levels */
const adm_rule_t RULE_CHECK_BIT = 2;   /* its first level: bitmap must be exactly its bit */
const adm_rule_t RULE_BELOW_START = 3; /* a level it takes no part in */

/* Outcome of the aggregator_id stage (process.cpp enum IdHit). */
typedef bit<8> id_hit_t;
const id_hit_t ID_NONE = 0;
const id_hit_t ID_CLAIMED = 1;
const id_hit_t ID_MATCH = 2;
const id_hit_t ID_COLLIDE = 3;
const id_hit_t ID_MISS = 4;
const id_hit_t ID_RELEASED = 5;
const id_hit_t ID_RELEASED_STALE = 6;
const id_hit_t ID_REFUSED = 7;        /* empty, and the job at its share: not claimed */

/* Packet classes the register stages dispatch on, decided by filter. */
typedef bit<2> ina_class_t;
const ina_class_t CLASS_NONE = 0;     /* no register stage runs */
const ina_class_t CLASS_GRADIENT = 1;
const ina_class_t CLASS_RESEND = 2;
const ina_class_t CLASS_ACK = 3;

/* Which value action the lanes run, decided before the lanes and carried to
 * the second pass. */
typedef bit<3> value_op_t;
const value_op_t VALUE_NONE = 0;
const value_op_t VALUE_WRITE = 1;
const value_op_t VALUE_ADD = 2;
const value_op_t VALUE_ADD_READ = 3;
const value_op_t VALUE_READ = 4;

/* Which flags action runs (in the last pass: it records the overflow of
 * every lane). */
typedef bit<3> flags_op_t;
const flags_op_t FLAGS_NONE = 0;
const flags_op_t FLAGS_INIT = 1;
const flags_op_t FLAGS_MERGE = 2;
const flags_op_t FLAGS_SET_COL = 3;
const flags_op_t FLAGS_READ_CLEAR = 4;
const flags_op_t FLAGS_CLEAR = 5;

#endif
