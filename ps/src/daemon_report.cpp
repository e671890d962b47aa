/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the PS daemon prints (ina/ps_daemon.h): the plan it serves at start,
 * its statistics at the end.
 */
#include <nlohmann/json.hpp>

#include <cstdio>

#include "ina/codec.h"
#include "ina/ps_daemon.h"

namespace ina {

namespace {

/* Per thread: what it received, handed over and took, and its CPU time. */
nlohmann::json threads_json(const PsDaemon &d)
{
	nlohmann::json a = nlohmann::json::array();
	for (const auto &s : d.shards) {
		nlohmann::json t;
		t["rx"] = s->rx_frames;
		t["handed_off"] = s->handed_off;
		t["handoff_full"] = s->handoff_full;
		t["taken"] = s->taken;
		t["cpu_seconds"] = s->cpu_seconds;
		a.push_back(t);
	}
	return a;
}

} /* namespace */

void ps_print_plan(const PsDaemon &d, uint32_t threads)
{
	for (const auto &c : d.jobs) {
		printf("ina-ps: job %u epoch %u elements %u\n", c.job, d.job_epoch.at(c.job), d.job_size.at(c.job));
		for (const PsGoatSwitch &g : c.goat) {
			std::string ranges, subs;
			for (const GoatSlots &r : g.slots)
				ranges += " [" + std::to_string(r.first) + ", " + std::to_string(r.end) + ")";
			for (const std::string &n : g.submodels)
				subs += (subs.empty() ? " " : ", ") + n;
			printf("ina-ps: job %u GOAT switch %u (%s):%s in%s\n", c.job, g.id, ipv4_text(g.ip).c_str(),
			       subs.c_str(), ranges.c_str());
		}
	}
	printf("ina-ps: serving %zu job(s) on %s, %s, %u thread(s)\n", d.jobs.size(), d.transports[0]->name(),
	       ipv4_text(d.self_.ip).c_str(), threads);
	fflush(stdout);
}

void ps_print_json(const PsDaemon &d, uint32_t ip, uint64_t start, double cpu_seconds)
{
	const PsStats g = d.stats();
	nlohmann::json j;
	j["transport"] = d.transports[0]->name();
	j["ip"] = ipv4_text(ip);
	j["seconds"] = (ps_now_us() - start) / 1e6;
	j["threads"] = d.shards.size();
	j["queues"] = d.transports.size();
	j["cpu_seconds"] = cpu_seconds;
	j["not_ina"] = g.not_ina;
	j["bad_version"] = g.bad_version;
	j["bad_type"] = g.bad_type;
	j["bad_length"] = g.bad_length;
	j["unknown_job"] = g.unknown_job;
	j["tx_lost"] = d.tx_lost();
	uint64_t completed = 0;
	for (uint16_t id : d.ps0().jobs()) {
		const PsJobStats s = d.job_stats(id);
		nlohmann::json jj;
		jj["job"] = id;
		for (const auto &c : ps_job_counters())
			jj[c.name] = (s.*c.field).get();
		jj["share_in_network"] = s.completed ? double(s.completed_in_network) / s.completed : 0.0;
		j["jobs"].push_back(jj);
		completed += s.completed;
	}
	j["cpu_us_per_fragment"] = completed ? cpu_seconds * 1e6 / completed : 0.0;
	j["per_thread"] = threads_json(d);
	printf("%s\n", j.dump(2).c_str());
}

void ps_print_text(const PsDaemon &d, uint64_t start, double cpu_seconds)
{
	const PsStats g = d.stats();
	printf("ina-ps: %.1f s on %s, %zu thread(s), %zu queue(s), %.2f CPU s; not INA %lu, bad version %lu, "
	       "bad type %lu, bad length %lu, unknown job %lu, tx lost %lu\n",
	       (ps_now_us() - start) / 1e6, d.transports[0]->name(), d.shards.size(), d.transports.size(),
	       cpu_seconds, (unsigned long)g.not_ina, (unsigned long)g.bad_version, (unsigned long)g.bad_type,
	       (unsigned long)g.bad_length, (unsigned long)g.unknown_job, (unsigned long)d.tx_lost());
	for (uint16_t id : d.ps0().jobs()) {
		const PsJobStats js = d.job_stats(id);
		const PsJobStats *s = &js;
		double share = s->completed ? 100.0 * s->completed_in_network / s->completed : 0.0;
		printf("job %u: fragments completed %lu (in network %lu = %.1f%%, at PS %lu), collisions %lu, "
		       "retransmits seen %lu, overflows %lu, duplicates %lu, ACKs resent %lu\n",
		       id, (unsigned long)s->completed, (unsigned long)s->completed_in_network, share,
		       (unsigned long)s->completed_at_ps, (unsigned long)s->collisions,
		       (unsigned long)s->retransmits, (unsigned long)s->overflows,
		       (unsigned long)s->duplicates, (unsigned long)s->ack_resent);
		for (const auto &c : ps_job_counters())
			if (s->*c.field)
				printf("  %-22s %12lu  %s\n", c.name, (unsigned long)(s->*c.field), c.help);
	}
	if (d.shards.size() > 1)
		for (const auto &s : d.shards)
			printf("  thread %u: received %lu, handed off %lu (ring full %lu), taken %lu, %.2f CPU s\n",
			       s->index, (unsigned long)s->rx_frames, (unsigned long)s->handed_off,
			       (unsigned long)s->handoff_full, (unsigned long)s->taken, s->cpu_seconds);
}

} /* namespace ina */
