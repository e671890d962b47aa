/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The PS daemon's registration (ina/ps_daemon.h): each job with its switch,
 * its GOAT assignments on the switches of its plan, the refreshes, and each
 * job's fragment size and epoch once the switches answered.
 */
#include <chrono>
#include <cstdio>

#include "ina/cli.h"
#include "ina/codec.h"
#include "ina/ps_daemon.h"

namespace ina {

namespace {

/* The wall clock, for control-message counters (docs/protocol.md). */
uint64_t wall_ns() { return ps_clock_ns<std::chrono::system_clock>(); }

/* How long the unregistration at exit may take. */
constexpr uint64_t kUnregisterTimeoutUs = 1000000;

} /* namespace */

/* Starts a (un)registration of every job that has a switch. */
void PsDaemon::start_control(bool unregister, uint64_t now)
{
	for (const auto &c : jobs)
		if (c.has_switch && control.state(c.job) != ControlClient::State::kPending)
			control.start(c, unregister,
				      now, unregister ? kUnregisterTimeoutUs : c.register_timeout_ms * 1000ull);
}

/* Starts installing (or removing) every job's GOAT assignments on the
 * switches of its plan. */
void PsDaemon::start_goat(bool remove, uint64_t now)
{
	for (const auto &c : jobs)
		for (size_t i = 0; i < c.goat.size(); i++)
			if (control.goat_state(c.job, c.goat[i].id) != ControlClient::State::kPending)
				control.start_goat(c, i, remove, now,
						   remove ? kUnregisterTimeoutUs : c.register_timeout_ms * 1000ull);
}

/* Sends what the control client has due. */
void PsDaemon::poll_control()
{
	PsShard &s0 = *shards[0];
	control.poll(ps_now_us(), wall_ns(), s0.tx);
	s0.flush_tx();
}

/* Waits for the requests started; false if interrupted (while
 * setting up: `patient` false). Runs while thread 0 is the only one. */
bool PsDaemon::wait_control(bool patient)
{
	while (control.pending()) {
		if (!patient && stop.load(std::memory_order_relaxed))
			return false; /* interrupted while waiting for the switch */
		poll_control();
		receive_alone(10000);
	}
	return true;
}

/* Registers every job with its switch, then installs its GOAT
 * assignments (the switch may refuse them for a job it does not know);
 * on the way out removes the assignments, then unregisters. False
 * (after a message per request) if one was not applied. */
bool PsDaemon::control_all(bool unregister)
{
	if (o.no_register)
		return true;
	if (unregister) {
		start_goat(true, ps_now_us());
		wait_control(true);
		start_control(true, ps_now_us());
		wait_control(true);
	} else {
		start_control(false, ps_now_us());
		if (!wait_control(false))
			return false;
		start_goat(false, ps_now_us());
		if (!wait_control(false))
			return false;
	}
	return all_applied(unregister);
}

/* After a refresh: a switch renews the run's epoch (docs/protocol.md,
 * "Epochs"), also after it restarted. One that started a new run
 * instead now drops this run's packets (stale_epoch_drops), and only
 * restarting the PS and the workers joins them again: said once per job. */
void PsDaemon::check_epochs()
{
	for (const auto &c : jobs) {
		if (!c.has_switch || control.state(c.job) != ControlClient::State::kApplied)
			continue;
		const uint8_t now = control.epoch(c.job);
		if (now != job_epoch[c.job] && epoch_warned.insert(c.job).second)
			fprintf(stderr,
				"ina-ps: job %u: switch %s gave the job epoch %u, a new run, while this PS "
				"and its workers run epoch %u: it drops their packets (stale_epoch_drops); "
				"restart ina-ps and the workers\n",
				c.job, ipv4_text(c.switch_ip).c_str(), now, job_epoch[c.job]);
	}
}

/* Reports each request that was not applied; true if none. */
bool PsDaemon::all_applied(bool unregister) const
{
	bool ok = true;
	for (const auto &c : jobs) {
		if (c.has_switch && control.state(c.job) != ControlClient::State::kApplied) {
			ok = false;
			report(c, unregister);
		}
		for (const PsGoatSwitch &g : c.goat)
			if (control.goat_state(c.job, g.id) != ControlClient::State::kApplied) {
				ok = false;
				report_goat(c, g, unregister);
			}
	}
	return ok;
}

void PsDaemon::report(const PsJobConfig &c, bool unregister) const
{
	const auto st = control.state(c.job);
	const char *what = unregister ? "unregistration" : "registration";
	if (st == ControlClient::State::kTimedOut)
		fprintf(stderr,
			"ina-ps: job %u: switch %s did not acknowledge the %s within %.1f s (%u attempts; "
			"is it running, and does it share switch.control_key_file?)\n",
			c.job, ipv4_text(c.switch_ip).c_str(), what,
			(unregister ? kUnregisterTimeoutUs : c.register_timeout_ms * 1000ull) / 1e6,
			control.attempts(c.job));
	else if (st == ControlClient::State::kDenied)
		fprintf(stderr,
			"ina-ps: job %u: switch %s denied the %s (the job is in its config, or another "
			"PS registered it)\n",
			c.job, ipv4_text(c.switch_ip).c_str(), what);
	else
		fprintf(stderr, "ina-ps: job %u: switch %s rejected the %s as invalid\n", c.job,
			ipv4_text(c.switch_ip).c_str(), what);
}

void PsDaemon::report_goat(const PsJobConfig &c, const PsGoatSwitch &g, bool remove) const
{
	const auto st = control.goat_state(c.job, g.id);
	const char *what = remove ? "removal of its GOAT assignment" : "GOAT assignment";
	const char *why = st == ControlClient::State::kTimedOut
				  ? "did not acknowledge"
			  : st == ControlClient::State::kDenied
				  ? "denied (the job is another PS's, or its config's without control = \"allow\")"
				  : "rejected as invalid (ranges beyond its table or another job's)";
	fprintf(stderr, "ina-ps: job %u: switch %u (%s) %s the %s (%u attempts)\n", c.job, g.id,
		ipv4_text(g.ip).c_str(), why, what, control.goat_attempts(c.job, g.id));
}

/* Each job's size is the least of its own (this PS's cap, or what the job
 * file names) and its switches' caps; a named size above a switch's cap is
 * refused. */
int PsDaemon::settle_jobs()
{
	for (const auto &c : jobs) {
		uint32_t sw = 0;
		const uint16_t cap = c.has_switch || !c.goat.empty() ? control.cap(c.job, &sw) : 0;
		uint16_t size = c.elements;
		if (cap && size > cap) {
			if (!c.elements_auto) {
				print_error("ina-ps", "job " + std::to_string(c.job) + ": elements " +
							      std::to_string(c.elements) + " is more than switch " +
							      ipv4_text(sw) + " carries (" + std::to_string(cap) +
							      " elements): it would drop every fragment; name at most " +
							      std::to_string(cap) + " or leave elements to the path");
				return kExitUsage;
			}
			size = cap;
		}
		/* The run's epoch from the switch's ACK (0 without a switch or
		 * registration): stamped on every packet the PS sends and told
		 * the workers in JOB_INFO, with the size. */
		const uint8_t epoch = c.has_switch ? control.epoch(c.job) : 0;
		for (auto &s : shards) {
			s->ps->set_elements(c.job, size);
			s->ps->set_epoch(c.job, epoch);
		}
		job_epoch[c.job] = epoch;
		job_size[c.job] = size;
	}
	return -1;
}

} /* namespace ina */
