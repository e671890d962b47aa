/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rte_telemetry commands under /ina/ (read with dpdk-telemetry.py):
 *   /ina/summary            totals
 *   /ina/ports              port names;     /ina/port,<index>  its counters
 *   /ina/lcores             lcore indices;  /ina/lcore,<index> its counters
 *   /ina/jobs               registered ids; /ina/job,<id>      its counters
 *   /ina/pipeline           ina::process() counters, all lcores
 *   /ina/aggregators        occupancy per lcore
 */
#ifndef INA_SWITCHD_TELEMETRY_H
#define INA_SWITCHD_TELEMETRY_H

namespace switchd {

void register_telemetry();

} /* namespace switchd */

#endif
