/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The few target-specific constructs the shared stage controls use, as
 * macros, so that each stage is written once for TNA (Tofino) and v1model
 * (BMv2).
 *
 * A Tofino register is read-modified-written by a RegisterAction running in
 * one stateful ALU, once per packet; v1model registers are read and written
 * by plain calls. INA_REGISTER_ACTION gives both the RegisterAction shape: a
 * body that sees the register word as `value` (read, may be assigned) and
 * sets `result`, which lands in OUT. Bodies must not contain commas (macro
 * arguments) and must stay within what a stateful ALU can do: at most two
 * conditions over the word and packet fields, one output.
 */
#ifndef INA_P4_TARGET
#define INA_P4_TARGET

/* Pair register word of aggregator_id: identifier and timestamp. */
struct ina_id_pair_t {
    bit<32> key;
    bit<32> ts;
}

#if defined(__TARGET_TOFINO__)

#define INA_REGISTER(T, NAME, SIZE) Register<T, bit<32>>(SIZE, 0) NAME
#define INA_PAIR_REGISTER(NAME, SIZE) \
    Register<ina_id_pair_t, bit<32>>(SIZE, {0, 0}) NAME

#define INA_REGISTER_ACTION(T, RT, REG, NAME, IDX, OUT, BODY) \
    RegisterAction<T, bit<32>, RT>(REG) NAME##_salu = { \
        void apply(inout T value, out RT result) { BODY } \
    }; \
    action NAME() { OUT = NAME##_salu.execute(IDX); }

#define INA_PAIR_REGISTER_ACTION(RT, REG, NAME, IDX, OUT, BODY) \
    INA_REGISTER_ACTION(ina_id_pair_t, RT, REG, NAME, IDX, OUT, BODY)

/* Signed 32-bit register (the value lanes): the stateful ALU saturates on
 * int<32> itself. */
#define INA_INT_REGISTER(NAME, SIZE) INA_REGISTER(int<32>, NAME, SIZE)
#define INA_INT_REGISTER_ACTION(REG, NAME, IDX, OUT, BODY) \
    INA_REGISTER_ACTION(int<32>, int<32>, REG, NAME, IDX, OUT, BODY)
/* A value lane's actions: the signed word, returned as bit<32> straight
 * into the packet's element (OUT), or no output at all. */
#define INA_LANE_REGISTER_ACTION(REG, NAME, IDX, OUT, BODY) \
    INA_REGISTER_ACTION(int<32>, bit<32>, REG, NAME, IDX, OUT, BODY)
#define INA_LANE_REGISTER_ACTION_NO_OUT(REG, NAME, IDX, BODY) \
    RegisterAction<int<32>, bit<32>, bit<32>>(REG) NAME##_salu = { \
        void apply(inout int<32> value) { BODY } \
    }; \
    action NAME() { NAME##_salu.execute(IDX); }

/* A pair lane's actions (stages/aggregator_value_pair.p4, Tofino 2): the
 * 64-bit word of two elements, `value.lo` and `value.hi`, of the element
 * headers LO and HI; `result` lands in LO.v and `result2` in HI.v (a Tofino 2
 * stateful ALU has four output words). */
#define INA_VALUE_PAIR_REGISTER(NAME, SIZE) \
    Register<ina_value_pair_t, bit<32>>(SIZE, {0, 0}) NAME
#define INA_VALUE_PAIR_ACTION(REG, NAME, IDX, LO, HI, BODY) \
    RegisterAction<ina_value_pair_t, bit<32>, bit<32>>(REG) NAME##_salu = { \
        void apply(inout ina_value_pair_t value, out bit<32> result, out bit<32> result2) { BODY } \
    }; \
    action NAME() { LO.v = NAME##_salu.execute(IDX, HI.v); }
#define INA_VALUE_PAIR_ACTION_NO_OUT(REG, NAME, IDX, LO, HI, BODY) \
    RegisterAction<ina_value_pair_t, bit<32>, bit<32>>(REG) NAME##_salu = { \
        void apply(inout ina_value_pair_t value) { BODY } \
    }; \
    action NAME() { NAME##_salu.execute(IDX); }

/* The predicate of the register action's two conditions (pred_t), as the
 * stateful ALU outputs it; the call comes first in the body, so that the
 * conditions after it reuse its two comparison units. */
#define INA_PREDICATE(LO, HI) this.predicate(LO, HI)
#define INA_PREDICATE1(LO) this.predicate(LO)
/* Statements only the BMv2 build runs. */
#define INA_V1MODEL_ONLY(S)

/* The second pass gets its state from the resubmit / bridged header. */
#define INA_PRESERVE

#define INA_COUNTER(NAME, SIZE) \
    Counter<bit<32>, bit<8>>(SIZE, CounterType_t.PACKETS) NAME
#define INA_COUNT(NAME, IDX) NAME.count(IDX)

#else /* v1model */

#define INA_REGISTER(T, NAME, SIZE) register<T>(SIZE) NAME
/* The pair is two 32-bit arrays on BMv2: NAME holds the key, NAME_ts the
 * timestamp. One 64-bit word would do for the program, but the control
 * plane reads a register through Thrift as a signed 64-bit integer
 * (bm_register_read), which saturates any word with bit 63 set, and the
 * inverted timestamp in the high half always sets it: the key could not be
 * read back. simple_switch runs the action for one packet at a time, so the
 * two arrays change together as the Tofino pair does. */
#define INA_PAIR_REGISTER(NAME, SIZE) \
    register<bit<32>>(SIZE) NAME; \
    register<bit<32>>(SIZE) NAME##_ts

#define INA_REGISTER_ACTION(T, RT, REG, NAME, IDX, OUT, BODY) \
    action NAME() { \
        T value; \
        RT result = 0; \
        REG.read(value, IDX); \
        BODY \
        REG.write(IDX, value); \
        OUT = result; \
    }

#define INA_PAIR_REGISTER_ACTION(RT, REG, NAME, IDX, OUT, BODY) \
    action NAME() { \
        ina_id_pair_t value; \
        RT result = 0; \
        REG.read(value.key, IDX); \
        REG##_ts.read(value.ts, IDX); \
        BODY \
        REG.write(IDX, value.key); \
        REG##_ts.write(IDX, value.ts); \
        OUT = result; \
    }

/* Signed 32-bit register (the value lanes). BMv2 keeps register words
 * unsigned, and reading one straight into an int<32> leaves a word with the
 * sign bit set as the positive number 2^31..2^32-1 in the arithmetic that
 * follows (bm::Field::set wraps only values above 2^32 - 1), so
 * 0x80000000 |+| -1 gave 0x7fffffff. The word is read as bit<32> and cast,
 * which p4c-bm2-ss emits as a two's complement conversion. */
#define INA_INT_REGISTER(NAME, SIZE) register<bit<32>>(SIZE) NAME
#define INA_INT_REGISTER_ACTION(REG, NAME, IDX, OUT, BODY) \
    action NAME() { \
        bit<32> word; \
        int<32> value; \
        int<32> result = 0; \
        REG.read(word, IDX); \
        value = (int<32>)word; \
        BODY \
        REG.write(IDX, (bit<32>)value); \
        OUT = result; \
    }

/* A value lane's actions (see the Tofino definitions). */
#define INA_LANE_REGISTER_ACTION(REG, NAME, IDX, OUT, BODY) \
    action NAME() { \
        bit<32> word; \
        int<32> value; \
        bit<32> result = 0; \
        REG.read(word, IDX); \
        value = (int<32>)word; \
        BODY \
        REG.write(IDX, (bit<32>)value); \
        OUT = result; \
    }
#define INA_LANE_REGISTER_ACTION_NO_OUT(REG, NAME, IDX, BODY) \
    action NAME() { \
        bit<32> word; \
        int<32> value; \
        REG.read(word, IDX); \
        value = (int<32>)word; \
        BODY \
        REG.write(IDX, (bit<32>)value); \
    }

/* A pair lane's actions (see the Tofino definitions): two 32-bit arrays,
 * NAME for the low element and NAME_hi for the high one, read as bit<32>
 * and cast like the single-word lanes. A packet with an odd count has no
 * high element in its last lane: Tofino's parser writes a zero into that
 * invalid element's word (include/pair_elements.p4), which the action does
 * here, so that the ALU program reads the same word on both targets. */
#define INA_VALUE_PAIR_REGISTER(NAME, SIZE) \
    register<bit<32>>(SIZE) NAME; \
    register<bit<32>>(SIZE) NAME##_hi
#define INA_VALUE_PAIR_ACTION_NO_OUT(REG, NAME, IDX, LO, HI, BODY) \
    action NAME() { \
        bit<32> word; \
        bit<32> word_hi; \
        ina_value_pair_t value; \
        if (!HI.isValid()) { HI.v = 0; } \
        REG.read(word, IDX); \
        REG##_hi.read(word_hi, IDX); \
        value.lo = (int<32>)word; \
        value.hi = (int<32>)word_hi; \
        BODY \
        REG.write(IDX, (bit<32>)value.lo); \
        REG##_hi.write(IDX, (bit<32>)value.hi); \
    }
#define INA_VALUE_PAIR_ACTION(REG, NAME, IDX, LO, HI, BODY) \
    action NAME() { \
        bit<32> word; \
        bit<32> word_hi; \
        ina_value_pair_t value; \
        bit<32> result = 0; \
        bit<32> result2 = 0; \
        if (!HI.isValid()) { HI.v = 0; } \
        REG.read(word, IDX); \
        REG##_hi.read(word_hi, IDX); \
        value.lo = (int<32>)word; \
        value.hi = (int<32>)word_hi; \
        BODY \
        REG.write(IDX, (bit<32>)value.lo); \
        REG##_hi.write(IDX, (bit<32>)value.hi); \
        LO.v = result; \
        HI.v = result2; \
    }

/* The stateful ALU's predicate output, computed from the old word as the
 * hardware does (the call comes first in a register action's body). */
#define INA_PREDICATE(LO, HI) ((HI) ? ((LO) ? PRED_BOTH : PRED_HI) : ((LO) ? PRED_LO : PRED_NEITHER))
#define INA_PREDICATE1(LO) ((LO) ? PRED_LO : PRED_NEITHER)
#define INA_V1MODEL_ONLY(S) S

/* Metadata a resubmitted or recirculated packet keeps (field list 1). */
#define INA_PRESERVE @field_list(1)

#define INA_COUNTER(NAME, SIZE) counter(SIZE, CounterType.packets) NAME
#define INA_COUNT(NAME, IDX) NAME.count((bit<32>)(IDX))

#endif

#endif
