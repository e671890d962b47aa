/* SPDX-License-Identifier: BSD-3-Clause */
#include "registration.h"

#include <spdlog/spdlog.h>

namespace switchd {

namespace {

/* Does `b` describe the same job as `a` (a PS's periodic re-registration),
 * or a new one whose aggregators must not inherit a's partial sums? */
bool same_registration(const JobConfig &a, const JobConfig &b)
{
	if (a.ps_ip != b.ps_ip || a.ps_mac != b.ps_mac || a.levels != b.levels || a.fan_in != b.fan_in ||
	    a.workers.size() != b.workers.size())
		return false;
	for (size_t i = 0; i < a.workers.size(); i++)
		if (a.workers[i].ip != b.workers[i].ip || a.workers[i].mac != b.workers[i].mac ||
		    a.workers[i].bit != b.workers[i].bit)
			return false;
	return true;
}

/* The aggregators a job may hold: its [[job]]'s max_aggregators (also
 * when a PS registers it: the operator's limit holds), else the switch's
 * default (job_share). */
uint32_t max_aggregators_of(const SwitchConfig &sw, uint16_t id)
{
	for (const JobConfig &j : sw.jobs)
		if (j.id == id && j.max_aggregators)
			return j.max_aggregators;
	return default_max_aggregators(sw);
}

} /* namespace */

void register_job(App &app, const JobConfig &request, const char *origin, uint8_t epoch, bool epoch_checked)
{
	JobConfig cfg = request;
	if (!cfg.max_aggregators)
		cfg.max_aggregators = max_aggregators_of(app.cfg, cfg.id);
	const Job *old = app.jobs_owner->find(cfg.id);
	if (old && old->epoch == epoch && old->epoch_checked == epoch_checked &&
	    same_registration(old->cfg, cfg)) {
		/* A refresh: same content, the lease (refresh_ms) may change. */
		if (old->cfg.refresh_ms != cfg.refresh_ms || old->cfg.control_allowed != cfg.control_allowed) {
			auto job = std::make_shared<Job>(*old);
			job->cfg.refresh_ms = cfg.refresh_ms;
			job->cfg.control_allowed = cfg.control_allowed;
			publish_jobs(app, app.jobs_owner->with(std::move(job), false));
		}
		return;
	}
	auto job = build_job(cfg, *app.fwd, app.cfg.aggregators, static_cast<unsigned>(app.lcores.size()), epoch,
			     epoch_checked);
	for (const std::string &w : job->warnings)
		spdlog::warn("job {}: {}", cfg.id, w);
	std::string ports;
	for (const McastTarget &t : job->mcast)
		ports += fmt::format(" {}:{}", app.cfg.ports[t.port].name,
				     t.unicast ? ipv4_str(t.ip) : std::string("group"));
	std::string lease = "no lease";
	if (cfg.refresh_ms && app.cfg.lease_refreshes)
		lease = fmt::format("lease {} ms", uint64_t(cfg.refresh_ms) * app.cfg.lease_refreshes);
	spdlog::info("job {} {}registered ({}): epoch {}, {} workers, levels {}, PS {}, {}, max {} of {} aggregators, "
		     "parameter copies to{}",
		     cfg.id, old ? "re-" : "", origin, epoch, cfg.workers.size(), cfg.levels, ipv4_str(cfg.ps_ip),
		     lease, cfg.max_aggregators, app.cfg.aggregators, ports.empty() ? " none" : ports);
	/* Replaced by different content: the lcores free what the old
	 * registration holds before the new one's first packet. */
	publish_jobs(app, app.jobs_owner->with(std::move(job), old != nullptr));
}

} /* namespace switchd */
