/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `deparse`: rewrite the INA header (bitmaps, level, flags) as
 * process.cpp does. Bitmaps and level are written in the first pass, so a
 * recirculated packet carries them into the second; the flags that depend on
 * the aggregator_flags register are written in the last pass, where that
 * register is read (result_flags).
 */
#ifndef INA_P4_STAGE_DEPARSE
#define INA_P4_STAGE_DEPARSE

control deparse(inout ina_headers_t hdr, inout ina_meta_t meta) {
    apply {
        /* Every INA data packet leaves with UDP checksum 0, as process.cpp
         * writes it: header and payload are rewritten here, and a sender's
         * checksum would make the receiving host drop the datagram. */
        if (hdr.ina.isValid() && hdr.ina.type == INA_TYPE_DATA) {
            hdr.udp.checksum = 0;
        }
        if (meta.second == 0) {
            if (meta.write_bitmaps == 1) {
                /* write_result_bitmaps: this level's bitmap is the merged
                 * one, lower levels become "all children". */
                if (hdr.ina.level == 0) {
                    hdr.ina.bitmap0 = meta.merged;
                } else {
                    hdr.ina.bitmap0 = INA_ALL_CHILDREN;
                    hdr.ina.bitmap1 = meta.merged;
                }
            }
            hdr.ina.flags = hdr.ina.flags | meta.set_flags;
            if (meta.advance == 1) {
                hdr.ina.level = hdr.ina.level + 1;
            }
        }
    }
}

/* The aggregator's flags in the packet that carries the result
 * (carry_flags), in its last pass, after aggregator_flags read them. The
 * TNA build applies it in egress (the flags ride in the bridge header):
 * aggregator_flags runs in the last stages of ingress, after the lanes. */
control result_flags(inout ina_headers_t hdr, inout ina_meta_t meta) {
    /* The aggregator's flags as header flags (pkt_flags_of), one lookup:
     * three dependent ORs into the header field took three stages. */
    action add_flags(bit<16> flags) { hdr.ina.flags = hdr.ina.flags | flags; }
    table pkt_flags_of {
        key = { meta.flags_out : ternary; }
        actions = { add_flags; NoAction; }
        const default_action = NoAction();
        const entries = {
            (AGG_ECN | AGG_COL | AGG_OVERFLOW) &&& (AGG_ECN | AGG_COL | AGG_OVERFLOW) : add_flags(INA_F_ECN | INA_F_COL | INA_F_OVERFLOW);
            (AGG_ECN | AGG_COL) &&& (AGG_ECN | AGG_COL | AGG_OVERFLOW) : add_flags(INA_F_ECN | INA_F_COL);
            (AGG_ECN | AGG_OVERFLOW) &&& (AGG_ECN | AGG_COL | AGG_OVERFLOW) : add_flags(INA_F_ECN | INA_F_OVERFLOW);
            (AGG_COL | AGG_OVERFLOW) &&& (AGG_ECN | AGG_COL | AGG_OVERFLOW) : add_flags(INA_F_COL | INA_F_OVERFLOW);
            AGG_ECN &&& (AGG_ECN | AGG_COL | AGG_OVERFLOW) : add_flags(INA_F_ECN);
            AGG_COL &&& (AGG_ECN | AGG_COL | AGG_OVERFLOW) : add_flags(INA_F_COL);
            AGG_OVERFLOW &&& (AGG_ECN | AGG_COL | AGG_OVERFLOW) : add_flags(INA_F_OVERFLOW);
        }
    }

    apply {
        pkt_flags_of.apply();
    }
}

#endif
