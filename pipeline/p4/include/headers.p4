/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Headers and metadata of the INA switch program: the byte layout of
 * protocol/include/ina/wire.h (docs/protocol.md), shared by the TNA and the
 * v1model build.
 */
#ifndef INA_P4_HEADERS
#define INA_P4_HEADERS

header ethernet_h {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

/* IHL 5 only: see the parsers for why options are not parsed. */
header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  tos;
    bit<16> total_length;
    bit<16> id;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  proto;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
}

/* One 4-byte word of IPv4 options: receivers accept options (docs/protocol.md)
 * and the parsers skip them word by word, with fixed-size states, because
 * Tofino's parser has no variable-length extract. */
header ipv4_opt_h {
    bit<32> word;
}

header udp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

/* struct ina_hdr, 44 bytes. The four levels are separate fields rather than
 * a stack because Tofino cannot index a header stack with a run-time value;
 * the stages pick level 0 or 1 with a gateway instead. */
header ina_h {
    bit<8>  version;
    bit<8>  type;
    bit<16> flags;
    bit<16> job_id;
    bit<16> agg_node;
    bit<32> seq;
    bit<32> agg_index;
    bit<32> remap_index;
    bit<16> elem_count;
    bit<8>  level;
    bit<8>  levels;
    bit<32> bitmap0;
    bit<32> bitmap1;
    bit<32> bitmap2;
    bit<32> bitmap3;
    bit<8>  fan_in0;
    bit<8>  fan_in1;
    bit<8>  fan_in2;
    bit<8>  fan_in3;
}

/* One payload element: int32, big endian. */
header ina_elem_h {
    bit<32> v;
}

/* State carried from the first pass to the second (resubmit or recirculate).
 * On Tofino the resubmit path carries at most 64 bits (Tofino 1), so the
 * fields that the second pass needs are packed into 8 bytes; the recirculate
 * path carries the same 8 bytes as a bridged header in front of the frame.
 * One metadata field per byte, low-aligned: a Tofino action writes a
 * container from one PHV source at most when it also writes a constant
 * (the zero padding). The parser tells the second pass by the intrinsic
 * metadata (resubmit flag, recirculation port), not by a field here. */
header ina_pass_h {
    bit<5>  pad0;
    bit<3>  value_op;    /* value_op_t */
    bit<5>  pad1;
    bit<3>  flags_op;    /* flags_op_t */
    bit<7>  pad2;
    bit<1>  clipped;     /* a lane of pass 1 saturated */
    bit<5>  pad3;
    bit<3>  verdict;     /* verdict_t of the packet */
    bit<7>  pad4;
    bit<1>  carry;       /* the aggregator's flags go into the packet */
    bit<8>  reason;      /* reason_t of the packet */
    bit<8>  flags_in;    /* aggregator flag bits the packet brings */
    bit<8>  side;        /* side counters to bump (SIDE_*) */
}

/* Tofino only: what ingress tells egress (the two pipelines share no
 * metadata), in front of the frame between them. */
header ina_bridge_h {
    bit<1>  recirculate; /* egress sends it back in for its second pass */
#if INA_LEAD_LANES > 0
    /* The second pass's value action: egress tests the lead lanes'
     * elements (aggregator_value_lead.p4). Low-aligned in its byte, as
     * pass_value_op, its source. */
    bit<4>  pad_op;
    bit<3>  value_op;
    bit<7>  pad0;
#else
    bit<6>  pad0;
#endif
    bit<9>  in_port;
    bit<16> flood_group;
    bit<8>  flags_out;   /* aggregator_flags' result (meta.flags_out itself) */
    bit<7>  pad1;
    bit<1>  carry_flags; /* egress writes flags_out into the INA header */
}

