/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the control plane lets a control message do, once it is authentic
 * (docs/security.md): replay protection (a counter per sender, strictly
 * increasing, near the switch's clock) and who may change which job (a job
 * of the config only if its config allows it; a job a PS registered only
 * by that PS). No DPDK: the control thread owns one, tests drive it alone.
 */
#ifndef INA_SWITCHD_CONTROL_GATE_H
#define INA_SWITCHD_CONTROL_GATE_H

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "config.h"

namespace switchd {

class ControlGate {
public:
	/* `jobs`: the config's jobs; `window_s`: how far a counter (ns) may be
	 * from the switch's wall clock. */
	ControlGate(const std::vector<JobConfig> &jobs, uint32_t window_s);

	/* True if `counter` is within the window of now_ns and above the last
	 * one taken from `sender`; then it becomes the last one. */
	bool fresh(uint32_t sender, uint64_t counter, uint64_t now_ns);

	/* May `sender` register or unregister `job`? */
	bool may_change(uint16_t job, uint32_t sender) const;
	/* Records an applied registration (the sender now owns the job) or
	 * unregistration (the id is free again). */
	void registered(uint16_t job, uint32_t sender);
	void unregistered(uint16_t job);

private:
	enum class Owner : uint8_t {
		kNone,       /* not registered: any authentic sender may */
		kConfig,     /* a [[job]] of the config: nobody may */
		kConfigOpen, /* a [[job]] with control = "allow": any authentic sender may */
		kPs,         /* registered by the PS at owner_ip_ */
	};
	std::vector<Owner> owner_;
	std::vector<uint32_t> owner_ip_;
	std::unordered_map<uint32_t, uint64_t> last_; /* sender -> last counter taken */
	uint64_t window_ns_;
};

} /* namespace switchd */

#endif
