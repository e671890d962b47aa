/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The fault shim: wraps any transport and, per frame and independently on
 * receive and on send, drops it (probability `drop`), delivers it twice
 * (`duplicate`) or holds it back behind the next frame (`reorder`). The
 * decisions come from a seeded generator (splitmix64), so a test with the same
 * seed and the same traffic sees the same faults. open_transport() applies it
 * when any probability in the TransportConfig is above 0.
 *
 * A held (reordered) frame is released after the next frame in the same
 * direction, or at the next recv()/send() call that has none, so nothing is
 * held forever by a caller that keeps polling.
 */
#ifndef INA_TRANSPORT_FAULTS_H
#define INA_TRANSPORT_FAULTS_H

#include <cstdint>
#include <memory>

#include "ina/transport.h"

namespace ina {

struct FaultDirectionStats {
	uint64_t frames = 0;     /* frames that entered the shim */
	uint64_t dropped = 0;
	uint64_t duplicated = 0; /* extra copies delivered */
	uint64_t reordered = 0;  /* frames held behind a later one */
	uint64_t overrun = 0;    /* fault skipped: no spare buffer (counted, frame kept) */
};

struct FaultStats {
	FaultDirectionStats rx;
	FaultDirectionStats tx;
};

/* Wraps `inner` with the probabilities and seed of `cfg`. */
std::unique_ptr<Transport> wrap_faults(std::unique_ptr<Transport> inner, const TransportConfig &cfg);

/* The shim's counters; false if `t` is not a fault shim. */
bool fault_stats(const Transport &t, FaultStats *out);

} /* namespace ina */

#endif /* INA_TRANSPORT_FAULTS_H */
