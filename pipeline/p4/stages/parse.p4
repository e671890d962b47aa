/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `parse` (process.cpp parse()): classify INA vs other traffic and
 * validate the INA header, in the same order as the C++ stage so that a
 * packet with several defects is counted under the same malformed_* reason.
 * The byte extraction itself is done by the architecture's parser (the
 * TNA and v1model wrappers); this control only judges what was extracted.
 */
#ifndef INA_P4_STAGE_PARSE
#define INA_P4_STAGE_PARSE

control parse(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* Bits a level's bitmap may use under its fan-in: (1 << fan_in) - 1.
     * A table, because Tofino's ALUs shift by constants only. */
    action set_allowed(bit<32> allowed) { meta.allowed = allowed; }
    table fan_in_mask {
        key = { meta.fan_in : exact; }
        actions = { set_allowed; }
        const default_action = set_allowed(0);
        size = 64;
        const entries = {
            1 : set_allowed(0x00000001);  2 : set_allowed(0x00000003);
            3 : set_allowed(0x00000007);  4 : set_allowed(0x0000000F);
            5 : set_allowed(0x0000001F);  6 : set_allowed(0x0000003F);
            7 : set_allowed(0x0000007F);  8 : set_allowed(0x000000FF);
            9 : set_allowed(0x000001FF); 10 : set_allowed(0x000003FF);
           11 : set_allowed(0x000007FF); 12 : set_allowed(0x00000FFF);
           13 : set_allowed(0x00001FFF); 14 : set_allowed(0x00003FFF);
           15 : set_allowed(0x00007FFF); 16 : set_allowed(0x0000FFFF);
           17 : set_allowed(0x0001FFFF); 18 : set_allowed(0x0003FFFF);
           19 : set_allowed(0x0007FFFF); 20 : set_allowed(0x000FFFFF);
           21 : set_allowed(0x001FFFFF); 22 : set_allowed(0x003FFFFF);
           23 : set_allowed(0x007FFFFF); 24 : set_allowed(0x00FFFFFF);
           25 : set_allowed(0x01FFFFFF); 26 : set_allowed(0x03FFFFFF);
           27 : set_allowed(0x07FFFFFF); 28 : set_allowed(0x0FFFFFFF);
           29 : set_allowed(0x1FFFFFFF); 30 : set_allowed(0x3FFFFFFF);
           31 : set_allowed(0x7FFFFFFF); 32 : set_allowed(0xFFFFFFFF);
        }
    }

    action malformed(reason_t why) {
        meta.verdict = VERDICT_DROP;
        meta.reason = why;
    }

    apply {
        meta.reason = CTR_NONE;
        if (meta.is_ina == 0) {
            meta.verdict = VERDICT_PASS;
            meta.reason = CTR_pass_through;
        } else if (!hdr.ina.isValid()) {
            malformed(CTR_malformed_short);
        } else if (hdr.ina.version != INA_VERSION) {
            malformed(CTR_malformed_version);
        } else if (hdr.ina.type == INA_TYPE_CONTROL) {
            /* filter hands it to the control plane */
        } else if (hdr.ina.type != INA_TYPE_DATA) {
            malformed(CTR_malformed_type);
        } else {
            bit<32> payload = ((bit<32>)hdr.ina.elem_count) << 2;
            bool ack = (hdr.ina.flags & INA_F_ACK) != 0;
            /* The frame length is known on BMv2 only; on Tofino a frame
             * shorter than its headers is cut off by the parser. */
            bit<32> options = ((bit<32>)hdr.ipv4.ihl - 5) << 2;
            bool truncated = meta.parse_short == 1 ||
                (meta.frame_len != 0 && meta.frame_len < INA_PAYLOAD_OFFSET + options + payload);
            if ((bit<32>)hdr.udp.length != (bit<32>)INA_UDP_FIXED_LEN + payload) {
                malformed(CTR_malformed_length);
            } else if (truncated) {
                malformed(CTR_malformed_short);
            } else if (hdr.ina.elem_count > meta.cfg.elements ||
                       hdr.ina.elem_count > INA_P4_MAX_ELEMENTS) {
                malformed(CTR_malformed_elements);
            } else if (hdr.ina.job_id == 0) {
                malformed(CTR_malformed_job);
            } else if (hdr.ina.agg_index >= meta.cfg.aggregators && !ack) {
                malformed(CTR_malformed_index);
            } else if (hdr.ina.levels > INA_MAX_LEVELS || hdr.ina.level > hdr.ina.levels) {
                malformed(CTR_malformed_level);
            } else if (hdr.ina.level < hdr.ina.levels && !ack) {
                /* Validate at every level, as the software switch does, even
                 * though this build aggregates at levels 0 and 1 only. */
                if (hdr.ina.level == 0) {
                    meta.bitmap = hdr.ina.bitmap0;
                    meta.fan_in = hdr.ina.fan_in0;
                } else if (hdr.ina.level == 1) {
                    meta.bitmap = hdr.ina.bitmap1;
                    meta.fan_in = hdr.ina.fan_in1;
                } else if (hdr.ina.level == 2) {
                    meta.bitmap = hdr.ina.bitmap2;
                    meta.fan_in = hdr.ina.fan_in2;
                } else {
                    meta.bitmap = hdr.ina.bitmap3;
                    meta.fan_in = hdr.ina.fan_in3;
                }
                fan_in_mask.apply();
                if (meta.fan_in == 0 || meta.fan_in > INA_BITMAP_BITS) {
                    malformed(CTR_malformed_fan_in);
                } else if (meta.bitmap == 0 || (meta.bitmap & ~meta.allowed) != 0) {
                    malformed(CTR_malformed_bitmap);
                }
            }
        }
        /* The identifier as the aggregator_id register holds it: a Tofino
         * stateful ALU compares at most 32 bits of a word per condition, and
         * the word's other half holds the timestamp, so the 48-bit
         * <job, seq> becomes job ++ seq[15:0] (docs/p4.md). job != 0 keeps
         * key 0 free to mean "empty". */
        meta.key = hdr.ina.job_id ++ hdr.ina.seq[15:0];
        meta.row = hdr.ina.agg_index;
    }
}

#endif
