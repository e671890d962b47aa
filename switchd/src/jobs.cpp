/* SPDX-License-Identifier: BSD-3-Clause */
#include "jobs.h"

#include <map>

#include "ina/codec.h"

namespace switchd {

std::shared_ptr<const Job> build_job(const JobConfig &cfg, const ForwardingTable &fwd)
{
	auto job = std::make_shared<Job>();
	job->cfg = cfg;
	job->group_ip = ina::job_group(cfg.id);
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
		const NextHop *h = fwd.by_ip(w.ip);
		if (!h)
			h = fwd.by_mac(w.mac.data());
		if (!h) {
			job->warnings.push_back("worker " + ipv4_str(w.ip) +
						" is not a neighbour of any port: no parameter copy for it");
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

std::string parse_control(const uint8_t *ctrl, uint32_t len, uint16_t job_id, uint8_t *op,
			  JobConfig *out)
{
	if (len < sizeof(struct ina_ctrl_hdr))
		return "shorter than the control header";
	if (job_id == 0)
		return "job id 0 is reserved";
	struct ina_ctrl_hdr h;
	memcpy(&h, ctrl, sizeof(h));
	*op = h.op;
	if (h.op == INA_CTRL_UNREGISTER) {
		out->id = job_id;
		return "";
	}
	if (h.op != INA_CTRL_REGISTER)
		return "unknown op " + std::to_string(h.op);
	if (h.levels > INA_MAX_LEVELS)
		return "levels " + std::to_string(h.levels) + " above " + std::to_string(INA_MAX_LEVELS);
	if (h.n_workers == 0)
		return "no workers";
	if (len < sizeof(h) + h.n_workers * sizeof(struct ina_ctrl_worker))
		return "shorter than its " + std::to_string(h.n_workers) + " workers";
	JobConfig j;
	j.id = job_id;
	j.ps_ip = ina_load32(ctrl + offsetof(struct ina_ctrl_hdr, ps_ip));
	memcpy(j.ps_mac.data(), h.ps_mac, 6);
	j.levels = h.levels;
	for (unsigned l = 0; l < INA_MAX_LEVELS; l++) {
		j.fan_in[l] = l < h.levels ? h.fan_in[l] : 0;
		if (l < h.levels && (h.fan_in[l] == 0 || h.fan_in[l] > INA_BITMAP_BITS))
			return "fan_in " + std::to_string(h.fan_in[l]) + " at level " + std::to_string(l);
	}
	for (unsigned i = 0; i < h.n_workers; i++) {
		const uint8_t *p = ctrl + sizeof(h) + i * sizeof(struct ina_ctrl_worker);
		JobWorker w;
		w.ip = ina_load32(p + offsetof(struct ina_ctrl_worker, ip));
		memcpy(w.mac.data(), p + offsetof(struct ina_ctrl_worker, mac), 6);
		for (unsigned l = 0; l < INA_MAX_LEVELS; l++) {
			uint8_t b = p[offsetof(struct ina_ctrl_worker, bit) + l];
			w.bit[l] = l < h.levels ? b : 0xFF;
			if (l < h.levels && b != 0xFF && b >= j.fan_in[l])
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

std::unique_ptr<JobTable> JobTable::without(uint16_t id) const
{
	auto t = std::make_unique<JobTable>(*this);
	if (t->by_id_[id])
		t->count_--;
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
