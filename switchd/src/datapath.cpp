/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The run-to-completion lcore loop: receive, hand INA packets to the lcore
 * that owns their aggregator, admit, run ina::process(), forward / multicast,
 * drain the egress queues. Per packet there is no allocation (except the
 * mbufs of multicast copies, from mempool caches), no lock, no log and no
 * system call; the only shared state is read-only (forwarding table, the
 * current job table under RCU).
 */
#include <ctime>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_prefetch.h>

#include "app.h"
#include "ina/codec.h"

namespace switchd {

namespace {

constexpr uint32_t kEth = sizeof(struct ina_eth_hdr);
constexpr uint32_t kIpDst = kEth + 16;
constexpr uint32_t kIpSrc = kEth + 12;
constexpr uint16_t kMaxBurst = 256;
/* Loop rounds per reading of the thread's CPU clock (a system call of a
 * few hundred ns) while the lcore stays busy. */
constexpr unsigned kBusyBatch = 64;

uint64_t thread_cpu_ns()
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

/*
 * CPU time this thread spends in rounds that carried packets, the cost per
 * packet of the data path: idle polls and time the OS gave to another
 * thread do not count. The thread's CPU clock is read at the start of a
 * round that may open a batch (after an idle round) and at the end of a
 * batch of up to kBusyBatch consecutive busy rounds, so that a loaded lcore
 * pays one clock reading per batch.
 */
class BusyClock {
public:
	void round_start()
	{
		if (!open_)
			start_ = thread_cpu_ns();
	}
	void round_end(bool busy, uint64_t *busy_ns)
	{
		if (!open_ && !busy)
			return;
		open_ = true;
		if (busy && ++rounds_ < kBusyBatch)
			return;
		const uint64_t t = thread_cpu_ns();
		*busy_ns += t - start_;
		start_ = t;
		rounds_ = 0;
		open_ = busy;
	}

private:
	uint64_t start_ = 0;
	unsigned rounds_ = 0;
	bool open_ = false;
};

void fix_ip_checksum(uint8_t *frame)
{
	auto *h = reinterpret_cast<struct rte_ipv4_hdr *>(frame + kEth);
	h->hdr_checksum = 0;
	h->hdr_checksum = rte_ipv4_cksum(h);
}

class Worker {
public:
	Worker(App &app, Lcore &lc) : app_(app), lc_(lc), n_(static_cast<unsigned>(app.lcores.size()))
	{
		out_.resize(n_);
		for (auto &o : out_)
			o.reserve(kMaxBurst);
	}

	void run();

private:
	void handle(rte_mbuf *m, uint64_t now);
	void handle_ina(rte_mbuf *m, uint8_t *frame, uint32_t len, const ina::InaView &v,
			uint16_t in_port, uint64_t now);
	void forward_ipv4(rte_mbuf *m, uint8_t *frame, uint16_t in_port);
	void forward_l2(rte_mbuf *m, uint8_t *frame, uint16_t in_port);
	void handle_arp(rte_mbuf *m, uint8_t *frame, uint32_t len, uint16_t in_port);
	void multicast(rte_mbuf *m, uint8_t *frame, uint32_t len, const Job &job, uint16_t in_port);
	void flood(rte_mbuf *m, uint16_t in_port);
	bool admitted(const uint8_t *frame, const ina::InaView &v, const Job &job);
	void enqueue(uint16_t port, rte_mbuf *m)
	{
		int marked;
		uint16_t dropped_job = 0;
		if (!lc_.egress[port].enqueue(m, &lc_.rng, &marked, &dropped_job)) {
			if (dropped_job)
				lc_.job_ctr[dropped_job][JobCtr::egress_drops]++;
		} else if (marked > 0) {
			lc_.job_ctr[marked][JobCtr::ecn_marks]++;
		}
	}
	void drop(rte_mbuf *m, LcoreCtr why)
	{
		lc_.ctr[why]++;
		rte_pktmbuf_free(m);
	}

