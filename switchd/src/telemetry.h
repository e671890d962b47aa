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

struct App;

/* DPDK 22.11's telemetry callbacks take no argument: `app` is kept for
 * them until the process ends. */
void register_telemetry(const App &app);

} /* namespace switchd */

#endif