struct ina_headers_t {
    /* Tofino only: the bridge (ingress to egress) and the pass state
     * (first pass to second); never valid on BMv2. */
    ina_bridge_h bridge;
    ina_pass_h pass;
    ethernet_h ethernet;
    ipv4_h     ipv4;
    ipv4_opt_h[10] ipv4_opts;
    udp_h      udp;
    ina_h      ina;
#if INA_LEAD_LANES > 0
    /* The lead lanes' elements (aggregator_value_lead.p4): the first pass
     * sets elements 0..INA_LEAD_LANES-1 aside and aggregates the next
     * INA_LEAD_LANES in `lead`; the second aggregates elements
     * 0..INA_LEAD_LANES-1 in `lead`, where egress can parse them. */
    ina_elem_h[INA_LEAD_LANES] aside;
    ina_elem_h[INA_LEAD_LANES] lead;
#endif
#ifndef INA_PAIR_LANES
    /* What the first pass aggregated, left untouched in the second pass:
     * its lead and word lanes' elements. */
    ina_elem_h[INA_HEAD_ELEMENTS] head;
#endif
#ifndef INA_PAIR_LANES
    /* The word lanes' elements this pass: 0..30 in pass 1, 31..61 in pass 2
     * (INA_FIRST_ELEMENT.., INA_SECOND_ELEMENT.. with lead lanes). */
    ina_elem_h[INA_LANES] elems;
#if INA_LATE_LANES > 0
    /* The late lanes' elements, 2 * INA_LANES.., in the second pass only
     * (stages/aggregator_value_late.p4). */
    ina_elem_h[INA_LATE_LANES] late;
#endif
#elif INA_LANES > 16
    /* The pair form: all elements in the first pass, 0..31 here and the
     * rest in elems_hi (a stack's validity bits are one field, which the
     * back end cannot split past 32 bits). */
    ina_elem_h[32] elems;
    ina_elem_h[2 * INA_LANES - 32] elems_hi;
#else
    ina_elem_h[2 * INA_LANES] elems;
#endif
}

/* Side counters: counters a packet bumps besides its reason (process.cpp
 * increments `aggregated`, `claimed`, `overflow` and `multicast` next to the
 * reason). One Counter extern each, because a Tofino counter array is updated
 * once per packet. `overflow` is counted on meta.clipped (counters.p4). */
const bit<8> SIDE_CLAIMED = 0x1;
const bit<8> SIDE_AGGREGATED = 0x2;
const bit<8> SIDE_MULTICAST = 0x8;
/* Not counters: the fair share's job_full operation of the second pass
 * (Tofino, stages/fair_share.p4), riding in the pass state's side byte. */
const bit<8> SIDE_FULL_SET = 0x10;
const bit<8> SIDE_FULL_CLEAR = 0x20;

/* Configuration of the switch program, one entry (table ina_config). */
struct ina_config_t {
    bit<32> aggregators; /* PipelineConfig::aggregators */
    bit<16> elements;    /* PipelineConfig::elements (at most 62 here) */
    bit<16> switch_id;   /* PipelineConfig::switch_id (GOAT) */
    bit<32> gc_timeout;  /* PipelineConfig::gc_timeout, in clock ticks; 0 = never */
}

#if defined(__TARGET_TOFINO__)
/* Tofino: every metadata field starts at 0 (an explicit initialisation in
 * the parser's first state costs an extractor per field, more than that
 * state has); aggregator_flags' output is the bridge header's field itself
 * (its stateful ALU runs in the last ingress stage, which leaves no stage
 * for a copy into the bridge), in a container of its own (sharing one with
 * the bridge's other fields, written elsewhere, held the ALU a stage
 * back). */
@pa_auto_init_metadata
@pa_alias("ingress", "hdr.bridge.flags_out", "meta.flags_out")
@pa_container_size("ingress", "hdr.bridge.flags_out", 8)
#if INA_LEAD_LANES > 0
/* The bridge's value action, from pass_value_op, in an 8-bit container
 * with its padding alone, apart from the port and the flood group that
 * other sources write (the action-constraint rule that made the pass
 * header one field per byte). */
