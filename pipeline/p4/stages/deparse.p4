/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Stage `deparse`: rewrite the INA header (bitmaps, level, flags) as
 * process.cpp does. Bitmaps and level are written in the first pass, so a
 * recirculated packet carries them into the second; the flags that depend on
 * the aggregator_flags register are written in the last pass, where that
 * register is read.
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
        if (meta.carry_flags == 1 && (meta.second == 1 || meta.need_second == 0)) {
            /* pkt_flags_of */
            if ((meta.flags_out & AGG_ECN) != 0) { hdr.ina.flags = hdr.ina.flags | INA_F_ECN; }
            if ((meta.flags_out & AGG_COL) != 0) { hdr.ina.flags = hdr.ina.flags | INA_F_COL; }
            if ((meta.flags_out & AGG_OVERFLOW) != 0) { hdr.ina.flags = hdr.ina.flags | INA_F_OVERFLOW; }
        }
    }
}

#endif
