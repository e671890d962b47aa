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

/* The second pass gets its state from the resubmit / bridged header. */
#define INA_PRESERVE

#define INA_COUNTER(NAME, SIZE) \
    Counter<bit<32>, bit<8>>(SIZE, CounterType_t.PACKETS) NAME
#define INA_COUNT(NAME, IDX) NAME.count(IDX)

#else /* v1model */

#define INA_REGISTER(T, NAME, SIZE) register<T>(SIZE) NAME
/* BMv2 registers hold bit<W> only: the pair is one 64-bit word, key in the
 * low half. */
#define INA_PAIR_REGISTER(NAME, SIZE) register<bit<64>>(SIZE) NAME

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
        bit<64> word; \
        ina_id_pair_t value; \
        RT result = 0; \
        REG.read(word, IDX); \
        value.key = word[31:0]; \
        value.ts = word[63:32]; \
        BODY \
        REG.write(IDX, value.ts ++ value.key); \
        OUT = result; \
    }

/* Metadata a resubmitted or recirculated packet keeps (field list 1). */
#define INA_PRESERVE @field_list(1)

#define INA_COUNTER(NAME, SIZE) counter(SIZE, CounterType.packets) NAME
#define INA_COUNT(NAME, IDX) NAME.count((bit<32>)(IDX))

#endif

#endif
