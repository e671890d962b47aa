/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A worker driven by its caller's clock instead of its own sender thread:
 * the same scheduler, sender, window, congestion control, loss recovery and
 * index re-mapping as Worker::open() runs, for a caller that owns time (the
 * ns-3 model, sim/ns3/). The caller hands it a Transport whose recv() never
 * waits, and calls poll() whenever a frame arrived, a tensor was submitted,
 * or the time poll() asked for has come.
 *
 * One sender (threads must be 1), and the fragment size must be named
 * (elements_per_packet): the job query of open() waits for answers, which a
 * caller-driven clock cannot do.
 */
#ifndef INA_WORKER_STEPPED_H
#define INA_WORKER_STEPPED_H

#include <cstdint>
#include <memory>
#include <string>

#include "ina/transport.h"
#include "ina/worker.h"

namespace ina {

class SteppedWorker {
public:
	virtual ~SteppedWorker() = default;
	/* Validates cfg as Worker::open() does; nullptr with *error if it
	 * fails or asks for what a stepped worker cannot do. */
	static std::unique_ptr<SteppedWorker> open(const WorkerConfig &cfg, std::unique_ptr<Transport> tx,
						   std::string *error);
	/* As Worker's; the handle's done() tells when the result is in. */
	virtual AllreduceHandle allreduce_async(float *data, size_t n, std::string *error) = 0;
	/* One round of the sender's loop at `now_ns` (the caller's monotonic
	 * clock): returns when it wants the next round if nothing arrives
	 * before, UINT64_MAX with nothing in flight. */
	virtual uint64_t poll(uint64_t now_ns) = 0;
	virtual WorkerStats stats() const = 0;
	virtual const WorkerConfig &config() const = 0;
};

} /* namespace ina */

#endif /* INA_WORKER_STEPPED_H */
