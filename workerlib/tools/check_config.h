/* SPDX-License-Identifier: BSD-3-Clause
 *
 * `ina-worker --check-config [options]`: the worker's configuration as the
 * command line and its --set keys make it, checked as Worker::open() checks
 * it (ina::validate) and printed as JSON with every default filled in, one
 * member per config key (docs/worker.md); opens no transport, no EAL, no
 * socket.
 */
#ifndef INA_WORKER_CHECK_CONFIG_H
#define INA_WORKER_CHECK_CONFIG_H

#include <string>

#include "ina/worker.h"

/* The config as JSON, keys as `--set` spells them. */
std::string worker_config_json(const ina::WorkerConfig &cfg);

/* 0 and the JSON on stdout when cfg is valid, else one
 * "ina-worker: error: invalid config: ..." line on stderr and 2. */
int check_worker_config(const ina::WorkerConfig &cfg);

#endif
