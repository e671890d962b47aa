/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The ports' link state as the lcores see it (app.port_up), checked by the
 * control thread every 50 ms and logged when it changes.
 */
#ifndef INA_SWITCHD_LINKS_H
#define INA_SWITCHD_LINKS_H

#include <cstdint>
#include <vector>

#include "app.h"

namespace switchd {

/* One check of every port; `seen_up` (one per port, 0 at first) counts
 * the consecutive checks that saw a port up. */
void check_links(App &app, std::vector<uint8_t> &seen_up);

} /* namespace switchd */

#endif
