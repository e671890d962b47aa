/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The control plane: a non-data-path thread that checks and answers control
 * messages (registrations, registration.h; GOAT assignments, goat_install.h),
 * expires the leases of jobs whose PS stopped renewing them, watches the
 * links (links.h) and logs the periodic one-line summary (summary.h).
 * control.cpp handles the messages, control_tx.cpp sets up the rings their
 * ACKs leave by.
 */
#ifndef INA_SWITCHD_CONTROL_H
#define INA_SWITCHD_CONTROL_H

#include <string>

#include "app.h"

namespace switchd {

/* Creates the rings through which the control thread sends its ACKs and
 * logs how control messages are authenticated. Empty, or the error. */
std::string setup_control_tx(App &app);

/* Runs until app.quit: control messages and the periodic summary. */
void control_loop(App &app);

} /* namespace switchd */

#endif