	App &app_;
	Lcore &lc_;
	unsigned n_;
	const JobTable *jobs_ = nullptr;
	std::vector<std::vector<rte_mbuf *>> out_; /* hand-off buffers per lcore */
};

void Worker::run()
{
	rte_mbuf *pkts[kMaxBurst];
	const uint16_t burst = app_.cfg.burst;
	rte_rcu_qsbr_thread_register(app_.rcu, lc_.index);
	rte_rcu_qsbr_thread_online(app_.rcu, lc_.index);

	const uint32_t idle_sleep = app_.cfg.idle_sleep_us;
	BusyClock clock;
	while (!app_.quit) {
		clock.round_start();
		const uint64_t now = rte_rdtsc();
		jobs_ = app_.jobs.load(std::memory_order_acquire);
		uint32_t work = 0, received = 0;

		for (const RxQueueRef &rx : lc_.rx) {
			if (!app_.port_up[rx.port].load(std::memory_order_relaxed))
				continue;
			const uint16_t nb = rte_eth_rx_burst(rx.port_id, rx.queue, pkts, burst);
			if (!nb)
				continue;
			work += nb;
			received += nb;
			PortCounters &pc = lc_.port_ctr[rx.port];
			pc[PortCtr::rx_packets] += nb;
			for (uint16_t i = 0; i < nb; i++) {
				rte_mbuf *m = pkts[i];
				pc[PortCtr::rx_bytes] += m->pkt_len;
				if (i + 1 < nb)
					rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
				if (n_ > 1) {
					ina::InaView v;
					if (ina::peek(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &v) &&
					    v.type == INA_TYPE_DATA) {
						const unsigned owner = v.agg_index % n_;
						if (owner != lc_.index) {
							out_[owner].push_back(m);
							continue;
						}
					}
				}
				handle(m, now);
			}
			if (n_ > 1) {
				for (unsigned j = 0; j < n_; j++) {
					auto &o = out_[j];
					if (o.empty())
						continue;
					const unsigned done = rte_ring_sp_enqueue_burst(
						lc_.handoff_out[j], reinterpret_cast<void *const *>(o.data()),
						static_cast<unsigned>(o.size()), nullptr);
					lc_.ctr[LcoreCtr::handoff_out] += done;
					for (size_t k = done; k < o.size(); k++)
						drop(o[k], LcoreCtr::handoff_drops);
					o.clear();
				}
			}
		}
		for (unsigned j = 0; j < n_; j++) {
			rte_ring *r = lc_.handoff_in[j];
			if (!r)
				continue;
			const unsigned nb = rte_ring_sc_dequeue_burst(r, reinterpret_cast<void **>(pkts),
								      burst, nullptr);
			lc_.ctr[LcoreCtr::handoff_in] += nb;
			work += nb;
			received += nb;
			for (unsigned i = 0; i < nb; i++)
				handle(pkts[i], now);
		}
		for (size_t p = 0; p < lc_.egress.size(); p++) {
			EgressQueue &e = lc_.egress[p];
			if (app_.port_up[p].load(std::memory_order_relaxed))
				e.drain(now); /* down: the queue fills, then tail-drops (counted) */
			work += e.depth();
		}
		rte_rcu_qsbr_quiescent(app_.rcu, lc_.index);
		clock.round_end(received != 0, &lc_.ctr[LcoreCtr::busy_ns]);
		/* Optional back-off for machines shared with other work (labs,
		 * CI): only when a whole loop found nothing to do. */
		if (idle_sleep && !work)
			rte_delay_us_sleep(idle_sleep);
	}
	rte_rcu_qsbr_thread_offline(app_.rcu, lc_.index);
	rte_rcu_qsbr_thread_unregister(app_.rcu, lc_.index);
}

void Worker::handle(rte_mbuf *m, uint64_t now)
{
	lc_.ctr[LcoreCtr::packets]++;
	const int16_t in = app_.port_index[m->port];
	const uint16_t in_port = in < 0 ? 0 : static_cast<uint16_t>(in);
	if (m->nb_segs > 1)
		return drop(m, LcoreCtr::multiseg_drops);
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	const uint32_t len = m->data_len;
	if (len < kEth)
		return drop(m, LcoreCtr::no_route);
	const uint16_t ether_type = ina_load16(frame + 12);
	if (ether_type == RTE_ETHER_TYPE_ARP)
		return handle_arp(m, frame, len, in_port);
	if (ether_type != RTE_ETHER_TYPE_IPV4 || len < kEth + sizeof(struct ina_ipv4_hdr))
		return forward_l2(m, frame, in_port);

	ina::InaView v;
	if (ina::peek(frame, len, &v))
		return handle_ina(m, frame, len, v, in_port, now);
	if (ina_load32(frame + kIpDst) == app_.cfg.ip)
		return drop(m, LcoreCtr::to_switch_drops);
	forward_ipv4(m, frame, in_port);
}

bool Worker::admitted(const uint8_t *frame, const ina::InaView &v, const Job &job)
{
	const uint32_t src = ina_load32(frame + kIpSrc);
	/* The PS talks to workers through the switch too (the overflow
	 * float request): it is no worker, but it is the job's own. */
	if (src == job.cfg.ps_ip)
		return true;
	const int w = job.worker(src);
	if (w < 0)
		return false;
	ina::InaHeader h;
	ina::decode(frame + v.ina_offset, &h);
	const uint8_t start = job.start_level[w];
	if (h.level >= job.cfg.levels || h.level > start)
		return true; /* a lower switch's result, or past the in-network levels */
	if (h.level < start)
		return false; /* claims a level the worker does not take part in */
	return h.bitmap[h.level] == (1u << job.cfg.workers[w].bit[h.level]);
}

void Worker::handle_ina(rte_mbuf *m, uint8_t *frame, uint32_t len, const ina::InaView &v,
			uint16_t in_port, uint64_t now)
{
	if (v.type == INA_TYPE_CONTROL) {
		if (ina_load32(frame + kIpDst) != app_.cfg.ip)
			return forward_ipv4(m, frame, in_port);
		if (rte_ring_mp_enqueue(app_.control_ring, m) != 0)
			return drop(m, LcoreCtr::control_drops);
		lc_.ctr[LcoreCtr::control_received]++;
		return;
	}
	const Job *job = jobs_->find(v.job);
	if (!job) {
		lc_.ctr[LcoreCtr::unregistered_job]++;
		lc_.job_ctr[v.job][JobCtr::unregistered]++;
		return forward_ipv4(m, frame, in_port);
	}
	JobCounters &jc = lc_.job_ctr[v.job];
	if (!(v.flags & INA_F_ACK)) {
		if (!admitted(frame, v, *job)) {
			jc[JobCtr::admission_drops]++;
			return drop(m, LcoreCtr::admission_drops);
		}
		/* Congestion on the way to the PS: tell the aggregator before
		 * it sees the packet, so the mark survives aggregation. */
		const NextHop *h = app_.fwd->by_ip(ina_load32(frame + kIpDst));
		if (h && lc_.egress[h->port].above_threshold() && !(v.flags & INA_F_ECN)) {
			if (ecn_mark(frame, len) >= 0) {
				lc_.ctr[LcoreCtr::ecn_premarks]++;
				lc_.port_ctr[h->port][PortCtr::ecn_marks]++;
				jc[JobCtr::ecn_marks]++;
			}
		}
	}
	const ina::Result r = ina::process(*lc_.table, lc_.pipeline, frame, len, now);
	switch (r.reason) {
	case ina::Counter::claimed:
	case ina::Counter::aggregated:
		jc[JobCtr::aggregated]++;
		break;
	case ina::Counter::completed:
		jc[JobCtr::aggregated]++;
		jc[JobCtr::completed]++;
		break;
	case ina::Counter::collision:
		jc[JobCtr::collisions]++;
		break;
	case ina::Counter::resend_merged:
	case ina::Counter::resend_flushed:
	case ina::Counter::resend_forwarded:
		jc[JobCtr::resends]++;
		break;
	case ina::Counter::gc_freed:
		jc[JobCtr::gc_frees]++;
		break;
	default:
		break;
	}
	switch (r.verdict) {
	case ina::Verdict::kDrop:
		rte_pktmbuf_free(m);
		return;
	case ina::Verdict::kDownstream:
		jc[JobCtr::sent_to_ps]++;
		return forward_ipv4(m, frame, in_port);
	case ina::Verdict::kPass:
		return forward_ipv4(m, frame, in_port);
	case ina::Verdict::kMulticast:
		jc[JobCtr::multicast]++;
		return multicast(m, frame, len, *job, in_port);
	case ina::Verdict::kControl:
		if (rte_ring_mp_enqueue(app_.control_ring, m) != 0)
			return drop(m, LcoreCtr::control_drops);
		lc_.ctr[LcoreCtr::control_received]++;
		return;
	}
	rte_pktmbuf_free(m);
}

/* One copy per egress port: a fresh header mbuf (Ethernet..INA header,
 * addressed to the group or to the port's single worker) chained to an
 * indirect mbuf that shares the original payload. Never back out of the
 * port it came in on (split horizon): with several switches registered for
 * the same workers, a parameter packet would otherwise loop between them. */
void Worker::multicast(rte_mbuf *m, uint8_t *frame, uint32_t len, const Job &job, uint16_t in_port)
{
	const uint32_t hdr_len = len < INA_PAYLOAD_OFFSET ? len : INA_PAYLOAD_OFFSET;
	for (const McastTarget &t : job.mcast) {
		if (t.port == in_port) {
			lc_.ctr[LcoreCtr::multicast_split_horizon]++;
			continue;
		}
		rte_mbuf *h = rte_pktmbuf_alloc(app_.hdr_pool);
		if (!h) {
			lc_.ctr[LcoreCtr::multicast_alloc_drops]++;
			continue;
		}
		uint8_t *d = reinterpret_cast<uint8_t *>(rte_pktmbuf_append(h, hdr_len));
		memcpy(d, frame, hdr_len);
		memcpy(d, t.mac.data(), 6);
		if (ina_load32(d + kIpDst) != t.ip) {
			ina_store32(d + kIpDst, t.ip);
			fix_ip_checksum(d);
		}
		if (len > hdr_len && !app_.port_multiseg[t.port]) {
			/* This PMD cannot send chains: a flat copy. */
			rte_mbuf *f = rte_pktmbuf_alloc(app_.pool);
			char *fd = f ? rte_pktmbuf_append(f, static_cast<uint16_t>(len)) : nullptr;
			if (!fd) {
				if (f)
					rte_pktmbuf_free(f);
				rte_pktmbuf_free(h);
				lc_.ctr[LcoreCtr::multicast_alloc_drops]++;
				continue;
			}
			memcpy(fd, d, hdr_len);
			memcpy(fd + hdr_len, frame + hdr_len, len - hdr_len);
			rte_pktmbuf_free(h);
			h = f;
			lc_.ctr[LcoreCtr::multicast_flat_copies]++;
		} else if (len > hdr_len) {
			rte_mbuf *p = rte_pktmbuf_clone(m, app_.ind_pool);
			if (!p) {
				rte_pktmbuf_free(h);
				lc_.ctr[LcoreCtr::multicast_alloc_drops]++;
				continue;
			}
			rte_pktmbuf_adj(p, static_cast<uint16_t>(hdr_len));
			if (rte_pktmbuf_chain(h, p) != 0) {
				rte_pktmbuf_free(h);
				rte_pktmbuf_free(p);
				lc_.ctr[LcoreCtr::multicast_alloc_drops]++;
				continue;
			}
		}
		lc_.ctr[LcoreCtr::multicast_copies]++;
		enqueue(t.port, h);
	}
	rte_pktmbuf_free(m);
}

void Worker::flood(rte_mbuf *m, uint16_t in_port)
{
	const uint16_t n = static_cast<uint16_t>(app_.port_id.size());
	if (n < 2) {
		rte_pktmbuf_free(m);
		return;
	}
	lc_.ctr[LcoreCtr::flooded]++;
	/* The same mbuf goes out n-1 ports: one reference each. */
	rte_mbuf_refcnt_update(m, static_cast<int16_t>(n - 2));
	for (uint16_t p = 0; p < n; p++)
		if (p != in_port)
			enqueue(p, m);
}

void Worker::forward_ipv4(rte_mbuf *m, uint8_t *frame, uint16_t in_port)
{
	const uint32_t dst = ina_load32(frame + kIpDst);
	if ((dst >> 28) == 0xE || dst == 0xFFFFFFFFu)
		return flood(m, in_port);
	const NextHop *h = app_.fwd->by_ip(dst);
	if (!h)
		return forward_l2(m, frame, in_port);
	memcpy(frame, h->mac.data(), 6);
	enqueue(h->port, m);
}

void Worker::forward_l2(rte_mbuf *m, uint8_t *frame, uint16_t in_port)
{
	if (frame[0] & 1)
		return flood(m, in_port); /* broadcast or multicast MAC */
	const NextHop *h = app_.fwd->by_mac(frame);
	if (!h)
		return drop(m, LcoreCtr::no_route);
	enqueue(h->port, m);
}

void Worker::handle_arp(rte_mbuf *m, uint8_t *frame, uint32_t len, uint16_t in_port)
{
	if (len < kEth + sizeof(struct rte_arp_hdr))
		return drop(m, LcoreCtr::no_route);
	auto *arp = reinterpret_cast<struct rte_arp_hdr *>(frame + kEth);
	const uint32_t target = rte_be_to_cpu_32(arp->arp_data.arp_tip);
	if (target == app_.cfg.ip) {
		if (arp->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST))
			return drop(m, LcoreCtr::to_switch_drops);
		const Mac &mine = app_.port_mac[in_port];
		auto *eth = reinterpret_cast<struct rte_ether_hdr *>(frame);
		rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
		memcpy(eth->src_addr.addr_bytes, mine.data(), 6);
		arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
		arp->arp_data.arp_tha = arp->arp_data.arp_sha;
		arp->arp_data.arp_tip = arp->arp_data.arp_sip;
		memcpy(arp->arp_data.arp_sha.addr_bytes, mine.data(), 6);
		arp->arp_data.arp_sip = rte_cpu_to_be_32(app_.cfg.ip);
		lc_.ctr[LcoreCtr::arp_replies]++;
		return enqueue(in_port, m);
	}
	const NextHop *h = app_.fwd->by_ip(target);
	if (h)
		return enqueue(h->port, m);
	forward_l2(m, frame, in_port);
}

} /* namespace */

int lcore_main(void *arg)
{
	Lcore *lc = static_cast<Lcore *>(arg);
	Worker w(*g_app, *lc);
	w.run();
	return 0;
}

} /* namespace switchd */
