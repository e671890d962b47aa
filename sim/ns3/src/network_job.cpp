/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A job's hosts: the PS's job configuration and each worker's, from the
 * plan's levels, fan-in and bits, as scripts/lablib/render.py writes them
 * for ina-ps and ina-worker in the lab.
 */
#include <cstring>

#include "ina/worker.h"
#include "network.h"

namespace ina::sim {

namespace {

PsJobConfig ps_job(const PlanJob &j, const Plan &plan, uint32_t elements, uint32_t aggregators)
{
	PsJobConfig c;
	c.job = j.id;
	c.elements = static_cast<uint16_t>(elements);
	c.aggregators = aggregators;
	c.levels = j.levels;
	memcpy(c.fan_in, j.fan_in, sizeof(c.fan_in));
	for (const PlanWorker &w : j.workers) {
		const PlanHost *h = plan.host(w.host);
		PsWorker pw;
		pw.ip = h->ip;
		memcpy(pw.mac, h->mac, 6);
		memcpy(pw.bit, w.bit, sizeof(pw.bit));
		c.workers.push_back(pw);
	}
	/* Parameter packets go to the job's group through the PS's switch,
	 * which replicates them. The switch is not registered with: the
	 * simulated switches aggregate every job (no control plane). */
	c.multicast_ack = true;
	c.has_switch = true;
	const PlanSwitch *sw = plan.sw(plan.host(j.ps)->sw);
	c.switch_ip = sw->ip;
	memcpy(c.switch_mac, sw->mac, 6);
	return c;
}

bool worker_config(const PlanJob &j, const PlanWorker &w, const Plan &plan, const SimOptions &opt,
		   uint32_t elements, uint32_t aggregators, WorkerConfig *c, std::string *error)
{
	const PlanHost *ps = plan.host(j.ps);
	c->job_id = j.id;
	c->rank = w.rank;
	c->levels = j.levels;
	c->start_level = w.start_level;
	memcpy(c->bit, w.bit, sizeof(c->bit));
	memcpy(c->fan_in, j.fan_in, sizeof(c->fan_in));
	c->agg_node = w.agg_node ? w.agg_node : INA_AGG_NODE_ANY;
	PsAddress pa;
	pa.ip = ps->ip;
	memcpy(pa.mac, ps->mac, 6);
	c->ps = {pa};
	c->elements_per_packet = elements;
	c->aggregators = aggregators;
	c->scale = kExactScale;
	c->threads = 1;
	std::vector<std::pair<std::string, std::string>> keys;
	if (!j.cc.empty())
		keys.emplace_back("cc", j.cc);
	if (j.window)
		keys.emplace_back("initial_window", std::to_string(j.window));
	keys.insert(keys.end(), opt.worker_keys.begin(), opt.worker_keys.end());
	keys.insert(keys.end(), j.worker_keys.begin(), j.worker_keys.end());
	for (const auto &kv : keys) {
		std::string err;
		if (!set_config_key(c, kv.first, kv.second, &err)) {
			*error = "worker key " + kv.first + ": " + err;
			return false;
		}
	}
	return true;
}

} /* namespace */

bool Network::build_job(const PlanJob &j, std::string *error)
{
	const std::string where = "job " + std::to_string(j.id) + ": ";
	if (j.mode == "goat") {
		*error = where + "mode goat is not modelled (the simulator installs no GOAT plan)";
		return false;
	}
	const PlanHost *ps_host = plan_.host(j.ps);
	if (!ps_host || !host_devs_.count(j.ps)) {
		*error = where + "PS host " + j.ps + " is not in the plan";
		return false;
	}
	const PlanSwitch *first = plan_.sw(plan_.host(j.workers.at(0).host)->sw);
	const uint32_t aggregators = first ? first->aggregators : 4096;
	JobHosts jh;
	jh.job = &j;
	auto &ps = ps_[j.ps];
	if (!ps) {
		Endpoint self;
		memcpy(self.mac, ps_host->mac, 6);
		self.ip = ps_host->ip;
		self.port = INA_UDP_PORT;
		ps = std::make_unique<PsApp>(self, host_devs_[j.ps]);
		host_ports_[j.ps]->set_app([p = ps.get()](const uint8_t *f, uint32_t len) { p->receive(f, len); });
		ps->start([this] { return !all_done(); });
	}
	if (!ps->ps().add_job(ps_job(j, plan_, elements_, aggregators), error)) {
		*error = where + "PS: " + *error;
		return false;
	}
	jh.ps = ps.get();
	auto expected = std::make_shared<ExpectedSums>(static_cast<uint32_t>(j.workers.size()), j.tensor);
	for (const PlanWorker &w : j.workers) {
		const PlanHost *h = plan_.host(w.host);
		WorkerConfig c;
		if (!h || !host_devs_.count(w.host)) {
			*error = where + "worker host " + w.host + " is not in the plan";
			return false;
		}
		if (!worker_config(j, w, plan_, opt_, elements_, aggregators, &c, error))
			return false;
		auto tx = std::make_unique<SimTransport>(host_devs_[w.host], h->ip, h->mac, 9000);
		SimTransport *txp = tx.get();
		std::unique_ptr<SteppedWorker> sw = SteppedWorker::open(c, std::move(tx), error);
		if (!sw) {
			*error = where + w.host + ": " + *error;
			return false;
		}
		workers_.push_back(
			std::make_unique<WorkerApp>(std::move(sw), txp, w.rank, expected, j.tensor, j.iterations));
		WorkerApp *app = workers_.back().get();
		host_ports_[w.host]->set_app([app](const uint8_t *f, uint32_t len) { app->receive(f, len); });
		app->set_timer_jitter(opt_.timer_jitter_ns);
		app->set_compute_ns(w.compute_us * 1000);
		jh.workers.push_back(workers_.back().get());
	}
	jobs_.push_back(jh);
	return true;
}

} /* namespace ina::sim */
