/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The pipeline counters (pipeline.h INA_PIPELINE_COUNTERS), bumped in the
 * packet's last pass. process.cpp bumps a packet's reason and, on some paths,
 * `claimed`, `aggregated`, `overflow` or `multicast` as well; a Tofino counter
 * array counts once per packet, so those four have one array each next to
 * the reason array, and a counter's value is the sum of its reason entry and
 * its side array (tests/p4/run_vectors.py reads them that way). They count
 * in the packet's last pass as soon as its verdict is known, ahead of the
 * lanes; `overflow` waits for the overflow test after the last lane and is
 * aggregator_flags' (stages/aggregator_flags.p4).
 */
#ifndef INA_P4_STAGE_COUNTERS
#define INA_P4_STAGE_COUNTERS

control counters(inout ina_headers_t hdr, inout ina_meta_t meta) {
    INA_COUNTER(reason_counter, INA_COUNTERS);
    INA_COUNTER(claimed_counter, 1);
    INA_COUNTER(aggregated_counter, 1);
    INA_COUNTER(multicast_counter, 1);

    apply {
        if (meta.reason != CTR_NONE) {
            INA_COUNT(reason_counter, meta.reason);
        }
        if ((meta.side & SIDE_CLAIMED) != 0) { INA_COUNT(claimed_counter, 0); }
        if ((meta.side & SIDE_AGGREGATED) != 0) { INA_COUNT(aggregated_counter, 0); }
        if ((meta.side & SIDE_MULTICAST) != 0) { INA_COUNT(multicast_counter, 0); }
    }
}

#endif