@pa_container_size("ingress", "hdr.bridge.value_op", 8)
#endif
#endif
#if __TARGET_TOFINO__ == 2
/* Tofino 2: header stack entries the pipeline passes through untouched (the
 * second pass's head elements, the IPv4 option words) stay in PHV
 * rather than in CLOTs (its packet-field pass-through): in CLOTs the back
 * end gives them no length in the parser, and its assembler stops ("No
 * length for clot ...") and crashes. */
#ifndef INA_PAIR_LANES
@do_not_use_clot("ingress", "hdr.head")
#endif
@do_not_use_clot("ingress", "hdr.ipv4_opts")
@do_not_use_clot("egress", "hdr.ipv4_opts")
#ifdef INA_PAIR_LANES
/* The pair build's overflow bits, a container each: with three of them in
 * one 8-bit container, as the back end chose, 31 pair lanes took a stage
 * more, their lanes staged or not (docs/p4.md, "How 62 came to fit"). */
@pa_solitary("ingress", "meta.clip_0")
@pa_solitary("ingress", "meta.clip_1")
@pa_solitary("ingress", "meta.clip_2")
@pa_solitary("ingress", "meta.clip_3")
@pa_solitary("ingress", "meta.clip_4")
#endif
#endif
struct ina_meta_t {
    ina_config_t cfg;
    /* Target-neutral inputs, filled by the architecture wrapper. */
    bit<32> now;         /* clock, in ticks of the configured unit */
    bit<32> ts_now;      /* ~now, as aggregator_id stores it; for a parameter
                          * packet, the GC bound: a foreign aggregator whose
                          * stored ts is above it is stale (filter.p4) */
    bit<32> frame_len;   /* frame length in bytes, 0 when the target cannot tell */
    bit<1>  parse_short; /* the parser ran out of bytes */
    INA_PRESERVE bit<1>  second;      /* second pass */

    /* admission */
    bit<1>  skip_pipeline; /* refused or unregistered: the stages do not run */
    adm_reason_t adm_reason; /* its admission counter, ADM_NONE if admitted */
    verdict_t adm_verdict;   /* the verdict of a packet admission skips */
    bit<32> share;         /* aggregators the job may hold (0xFFFFFFFF: no limit) */

    /* fair share (docs/pipeline.md "Fair share"; docs/p4.md) */
    bit<8>  at_share;      /* the job holds its share: a gradient claims nothing
                            * (Tofino: the job_full word, 0 or 1) */
    bit<16> holder;        /* the job whose key aggregator_id set or cleared */
    bit<32> share_m1;      /* Tofino: share - 1, for the claim's crossing test */
    pred_t  held_pred;     /* Tofino: PRED_LO when job_full must change (a
                            * crossing of the share), fair_share.p4 */

    /* parse: the packet's level and the facts filter's `classify` decides on */
    bit<1>  is_ina;
    bit<8>  level_key;   /* the level, 0..3; 4 for any level above */
    bit<32> bitmap;      /* bitmap[level] */
    bit<8>  fan_in;      /* fan_in[level], or the GOAT children's */
    bit<8>  fan_in_m1;   /* fan_in - 1 */
    bit<16> elem_bytes;  /* 4 * elem_count */
    bit<16> length_diff; /* udp.length - INA_UDP_FIXED_LEN - 4 * elem_count */
    bit<16> count_room;  /* INA_LENGTH_MAX_COUNT - elem_count */
    bit<16> max_left;    /* INA_P4_MAX_ELEMENTS - elem_count */
    bit<16> elems_left;  /* elements - elem_count */
    bit<32> index_room;  /* aggregators - agg_index */
    bit<1>  index_over;  /* agg_index >= aggregators, unless index_room is 0 */
    bit<8>  levels_left; /* levels - level */
    bit<1>  level_bad;   /* levels or level above 4, or level above levels */
    check_t plain_check; /* the bitmap against fan_in[level] */
    check_t goat_check;  /* ... against the GOAT children (CHECK_NONE: no entry) */
    bit<8>  goat_fan_in;
    bit<16> node_diff;   /* agg_node ^ switch_id */
    bit<32> key;         /* aggregator identifier, see aggregator_id.p4 */
    bit<32> row;         /* aggregator index (this table owns every index) */
    bit<32> row_offset;  /* 0 in the first pass, INA_AGGREGATORS in the second */
    bit<32> value_row;   /* the lanes' row: row + row_offset */
    bit<16> count_lanes_left; /* INA_LANES - elem_count: sign set, a second pass */
    bit<16> row_lanes_left;   /* INA_LANES - elements: sign set, the row has two */
    bit<1>  two_rows;    /* either sign set: a claim takes two passes */

