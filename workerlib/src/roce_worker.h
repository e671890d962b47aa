/* SPDX-License-Identifier: BSD-3-Clause
 * Internal: the Worker of the roce transport (NetReduce, docs/netreduce.md),
 * opened by Worker::open() when cfg.transport.kind is "roce". */
#ifndef INA_WORKERLIB_ROCE_WORKER_H
#define INA_WORKERLIB_ROCE_WORKER_H

#include <memory>
#include <string>

#include "ina/worker.h"

namespace ina {

/* The ring config of a worker config: cfg.roce with the device and rank. */
RoceRingConfig roce_ring_config(const WorkerConfig &cfg);
/* validate() for the roce transport: the ring, not the PS and switch. */
bool validate_roce(const WorkerConfig &cfg, std::string *error);
std::unique_ptr<Worker> open_roce_worker(const WorkerConfig &cfg, std::string *error);

} /* namespace ina */

#endif
