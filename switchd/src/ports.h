/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Port setup: find every configured port, configure one TX queue and up to
 * one RX queue per lcore, and try NIC steering (rte_flow: INA UDP source
 * port low bits -> queue); each port's steering mode is logged at start-up
 * and shown by telemetry (/ina/port).
 */
#ifndef INA_SWITCHD_PORTS_H
#define INA_SWITCHD_PORTS_H

#include <string>

#include "app.h"

namespace switchd {

/* Looks up every port by name; returns an error line or "". */
std::string find_ports(App &app);
/* Configures and starts the ports, decides steering, assigns RX queues to
 * lcores. Returns an error line or "". */
std::string setup_ports(App &app);
void stop_ports(App &app);

} /* namespace switchd */

#endif
