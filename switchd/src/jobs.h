/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The job (tenant) table. A JobTable is immutable once published: the
 * control plane builds a new one for every registration and swaps the
 * pointer (see control.cpp, RCU with rte_rcu_qsbr), so the data path reads
 * it with no lock and no atomic read-modify-write.
 */
#ifndef INA_SWITCHD_JOBS_H
#define INA_SWITCHD_JOBS_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "ina/codec.h"
#include "flat_map.h"
#include "forwarding_table.h"

namespace switchd {

/* One copy of a parameter packet: toward `port`, either to the job's
 * multicast group (several workers behind the port) or rewritten to the
 * single worker's unicast addresses. */
struct McastTarget {
	uint16_t port;
	bool unicast;
	uint32_t ip;
	Mac mac;
};

/* A port index no packet arrives on: the host is not behind any port. */
constexpr uint16_t kNoPort = 0xFFFF;

struct Job {
	JobConfig cfg;
	/* The run (incarnation) this registration is: every data packet of
	 * the job must carry it in flags bits 8-15 (stale_epoch_drops). 0 for
	 * a config job until a PS registers it anew (docs/security.md). */
	uint8_t epoch = 0;
	/* False for a job of the config that no PS registered: a switch
	 * below the one its PS registers with (multi-level jobs) never
	 * learns the run's epoch, so it admits any; the epoch still keeps
	 * runs apart in the aggregator key. */
	bool epoch_checked = true;
	std::vector<uint32_t> worker_ip;   /* parallel to cfg.workers */
	std::vector<uint8_t> start_level;  /* first level with a bitmap bit */
	/* Anti-spoofing (docs/security.md, "Data plane"): the port each
	 * worker's frames arrive on (its neighbour entry: by IP, else by MAC;
	 * kNoPort if none) and its source MAC (ForwardingTable::mac_key). A
	 * worker behind another switch arrives on the port toward that switch
	 * with its own MAC, since switches rewrite only destination MACs. */
	std::vector<uint16_t> worker_port;
	std::vector<uint64_t> worker_mac;
	/* The same for the PS: the only source of parameter packets. */
	uint16_t ps_port = kNoPort;
	uint64_t ps_mac = 0;
	/* Fair share (docs/security.md): how many of lcore k's aggregators
	 * the job may hold, cfg.max_aggregators split over the lcores as the
	 * aggregators are (lcore_share()); ina::kNoShareLimit when it may
	 * hold the whole table. */
	std::vector<uint32_t> lcore_share;
	std::vector<McastTarget> mcast;    /* one entry per egress port */
	uint32_t group_ip = 0;             /* 239.18.hi.lo */
	Mac group_mac{};                   /* 01:00:5e:12:hi:lo */
	std::vector<std::string> warnings; /* workers with no route, for the log */

	FlatMap<int> worker_by_ip;          /* source address -> worker index */

	/* Worker index of a source address, -1 if not a worker of the job. */
	int worker(uint32_t ip) const
	{
		const int *w = worker_by_ip.find(ip);
		return w ? *w : -1;
	}
};

/* `aggregators` and `lcores`: the switch's table and how it is split
 * (for lcore_share); cfg.max_aggregators must be resolved (not 0). */
std::shared_ptr<const Job> build_job(const JobConfig &cfg, const ForwardingTable &fwd, uint32_t aggregators,
				     unsigned lcores, uint8_t epoch = 0, bool epoch_checked = true);

/* Lcore k of n owns the indices i % n == k: floor(aggregators / n) of
 * them, one more for k < aggregators % n. A limit is split the same way,
 * so the shares add up to it and a limit of the whole table is each
 * lcore's whole part. */
uint32_t lcore_share(uint32_t limit, unsigned lcores, unsigned k);

/* The job a decoded register (or unregister) request describes. Returns an
 * empty string and fills *out on success, else the reason it is invalid. */
std::string job_from_control(const ina::CtrlMessage &m, uint16_t job_id, JobConfig *out);

class JobTable {
public:
	JobTable() : by_id_(65536) {}
	const Job *find(uint16_t id) const { return by_id_[id].get(); }
	/* Copies for the next version. */
	std::unique_ptr<JobTable> with(std::shared_ptr<const Job> job) const;
	/* `purge`: this version must not see the job's aggregators of earlier
	 * versions (removed, or registered anew): the lcores free them. */
	std::unique_ptr<JobTable> without(uint16_t id) const;
	std::unique_ptr<JobTable> with(std::shared_ptr<const Job> job, bool purge) const;
	/* Bumped per job whenever its aggregators are to be freed; `purges`
	 * counts every bump, so that an lcore sees with one compare that it has
	 * something to free (lcore_loop.cpp). */
	uint32_t generation(uint16_t id) const { return gen_[id]; }
	const std::vector<uint32_t> &generations() const { return gen_; }
	uint64_t purges() const { return purges_; }
	size_t size() const { return count_; }
	std::vector<uint16_t> ids() const;

private:
	std::vector<std::shared_ptr<const Job>> by_id_;
	std::vector<uint32_t> gen_ = std::vector<uint32_t>(65536, 0);
	uint64_t purges_ = 0;
	size_t count_ = 0;
};

} /* namespace switchd */

#endif
