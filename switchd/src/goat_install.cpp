/* SPDX-License-Identifier: BSD-3-Clause */
#include "goat_install.h"

#include <spdlog/spdlog.h>

#include "registration.h"

namespace switchd {

namespace {

bool same_ranges(const std::vector<GoatRange> &a, const std::vector<GoatRange> &b)
{
	if (a.size() != b.size())
		return false;
	for (size_t i = 0; i < a.size(); i++)
		if (a[i].first != b[i].first || a[i].end != b[i].end || a[i].fan_in != b[i].fan_in ||
		    a[i].children != b[i].children)
			return false;
	return true;
}

} /* namespace */

std::string install_goat(App &app, const GoatJobConfig &g, const char *origin)
{
	/* A PS repeats its assignment with its registration: the same one
	 * again changes nothing and is not logged. */
	const GoatAssignment *old = app.goat_owner->find(g.job);
	if ((old && same_ranges(old->cfg.ranges, g.ranges)) || (!old && g.ranges.empty()))
		return "";
	std::string err;
	std::unique_ptr<GoatTable> next =
		g.ranges.empty() ? app.goat_owner->without(g.job) : app.goat_owner->with(g, &err);
	if (!next)
		return err;
	rcu_publish(app, app.goat, app.goat_owner, std::move(next));
	std::string ranges;
	for (const GoatRange &r : g.ranges)
		ranges += r.fan_in ? fmt::format(" [{}, {}) for {} workers (bits {:#x})", r.first, r.end, r.fan_in,
						 r.children)
				   : fmt::format(" [{}, {})", r.first, r.end);
	std::string subs;
	for (const std::string &s : g.submodels)
		subs += (subs.empty() ? " sub-models " : ", ") + s;
	spdlog::info("job {}: GOAT assignment ({}): switch {} aggregates{}{}{}", g.job, origin,
		     app.cfg.switch_id, ranges.empty() ? " nothing (removed)" : " aggregators" + ranges,
		     subs, g.plan.empty() ? "" : " from plan " + g.plan);
	return "";
}

} /* namespace switchd */
