/* SPDX-License-Identifier: BSD-3-Clause
 *
 * GOAT assignments on this switch (goat_assign.h): one job's ranges from
 * the config or from a PS's control message installed into a new GoatTable
 * and published to the lcores with RCU (rcu_publish(), registration.h).
 */
#ifndef INA_SWITCHD_GOAT_INSTALL_H
#define INA_SWITCHD_GOAT_INSTALL_H

#include <memory>
#include <string>

#include "app.h"

namespace switchd {

/* Installs (no ranges: removes) a job's GOAT assignment and logs it;
 * empty, or why not (ranges overlapping another job's). */
std::string install_goat(App &app, const GoatJobConfig &g, const char *origin);

} /* namespace switchd */

#endif
