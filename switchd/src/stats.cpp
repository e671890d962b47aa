/* SPDX-License-Identifier: BSD-3-Clause */
#include "stats.h"

namespace switchd {

#define SWITCHD_NAME(name, kind, help) #name,
const char *const kPortCounterNames[] = {SWITCHD_PORT_COUNTERS(SWITCHD_NAME)};
const char *const kLcoreCounterNames[] = {SWITCHD_LCORE_COUNTERS(SWITCHD_NAME)};
const char *const kJobCounterNames[] = {SWITCHD_JOB_COUNTERS(SWITCHD_NAME)};
#undef SWITCHD_NAME

} /* namespace switchd */
