/* SPDX-License-Identifier: BSD-3-Clause */
#include "jobs.h"

#include <cstring>
#include <map>

#include "ina/codec.h"
#include "ina/pipeline.h"

namespace switchd {

uint32_t lcore_share(uint32_t limit, unsigned lcores, unsigned k)
{
	return limit / lcores + (k < limit % lcores ? 1 : 0);
}

std::shared_ptr<const Job> build_job(const JobConfig &cfg, const ForwardingTable &fwd, uint32_t aggregators,
				     unsigned lcores, uint8_t epoch, bool epoch_checked)
{
	auto job = std::make_shared<Job>();
	job->cfg = cfg;
	for (unsigned k = 0; k < lcores; k++)
		job->lcore_share.push_back(cfg.max_aggregators >= aggregators
						   ? ina::kNoShareLimit
						   : lcore_share(cfg.max_aggregators, lcores, k));
	job->epoch = epoch;
	job->epoch_checked = epoch_checked;
	job->group_ip = ina::job_group(cfg.id);
	job->ps_mac = ForwardingTable::mac_key(cfg.ps_mac.data());
	const NextHop *ps = fwd.by_ip(cfg.ps_ip);
	if (!ps)
		ps = fwd.by_mac(cfg.ps_mac.data());
	job->ps_port = ps ? ps->port : kNoPort;
	if (!ps)
		job->warnings.push_back("PS " + ipv4_str(cfg.ps_ip) +
					" is not a neighbour of any port: its parameter packets are dropped "
					"(forged_result_drops)");
	ina::group_mac(job->group_ip, job->group_mac.data());
	/* Workers grouped by the port that reaches them. */
	std::map<uint16_t, std::vector<const JobWorker *>> by_port;
	for (const JobWorker &w : cfg.workers) {
		job->worker_by_ip.insert(w.ip, static_cast<int>(job->worker_ip.size()));
		job->worker_ip.push_back(w.ip);
		uint8_t start = 0;
		while (start < cfg.levels && w.bit[start] == 0xFF)
			start++;
		job->start_level.push_back(start);
		job->worker_mac.push_back(ForwardingTable::mac_key(w.mac.data()));
		const NextHop *h = fwd.by_ip(w.ip);
		if (!h)
			h = fwd.by_mac(w.mac.data());
		job->worker_port.push_back(h ? h->port : kNoPort);
		if (!h) {
			job->warnings.push_back("worker " + ipv4_str(w.ip) +
						" is not a neighbour of any port: no parameter copy for it, "
						"and its gradients are dropped (spoof_port_drops)");
			continue;
		}
		by_port[h->port].push_back(&w);
	}
	for (auto &[port, ws] : by_port) {
		McastTarget t{port, ws.size() == 1, job->group_ip, job->group_mac};
		if (t.unicast) {
			t.ip = ws[0]->ip;
			const NextHop *h = fwd.by_ip(ws[0]->ip);
			t.mac = h ? h->mac : ws[0]->mac;
		}
		job->mcast.push_back(t);
	}
	return job;
}

std::string job_from_control(const ina::CtrlMessage &m, uint16_t job_id, JobConfig *out)
{
	if (job_id == 0)
		return "job id 0 is reserved";
	JobConfig j;
	j.id = job_id;
	j.ps_ip = m.ps_ip;
	memcpy(j.ps_mac.data(), m.ps_mac, 6);
	if (m.op == INA_CTRL_UNREGISTER) {
		*out = j;
		return "";
	}
	if (m.op != INA_CTRL_REGISTER)
		return "op " + std::to_string(m.op) + " is not a request";
	if (m.levels > INA_MAX_LEVELS)
		return "levels " + std::to_string(m.levels) + " above " + std::to_string(INA_MAX_LEVELS);
	if (m.n_workers == 0)
		return "no workers";
	j.levels = m.levels;
	j.refresh_ms = m.refresh_ms;
	for (unsigned l = 0; l < INA_MAX_LEVELS; l++) {
		j.fan_in[l] = l < m.levels ? m.fan_in[l] : 0;
		if (l < m.levels && (m.fan_in[l] == 0 || m.fan_in[l] > INA_BITMAP_BITS))
			return "fan_in " + std::to_string(m.fan_in[l]) + " at level " + std::to_string(l);
	}
	for (unsigned i = 0; i < m.n_workers; i++) {
		const ina::CtrlWorker &cw = m.workers[i];
		JobWorker w;
		w.ip = cw.ip;
		memcpy(w.mac.data(), cw.mac, 6);
		for (unsigned l = 0; l < INA_MAX_LEVELS; l++) {
			const uint8_t b = cw.bit[l];
			w.bit[l] = l < m.levels ? b : 0xFF;
			if (l < m.levels && b != 0xFF && b >= j.fan_in[l])
				return "worker " + ipv4_str(w.ip) + " bit " + std::to_string(b) +
				       " not below fan_in at level " + std::to_string(l);
		}
		for (const JobWorker &o : j.workers)
			if (o.ip == w.ip)
				return "worker " + ipv4_str(w.ip) + " listed twice";
		j.workers.push_back(w);
	}
	*out = j;
	return "";
}

std::unique_ptr<JobTable> JobTable::with(std::shared_ptr<const Job> job) const
{
	auto t = std::make_unique<JobTable>(*this);
	if (!t->by_id_[job->cfg.id])
		t->count_++;
	t->by_id_[job->cfg.id] = std::move(job);
	return t;
}

std::unique_ptr<JobTable> JobTable::with(std::shared_ptr<const Job> job, bool purge) const
{
	const uint16_t id = job->cfg.id;
	auto t = with(std::move(job));
	if (purge) {
		t->gen_[id]++;
		t->purges_++;
	}
	return t;
}

std::unique_ptr<JobTable> JobTable::without(uint16_t id) const
{
	auto t = std::make_unique<JobTable>(*this);
	if (t->by_id_[id]) {
		t->count_--;
		t->gen_[id]++;
		t->purges_++;
	}
	t->by_id_[id].reset();
	return t;
}

std::vector<uint16_t> JobTable::ids() const
{
	std::vector<uint16_t> out;
	for (size_t i = 0; i < by_id_.size(); i++)
		if (by_id_[i])
			out.push_back(static_cast<uint16_t>(i));
	return out;
}

} /* namespace switchd */