    /* filter and the register stages */
    ina_class_t cls;
    pred_t      id_pred; /* aggregator_id's conditions (aggregator_id.p4) */
    id_hit_t    id_hit;
    bit<32>     overlap; /* the aggregator's bitmap & the packet's: 0 unless a duplicate */
    bit<32>     merged;  /* bitmap after this packet */
    pred_t      count_pred; /* count_add: PRED_LO when this packet completes */
    INA_PRESERVE value_op_t value_op;
    value_op_t  pass_value_op; /* second pass: the value action of the first, the
                                * lanes' key (value_op is written in the first
                                * pass after the lanes' stages would be) */
    INA_PRESERVE flags_op_t flags_op;
    INA_PRESERVE bit<8> flags_in; /* aggregator flag bits the packet brings */
    bit<8>      flags_out; /* aggregator flag bits the result carries */
    INA_PRESERVE bit<1> clipped; /* a lane saturated (this pass or the first) */
#if INA_LATE_LANES > 0
    /* late_clips, late_clips_1, late_clips_2 matched: a late lane
     * saturated, folded into the overflow by lane_clips
     * (stages/aggregator_value_late.p4). */
    bit<1> late_clip_0;
    bit<1> late_clip_1;
    bit<1> late_clip_2;
#endif
#if INA_LEAD_LANES > 0
    /* The second pass's parser found one of the first pass's lead
     * elements at INT32_MAX or INT32_MIN: lane_clips folds it into the
     * overflow of a recirculated frame (aggregator_value_lead.p4). */
    bit<1> lead_limit;
    /* The second pass came by recirculation: the frame carries the first
     * pass's results (a resubmitted one its original elements). */
    bit<1> recirculated;
#endif
    bit<1>      need_second; /* the lanes of elements 31..61 still have to run */
#ifdef INA_PAIR_LANES
    /* The pair form's overflow tables, one bit each (aggregator_value_pair.p4). */
    bit<1> clip_0;
    bit<1> clip_1;
    bit<1> clip_2;
    bit<1> clip_3;
    bit<1> clip_4;
#endif
    bit<1>      write_bitmaps; /* the packet carries this level's result */
    bit<1>      advance;       /* the packet leaves this level: level + 1 */
    INA_PRESERVE bit<1> carry_flags; /* the aggregator's flags go into the packet */
    bit<16>     set_flags;     /* header flags this switch adds */

    /* forwarding (switchd's job in the software switch) */
    bit<9>  fwd_port;
    bit<16> fwd_group;   /* multicast group, 0 = none */
    bit<1>  fwd_drop;
    bit<1>  route_hit;   /* forward's lookups (forward.p4) */
    bit<9>  route_port;
    bit<48> route_mac;
    bit<1>  l2_hit;
    bit<9>  l2_port;
    bit<1>  group_hit;
    bit<16> job_group;
    bit<9>  cpu_port;
    bit<16> flood_group;
    bit<9>  in_port;
    bit<1>  ip_changed;  /* IPv4 header rewritten: recompute its checksum */

    /* verdict */
    INA_PRESERVE verdict_t verdict;
    INA_PRESERVE reason_t reason;
    INA_PRESERVE bit<8> side;
    bit<1>    recirculate; /* v1model: recirculate at the end of egress */
}

#endif
