/* SPDX-License-Identifier: BSD-3-Clause */
#include "control_gate.h"

namespace switchd {

ControlGate::ControlGate(const std::vector<JobConfig> &jobs, uint32_t window_s)
	: owner_(65536, Owner::kNone), owner_ip_(65536, 0), window_ns_(uint64_t(window_s) * 1000000000ull)
{
	for (const JobConfig &j : jobs)
		owner_[j.id] = j.control_allowed ? Owner::kConfigOpen : Owner::kConfig;
}

bool ControlGate::fresh(uint32_t sender, uint64_t counter, uint64_t now_ns)
{
	/* The window bounds what a switch that has just started (and so knows
	 * no last counter) can be made to accept again. */
	const uint64_t distance = counter > now_ns ? counter - now_ns : now_ns - counter;
	if (distance > window_ns_)
		return false;
	auto it = last_.find(sender);
	if (it != last_.end() && counter <= it->second)
		return false;
	last_[sender] = counter;
	return true;
}

bool ControlGate::may_change(uint16_t job, uint32_t sender) const
{
	switch (owner_[job]) {
	case Owner::kNone:
	case Owner::kConfigOpen:
		return true;
	case Owner::kConfig:
		return false;
	case Owner::kPs:
		return owner_ip_[job] == sender;
	}
	return false;
}

void ControlGate::registered(uint16_t job, uint32_t sender)
{
	owner_[job] = Owner::kPs;
	owner_ip_[job] = sender;
}

void ControlGate::unregistered(uint16_t job)
{
	owner_[job] = Owner::kNone;
	owner_ip_[job] = 0;
}

} /* namespace switchd */
