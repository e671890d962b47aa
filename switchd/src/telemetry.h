/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rte_telemetry commands under /ina/ (read with dpdk-telemetry.py):
 *   /ina/summary            totals
 *   /ina/ports              port names;     /ina/port,<index>  its counters
 *   /ina/lcores             lcore indices;  /ina/lcore,<index> its counters,
 *                           CPU socket and where its state is (memory_socket)
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
/* From here on the commands answer with an error and none is still reading
 * `app`: its lcores' state may go. */
void stop_telemetry();

} /* namespace switchd */

#endif
