/* SPDX-License-Identifier: BSD-3-Clause
 *
 * How a worker chooses the aggregator index of a fragment (docs/worker.md,
 * "Aggregator index"; config key `index`): ATP's hash of <job, seq> with the
 * PS's collision hints (ina/worker/remap.h), or one of the baselines of ATP's
 * Figure 14: linear, seq mod N, and static, SwitchML's equal partition, first
 * + seq mod (end - first) in the job's own aggregators. The baselines take no
 * hints.
 */
#ifndef INA_WORKER_INDEX_POLICY_H
#define INA_WORKER_INDEX_POLICY_H

#include <cstdint>

namespace ina {

struct IndexPolicy {
	enum Kind : uint8_t { Hash, Linear, Static };
	Kind kind = Hash;
	uint32_t first = 0, end = 0; /* Static: the job's aggregators [first, end) */
};

} /* namespace ina */

#endif /* INA_WORKER_INDEX_POLICY_H */
