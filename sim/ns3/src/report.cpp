/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What a run prints: per job its iteration times, the share of fragments
 * the network aggregated, retransmissions and whether every result was the
 * exact sum; per switch its aggregator occupancy and the switch program's
 * counters. Text for people, JSON (--json) for tests.
 */
#include <algorithm>
#include <iomanip>

#include <nlohmann/json.hpp>
#include <ns3/simulator.h>

#include "network.h"

namespace ina::sim {

namespace {

using json = nlohmann::json;

/* The job's iteration times: iteration i ends when its last worker has
 * the result, and starts when iteration i - 1 ended (0 for the first). */
std::vector<double> iteration_ms(const JobHosts &jh)
{
	std::vector<double> out;
	uint64_t prev = jh.workers.empty() ? 0 : jh.workers[0]->started_ns();
	for (uint32_t i = 0; i < jh.job->iterations; i++) {
		uint64_t end = 0;
		for (const WorkerApp *w : jh.workers) {
			if (w->ends().size() <= i)
				return out;
			end = std::max(end, w->ends()[i]);
		}
		out.push_back(static_cast<double>(end - prev) / 1e6);
		prev = end;
	}
	return out;
}

json job_json(const JobHosts &jh, bool *exact)
{
	WorkerStats sum;
	uint64_t wrong = 0, tx_drops = 0;
	double straggling = 0;
	json errors = json::array();
	bool done = true;
	for (const WorkerApp *w : jh.workers) {
		const WorkerStats s = w->stats();
		sum.retransmits += s.retransmits;
		sum.timeouts += s.timeouts;
		sum.fast_retransmits += s.fast_retransmits;
		sum.packets_sent += s.packets_sent;
		sum.ecn_acks += s.ecn_acks;
		sum.col_acks += s.col_acks;
		sum.remaps += s.remaps;
		sum.bypass_sent += s.bypass_sent;
		straggling += s.straggling;
		wrong += w->wrong_values();
		tx_drops += w->transport().tx_drops();
		done = done && w->done() && !w->failed();
		if (w->failed())
			errors.push_back(w->error());
	}
	const PsJobStats *ps = jh.ps->ps().job_stats(jh.job->id);
	const uint64_t completed = ps ? ps->completed.get() : 0;
	const uint64_t in_net = ps ? ps->completed_in_network.get() : 0;
	const uint64_t ps_packets = ps ? ps->packets.get() : 0;
	const std::vector<double> its = iteration_ms(jh);
	*exact = done && wrong == 0 && its.size() == jh.job->iterations;
	json j = {{"id", jh.job->id}, {"mode", jh.job->mode}, {"workers", jh.workers.size()},
		  {"levels", jh.job->levels}, {"tensor", jh.job->tensor}, {"iterations", jh.job->iterations},
		  {"iteration_ms", its}, {"done", done}, {"wrong_values", wrong}, {"exact", *exact},
		  {"fragments_completed", completed}, {"completed_in_network", in_net},
		  {"in_network_share", completed ? static_cast<double>(in_net) / completed : 0.0},
		  {"packets_sent", sum.packets_sent}, {"ps_packets", ps_packets},
		  /* What the switches absorbed of the workers' packets: rack-scale
		   * jobs leave the racks' sums to the PS, so in_network_share
		   * alone would say 0. */
		  {"absorbed_share", sum.packets_sent ? 1.0 - static_cast<double>(ps_packets) / sum.packets_sent : 0.0}, {"retransmits", sum.retransmits},
		  {"timeouts", sum.timeouts}, {"fast_retransmits", sum.fast_retransmits},
		  {"ecn_acks", sum.ecn_acks}, {"collision_acks", sum.col_acks}, {"remaps", sum.remaps},
		  {"bypass_sent", sum.bypass_sent}, {"host_tx_drops", tx_drops},
		  /* A2TP's gamma (eq. (3)) at the end, the workers' mean; 1 for
		   * the schemes that estimate none. */
		  {"straggling", jh.workers.empty() ? 1.0 : straggling / jh.workers.size()},
		  {"ps_collisions", ps ? ps->collisions.get() : 0}, {"errors", errors}};
	/* The PS's every counter of the job (docs/ps.md), for a run to read. */
	for (const PsCounterInfo &c : ps_job_counters())
		j["ps"][c.name] = ps ? (ps->*c.field).get() : 0;
	return j;
}

json switch_json(const SwitchNode &s)
{
	const PipelineCounters &p = s.pipeline();
	json ports = json::array();
	for (size_t i = 0; i < s.plan().ports.size(); i++)
		ports.push_back({{"peer", s.plan().ports[i].peer}, {"up", s.plan().ports[i].up}, {"tx", s.port_tx()[i]}});
	return {{"name", s.plan().name}, {"aggregators", s.table().slots()},
		{"peak_occupied", s.counters().peak_occupied}, {"occupied_at_end", s.table().occupied()},
		{"rx", s.counters().rx}, {"tx", s.counters().tx}, {"queue_drops", s.counters().queue_drops},
		{"ecn_premarks", s.counters().ecn_premarks}, {"no_route", s.counters().no_route},
		{"aggregated", p[Counter::aggregated]}, {"completed", p[Counter::completed]},
		{"collisions", p[Counter::collision]}, {"share_refusals", p[Counter::share_refusals]},
		{"multicast", p[Counter::multicast]}, {"ack_freed", p[Counter::ack_freed]},
		{"resend_merged", p[Counter::resend_merged]}, {"duplicates", p[Counter::duplicate]},
		{"plain_forwarded", s.counters().plain}, {"ports", ports}};
}

json flow_json(const BackgroundFlow &f)
{
	const FlowCounters &c = f.counters();
	const double secs = static_cast<double>(c.last_rx_ns - c.first_rx_ns) / 1e9;
	return {{"name", f.plan().name}, {"from", f.plan().from}, {"to", f.plan().to},
		{"protocol", f.plan().protocol}, {"rate_mbps", f.plan().rate_mbps}, {"start_s", f.plan().start_s},
		{"stop_s", f.plan().stop_s}, {"frames_sent", c.frames_sent}, {"bytes_sent", c.bytes_sent},
		{"frames_received", c.frames_received}, {"bytes_received", c.bytes_received},
		/* Sent and not received: dropped at a switch's queue, or still
		 * on a wire when the run ended. */
		{"frames_lost", c.frames_sent - c.frames_received}, {"host_tx_drops", c.host_tx_drops},
		{"gbps_received", secs > 0 ? static_cast<double>(c.bytes_received) * 8 / secs / 1e9 : 0.0}};
}

void job_text(std::ostream &o, const json &j)
{
	o << "job " << j["id"] << " (" << j["mode"].get<std::string>() << ", " << j["workers"] << " workers, "
	  << j["levels"] << " level(s), " << j["tensor"] << " floats x " << j["iterations"] << " iterations)\n";
	o << "  iteration ms:";
	for (double ms : j["iteration_ms"])
		o << ' ' << std::fixed << std::setprecision(3) << ms;
	o << "\n  in network: " << j["completed_in_network"] << " of " << j["fragments_completed"]
	  << " fragments complete (" << std::setprecision(1) << 100.0 * j["in_network_share"].get<double>()
	  << "%); the PS received " << j["ps_packets"] << " of the workers' " << j["packets_sent"] << " packets ("
	  << 100.0 * j["absorbed_share"].get<double>() << "% absorbed)\n";
	o << "  retransmits: " << j["retransmits"] << " (timeouts " << j["timeouts"] << ", fast "
	  << j["fast_retransmits"] << "), ECN ACKs " << j["ecn_acks"] << ", collisions at PS "
	  << j["ps_collisions"] << "\n";
	o << "  result: " << (j["exact"].get<bool>() ? "exact" : "WRONG OR UNFINISHED") << " (" << j["wrong_values"]
	  << " wrong values)\n";
	for (const auto &e : j["errors"])
		o << "  error: " << e.get<std::string>() << "\n";
}

} /* namespace */

bool Network::report(std::ostream &text, std::ostream *json_out) const
{
	json all = {{"plan", plan_.name}, {"elements", elements_}, {"wall_s", wall_s_},
		    {"sim_end_ms", ns3::Simulator::Now().GetNanoSeconds() / 1e6}};
	bool ok = true;
	for (const JobHosts &jh : jobs_) {
		bool exact = false;
		json j = job_json(jh, &exact);
		ok = ok && exact;
		job_text(text, j);
		all["jobs"].push_back(j);
	}
	for (const auto &s : switches_) {
		json j = switch_json(*s);
		text << "switch " << s->plan().name << ": aggregators " << j["aggregators"] << ", peak occupied "
		     << j["peak_occupied"] << ", at end " << j["occupied_at_end"] << "; completed " << j["completed"]
		     << ", collisions " << j["collisions"] << ", ECN pre-marks " << j["ecn_premarks"]
		     << ", queue drops " << j["queue_drops"] << ", other frames " << j["plain_forwarded"] << "\n";
		all["switches"].push_back(j);
	}
	for (const auto &f : flows_) {
		json j = flow_json(*f);
		text << "background " << f->plan().name << " (" << f->plan().from << " -> " << f->plan().to << ", udp "
		     << f->plan().rate_mbps << " Mb/s): sent " << j["frames_sent"] << " datagrams (" << j["bytes_sent"]
		     << " bytes), received " << j["frames_received"] << " (" << j["bytes_received"] << " bytes), lost "
		     << j["frames_lost"] << ", sender queue drops " << j["host_tx_drops"] << "\n";
		all["background"].push_back(j);
	}
	text << "wall time " << std::setprecision(2) << wall_s_ << " s\n";
	if (json_out)
		*json_out << all.dump(1) << "\n";
	return ok;
}

} /* namespace ina::sim */
