/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-gen: a DPDK traffic generator and sink that emulates W workers x J
 * jobs (and their PS) in front of an INA switch. Usable on its own against
 * any switch:
 *
 *   ina-gen [EAL args, -l CPUS] -- --workers 4 --jobs 2 --aggregators 4096 --queues 2 [--json]
 *
 * Port 0 faces the workers' side: gradients leave here, parameter copies
 * come back. Port 1 faces the PS: results come back and the emulated PS
 * answers each complete one with its ACK (parameter packet); each job
 * keeps at most `window` fragments in flight (closed loop). With
 * --open-loop the ACK of fragment s-window follows fragment s whatever
 * happened (for devices that do not aggregate). Everything received on
 * either port is counted and freed (the sink).
 *
 * Queues. Each port has --queues RX/TX queue pairs; queue k is driven by one
 * generator context that owns the aggregator indices i with i % queues == k
 * and sends every packet of those indices (gradients and ACKs) on TX queue
 * k. Against a switch whose data-path lcore k owns the same indices and
 * polls queue k (memif pairs queue k with the peer's queue k), every packet
 * lands on its owner without a hand-off: the sender steers, as a NIC's
 * rte_flow rule on the UDP source port would. The contexts are spread over
 * the EAL lcores (-l), so one lcore may drive several queues.
 *
 * Addresses (configure the switch's neighbours and jobs accordingly):
 * worker w of job j (j = 0..J-1, job id j+1) is 10.1.j.(w+1), MAC
 * 02:00:00:jj:ww:01, bitmap bit w, fan-in W; the PS is 10.1.255.100, MAC
 * 02:00:00:ff:00:64. Fragment s of job j uses aggregator index
 * j * N/J + s % (N/J) (no collisions while --window < N/J) and UDP source
 * port ina::steering_src_port(index). Every header is written by the
 * protocol's codec (ina/codec.h).
 *
 * Frames are written into a fixed set of mbufs per queue that are reused
 * once their reference count says the PMD is done with them (memif copies
 * at TX).
 */
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "busy_clock.h"
#include "ina/cli.h"
#include "ina/codec.h"

namespace {

/* Set by the signal handler (a lock-free atomic store is async-signal-safe),
 * read by every lcore. */
std::atomic<bool> g_quit{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler stores to g_quit");
void on_signal(int) { g_quit.store(true, std::memory_order_relaxed); }
bool quitting() { return g_quit.load(std::memory_order_relaxed); }

constexpr uint16_t kMaxBurst = 64;
constexpr unsigned kMaxQueues = 16;
constexpr unsigned kFramesPerRing = 1024; /* per port and queue */
const uint8_t kPsMac[6] = {0x02, 0, 0, 0xff, 0, 0x64};
constexpr uint32_t kPsIp = (10u << 24) | (1u << 16) | (255u << 8) | 100;

struct Options {
	unsigned workers = 4;
	unsigned jobs = 1;
	unsigned elements = INA_DEFAULT_ELEMENTS;
	uint32_t aggregators = 4096;
	unsigned window = 256;
	double duration = 5.0;
	double warmup = 1.0;
	bool acks = true;
	bool open_loop = false;
	bool json = false;
	bool forward = false;
	bool hold = false;
	std::string label = "gen";
	unsigned queues = 1;
	uint16_t burst = 32;
	unsigned idle_sleep_us = 0; /* --forward: sleep after a round with nothing */
	unsigned one_in = 1;        /* --forward: of port 0's packets, pass one in this many */
};

/* A reusable set of frames for one port and queue. */
struct MbufCycle {
	std::vector<rte_mbuf *> m;
	size_t next = 0;
	rte_mbuf *take()
	{
		rte_mbuf *x = m[next];
		if (rte_mbuf_refcnt_read(x) != 1)
			return nullptr; /* the PMD still holds it */
		next = (next + 1) % m.size();
		return x;
	}
};

/* What one queue's context counted; `m_*` are the values when measuring began. */
struct QueueStats {
	uint64_t tx[2] = {0, 0}, rx[2] = {0, 0};
	uint64_t m_tx[2] = {0, 0}, m_rx[2] = {0, 0};
	uint64_t busy = 0, stalls = 0, foreign = 0;
	/* Over the whole run, for the sanity checks: every gradient sent, every
	 * complete result, those whose values are not the exact sum, and the
	 * parameter copies that came back on the workers' side. */
	uint64_t gradients = 0, acks = 0, results = 0, results_wrong = 0;
	bool measuring = false;
};

/* Shared by all contexts: read-only once the lcores start. */
struct Run {
	Options o;
	uint32_t per_job = 0;   /* aggregators per job */
	unsigned window_q = 0;  /* fragments in flight per job and queue */
	uint64_t hz = 0, t_measure = 0, t_end = 0;
	uint32_t frame_len = 0;
};

/*
 * One generator context: queue k of both ports, the fragments s of every
 * job with s % queues == k (so that index % queues == k too: per_job and
 * j * per_job are multiples of queues).
 */
class QueueGen {
public:
	QueueGen(const Run &run, uint16_t queue, rte_mempool *pool) : r_(run), o_(run.o), q_(queue)
	{
		for (int p = 0; p < 2; p++) {
			ring_[p].m.resize(kFramesPerRing);
			for (auto &m : ring_[p].m) {
				m = rte_pktmbuf_alloc(pool);
				if (!m)
					throw std::runtime_error("mbuf pool too small");
				rte_pktmbuf_append(m, static_cast<uint16_t>(run.frame_len));
				for (unsigned i = 0; i < o_.elements; i++)
					ina_store32(rte_pktmbuf_mtod(m, uint8_t *) + INA_PAYLOAD_OFFSET + 4 * i, 1);
			}
		}
		seq_.assign(o_.jobs, q_);
		done_.assign(o_.jobs, 0);
		owed_.resize(1u << 14);
	}
	~QueueGen()
	{
		for (int p = 0; p < 2; p++) {
			for (unsigned k = 0; k < nb_[p]; k++)
				rte_pktmbuf_free(burst_[p][k]);
			for (rte_mbuf *m : ring_[p].m)
				rte_pktmbuf_free(m);
		}
	}
	/* One round: fill, send, receive. False once the run is over. */
	bool poll(uint64_t now);
	const QueueStats &stats() const { return st_; }

private:
	uint64_t in_flight(unsigned j) const { return (seq_[j] - q_) / o_.queues - done_[j]; }
	bool make_ack(unsigned j, uint32_t s);
	bool make_gradient();
	void fill();
	void send();
	void receive(uint64_t now);
	bool exact_sum(const ina::InaFrame &f) const;

	const Run &r_;
	const Options &o_;
	const uint16_t q_;
	MbufCycle ring_[2];
	rte_mbuf *burst_[2][kMaxBurst];
	unsigned nb_[2] = {0, 0};
	std::vector<uint64_t> seq_, done_;
	std::vector<uint64_t> owed_; /* <job, seq> of results owed an ACK */
	size_t owed_head_ = 0, owed_tail_ = 0;
	unsigned job_ = 0, worker_ = 0;
	uint64_t last_progress_ = 0;
	QueueStats st_;
};

/* A parameter packet of the emulated PS for <job, seq>, queued on the PS port. */
bool QueueGen::make_ack(unsigned j, uint32_t s)
{
	rte_mbuf *a = ring_[1].take();
	if (!a)
		return false;
	const uint16_t jid = static_cast<uint16_t>(j + 1);
	ina::Endpoint src{{}, kPsIp, INA_UDP_PORT}, dst{{}, ina::job_group(jid), INA_UDP_PORT};
	memcpy(src.mac, kPsMac, 6);
	ina::job_group_mac(jid, dst.mac);
	ina::InaHeader h;
	h.flags = INA_F_ACK;
	h.job_id = jid;
	h.seq = s;
	h.agg_index = j * r_.per_job + s % r_.per_job;
	h.elem_count = static_cast<uint16_t>(o_.elements);
	h.levels = 1;
	ina::write_ina_frame(rte_pktmbuf_mtod(a, uint8_t *), src, dst, h);
	rte_mbuf_refcnt_update(a, 1);
	burst_[1][nb_[1]++] = a;
	return true;
}

/* The next gradient, round robin over (job, worker). False if none can go now. */
bool QueueGen::make_gradient()
{
	if (!o_.open_loop && worker_ == 0) {
		unsigned tries = 0;
		while (tries < o_.jobs && in_flight(job_) >= r_.window_q) {
			if (++job_ == o_.jobs)
				job_ = 0;
			tries++;
		}
		if (tries == o_.jobs)
			return false; /* every job has a full window */
	}
	rte_mbuf *m = ring_[0].take();
	if (!m) {
		st_.busy++;
		return false;
	}
	const unsigned j = job_, w = worker_;
	const uint32_t s = static_cast<uint32_t>(seq_[j]);
	const uint32_t index = j * r_.per_job + s % r_.per_job;
	/* The UDP source port carries the index's low bits: NIC steering. */
	ina::Endpoint src{{0x02, 0, 0, static_cast<uint8_t>(j), static_cast<uint8_t>(w), 1},
			  (10u << 24) | (1u << 16) | (j << 8) | (w + 1), ina::steering_src_port(index)};
	ina::Endpoint dst{{}, kPsIp, INA_UDP_PORT};
	memcpy(dst.mac, kPsMac, 6);
	ina::InaHeader h;
	h.job_id = static_cast<uint16_t>(j + 1);
	h.seq = s;
	h.agg_index = index;
	h.elem_count = static_cast<uint16_t>(o_.elements);
	h.levels = 1;
	h.bitmap[0] = 1u << w;
	h.fan_in[0] = static_cast<uint8_t>(o_.workers);
	ina::write_ina_frame(rte_pktmbuf_mtod(m, uint8_t *), src, dst, h);
	rte_mbuf_refcnt_update(m, 1);
	burst_[0][nb_[0]++] = m;
	if (++worker_ < o_.workers)
		return true;
	worker_ = 0;
	const uint64_t back = uint64_t(r_.window_q) * o_.queues;
	if (o_.acks && o_.open_loop && s >= back && !make_ack(j, static_cast<uint32_t>(s - back)))
		st_.busy++;
	seq_[j] += o_.queues;
	if (++job_ == o_.jobs)
		job_ = 0;
	return true;
}

/* A burst on each port: first the ACKs owed, then gradients while both have room. */
void QueueGen::fill()
{
	while (owed_head_ != owed_tail_ && nb_[1] < o_.burst) {
		const uint64_t e = owed_[owed_head_];
		if (!make_ack(static_cast<unsigned>(e >> 32), static_cast<uint32_t>(e)))
			break;
		owed_head_ = (owed_head_ + 1) & (owed_.size() - 1);
	}
	while (nb_[0] < o_.burst && nb_[1] < o_.burst && make_gradient()) {
	}
}

void QueueGen::send()
{
	for (uint16_t p = 0; p < 2; p++) {
		if (!nb_[p])
			continue;
		const uint16_t sent = rte_eth_tx_burst(p, q_, burst_[p], static_cast<uint16_t>(nb_[p]));
		st_.tx[p] += sent;
		(p == 0 ? st_.gradients : st_.acks) += sent;
		/* Unsent frames keep their content and go first next time. */
		for (unsigned k = sent; k < nb_[p]; k++)
			burst_[p][k - sent] = burst_[p][k];
		nb_[p] -= sent;
	}
}

/* Every gradient element is 1, so every element of a complete result is W. */
bool QueueGen::exact_sum(const ina::InaFrame &f) const
{
	if (f.hdr.elem_count != o_.elements || f.payload_len < 4u * o_.elements)
		return false;
	for (unsigned i = 0; i < o_.elements; i++)
		if (ina_load32(f.payload + 4 * i) != o_.workers)
			return false;
	return true;
}

/* The sink; on the PS side, a complete result of this queue earns its ACK. */
void QueueGen::receive(uint64_t now)
{
	const uint32_t all = o_.workers == 32 ? ~0u : (1u << o_.workers) - 1u;
	rte_mbuf *rx[kMaxBurst];
	for (uint16_t p = 0; p < 2; p++) {
		const uint16_t n = rte_eth_rx_burst(p, q_, rx, kMaxBurst);
		st_.rx[p] += n;
		for (uint16_t k = 0; p == 1 && !o_.open_loop && k < n; k++) {
			ina::InaFrame f;
			if (ina::parse_ina_frame(rte_pktmbuf_mtod(rx[k], const uint8_t *), rx[k]->data_len, &f) !=
				    ina::FrameVerdict::kOk ||
			    f.hdr.type != INA_TYPE_DATA)
				continue;
			const unsigned j = f.hdr.job_id - 1u;
			if ((f.hdr.flags & (INA_F_ACK | INA_F_COLLISION | INA_F_RESEND)) || j >= o_.jobs ||
			    f.hdr.bitmap[0] != all)
				continue;
			if (f.hdr.seq % o_.queues != q_) {
				st_.foreign++; /* another queue's fragment: the switch did not keep queues */
				continue;
			}
			if (in_flight(j) == 0)
				continue;
			st_.results++;
			if (!exact_sum(f))
				st_.results_wrong++;
			done_[j]++;
			last_progress_ = now;
			const size_t next = (owed_tail_ + 1) & (owed_.size() - 1);
			if (next != owed_head_) {
				owed_[owed_tail_] = uint64_t(j) << 32 | f.hdr.seq;
				owed_tail_ = next;
			}
		}
		rte_pktmbuf_free_bulk(rx, n);
	}
	/* Results lost (dropped, or collided): give their window back. */
	if (!o_.open_loop && now - last_progress_ > r_.hz / 2) {
		for (unsigned j = 0; j < o_.jobs; j++)
			if (in_flight(j) >= r_.window_q) {
				done_[j] = (seq_[j] - q_) / o_.queues;
				st_.stalls++;
			}
		last_progress_ = now;
	}
}

bool QueueGen::poll(uint64_t now)
{
	if (!st_.measuring && now >= r_.t_measure) {
		st_.measuring = true;
		for (int p = 0; p < 2; p++) {
			st_.m_tx[p] = st_.tx[p];
			st_.m_rx[p] = st_.rx[p];
		}
	}
	if (now >= r_.t_end)
		return false;
	fill();
	send();
	receive(now);
	return true;
}

/* The contexts one lcore drives. */
struct LcoreJob {
	std::vector<QueueGen *> gens;
	std::vector<uint16_t> queues; /* --forward: the queues it forwards */
	const Options *o = nullptr;
	uint64_t fwd = 0, drop = 0, consumed = 0;
	uint64_t seen = 0; /* port 0 packets, for --one-in */
	/* --forward: packets received, and CPU ns in rounds that carried
	 * packets, by switchd's own clock (busy_clock.h). */
	uint64_t handled = 0, busy_ns = 0;
};

int generate(void *arg)
{
	auto *lj = static_cast<LcoreJob *>(arg);
	bool running = !lj->gens.empty();
	while (running && !quitting()) {
		const uint64_t now = rte_rdtsc();
		for (QueueGen *g : lj->gens)
			running = g->poll(now) && running;
	}
	return 0;
}

/* Keeps one in `one_in` of the burst (the first of each group, counted over
 * the lcore's whole run) and frees the rest: the I/O of a switch that
 * aggregates one_in packets into one, without looking at them. */
uint16_t thin(LcoreJob *lj, rte_mbuf **b, uint16_t n)
{
	rte_mbuf *gone[kMaxBurst];
	uint16_t kept = 0, freed = 0;
	for (uint16_t i = 0; i < n; i++) {
		if (lj->seen++ % lj->o->one_in == 0)
			b[kept++] = b[i];
		else
			gone[freed++] = b[i];
	}
	if (freed)
		rte_pktmbuf_free_bulk(gone, freed);
	lj->consumed += freed;
	return kept;
}

/* The baseline: the cheapest DPDK forwarder on the same ports and queues,
 * same burst, no look at the packets: queue k of one port to queue k of
 * the other (of port 0's, one in --one-in). */
int forward(void *arg)
{
	auto *lj = static_cast<LcoreJob *>(arg);
	rte_mbuf *b[kMaxBurst];
	switchd::BusyClock clock(rte_get_tsc_hz());
	while (!lj->queues.empty() && !quitting()) {
		const uint64_t round = rte_rdtsc();
		unsigned got = 0;
		for (uint16_t q : lj->queues)
			for (uint16_t p = 0; p < 2; p++) {
				uint16_t n = rte_eth_rx_burst(p, q, b, lj->o->burst);
				if (!n)
					continue;
				got += n;
				if (p == 0 && lj->o->one_in > 1 && !(n = thin(lj, b, n)))
					continue;
				const uint16_t s = rte_eth_tx_burst(static_cast<uint16_t>(1 - p), q, b, n);
				lj->fwd += s;
				lj->drop += n - s;
				if (s < n)
					rte_pktmbuf_free_bulk(b + s, n - s);
			}
		lj->handled += got;
		clock.round_end(got != 0, round, lj->busy_ns);
		if (!got && lj->o->idle_sleep_us)
			rte_delay_us_sleep(lj->o->idle_sleep_us);
	}
	return 0;
}

/* CLI; returns -1 to go on, else the exit code. */
int parse_options(const std::vector<std::string> &own, Options &o)
{
	CLI::App cli{"ina-gen: INA traffic generator and sink (W workers x J jobs + PS)", "ina-gen"};
	ina::add_standard_options(cli, "ina-gen");
	cli.footer("DPDK EAL arguments come first, ours after \"--\" (read before the EAL starts):\n"
		   "  ina-gen [EAL args, -l CPUS] -- --workers 4 --jobs 2 --aggregators 4096 [--json]");
	cli.add_option("--workers", o.workers, "workers per job (fan-in)")->check(CLI::Range(1, 32));
	cli.add_option("--jobs", o.jobs, "jobs (ids 1..J)")->check(CLI::Range(1, 255));
	cli.add_option("--elements", o.elements, "int32 elements per packet")->check(CLI::Range(1, 256));
	cli.add_option("--aggregators", o.aggregators, "switch aggregator count N")
		->check(CLI::Range(1u, 1u << 22));
	cli.add_option("--window", o.window, "fragments in flight per job")->check(CLI::Range(1u, 1u << 20));
	cli.add_option("--duration", o.duration, "measured seconds")->check(ina::finite_range(0.1, 3600.0));
	cli.add_option("--warmup", o.warmup, "seconds before measuring")->check(ina::finite_range(0.0, 600.0));
	cli.add_option("--burst", o.burst, "packets per burst")->check(CLI::Range(1, int(kMaxBurst)));
	cli.add_flag("!--no-acks", o.acks, "do not send parameter packets (aggregators are never freed)");
	cli.add_flag("--open-loop", o.open_loop,
		     "ACK fragment s-window after sending s, whether or not it completed (default: the "
		     "emulated PS ACKs each result it receives, at most `window` fragments in flight)");
	cli.add_option("--queues", o.queues,
		       "RX/TX queue pairs per port, one generator context each, spread over the EAL "
		       "lcores; queue k carries the aggregator indices i with i % queues == k")
		->check(CLI::Range(1u, kMaxQueues));
	cli.add_option("--idle-sleep-us", o.idle_sleep_us,
		       "--forward: sleep this long after a round that found nothing (as switchd's "
		       "idle_sleep_us, for a machine where the generator shares the CPUs)")
		->check(CLI::Range(0u, 100000u));
	cli.add_option("--label", o.label, "name in the output");
	cli.add_flag("--json", o.json, "one JSON object on stdout");
	cli.add_flag("--hold", o.hold,
		     "after the result, stop polling and wait for SIGINT before closing the ports "
		     "(a memif peer must not disconnect while the other side polls)");
	cli.add_option("--one-in", o.one_in,
		       "--forward: pass one in N of the packets arriving on port 0 (the workers' side) "
		       "and free the rest, so the forwarder sends what an aggregating switch sends")
		->check(CLI::Range(1u, 1024u));
	cli.add_flag("--forward", o.forward,
		     "no generator: forward queue k of port 0 <-> queue k of port 1 until SIGINT (the "
		     "bare forwarding baseline)");
	const int rc = ina::parse_cli("ina-gen", cli, {own.rbegin(), own.rend()});
	if (rc >= 0)
		return rc;
	if (o.forward)
		return -1;
	const uint32_t per_job = o.aggregators / o.jobs;
	if (per_job % o.queues) {
		std::fprintf(stderr, "ina-gen: error: aggregators/jobs (%u) must be a multiple of --queues\n",
			     per_job);
		return 2;
	}
	if (o.window >= per_job || o.window < o.queues) {
		std::fprintf(stderr, "ina-gen: error: --window must be in %u..aggregators/jobs-1 (%u)\n",
			     o.queues, per_job - 1);
		return 2;
	}
	return -1;
}

/* Both ports with `queues` RX/TX queue pairs (memif pairs rings with the peer's). */
bool setup_ports(Options &o, rte_mempool *pool)
{
	for (uint16_t p = 0; p < 2; p++) {
		struct rte_eth_conf conf = {};
		struct rte_eth_dev_info info;
		if (rte_eth_dev_info_get(p, &info) != 0)
			return false;
		if (info.max_rx_queues < o.queues || info.max_tx_queues < o.queues) {
			std::fprintf(stderr, "ina-gen: error: port %u has %u RX / %u TX queues, --queues %u\n", p,
				     info.max_rx_queues, info.max_tx_queues, o.queues);
			return false;
		}
		const uint16_t nq = static_cast<uint16_t>(o.queues);
		if (rte_eth_dev_configure(p, nq, nq, &conf) != 0) {
			std::fprintf(stderr, "ina-gen: error: port %u configure\n", p);
			return false;
		}
		for (uint16_t q = 0; q < nq; q++)
			if (rte_eth_rx_queue_setup(p, q, 1024, rte_eth_dev_socket_id(p), nullptr, pool) != 0 ||
			    rte_eth_tx_queue_setup(p, q, 1024, rte_eth_dev_socket_id(p), nullptr) != 0) {
				std::fprintf(stderr, "ina-gen: error: port %u queue %u setup\n", p, q);
				return false;
			}
		if (rte_eth_dev_start(p) != 0) {
			std::fprintf(stderr, "ina-gen: error: port %u start\n", p);
			return false;
		}
		rte_eth_promiscuous_enable(p);
	}
	return true;
}

/* Waits for both links (memif connects asynchronously). */
bool links_up(uint64_t hz)
{
	const uint64_t t0 = rte_rdtsc();
	for (;;) {
		struct rte_eth_link l0, l1;
		rte_eth_link_get_nowait(0, &l0);
		rte_eth_link_get_nowait(1, &l1);
		if (l0.link_status && l1.link_status)
			return true;
		if (rte_rdtsc() - t0 > 60 * hz || quitting())
			return false;
		rte_delay_ms(10);
	}
}

/* Runs fn on every EAL lcore with its LcoreJob, the main lcore included. */
void run_on_lcores(lcore_function_t *fn, std::vector<LcoreJob> &jobs)
{
	unsigned k = 1, lid;
	RTE_LCORE_FOREACH_WORKER(lid)
	rte_eal_remote_launch(fn, &jobs[k++], lid);
	fn(&jobs[0]);
	rte_eal_mp_wait_lcore();
}

void report(const Options &o, const std::vector<QueueGen *> &gens, uint64_t hz, uint64_t t_measure,
	    uint64_t t_stop)
{
	const double secs = t_stop > t_measure ? static_cast<double>(t_stop - t_measure) / hz : 0.0;
	uint64_t m_tx[2] = {0, 0}, m_rx[2] = {0, 0}, rx[2] = {0, 0}, busy = 0, stalls = 0, foreign = 0;
	uint64_t gradients = 0, acks = 0, results = 0, wrong = 0;
	std::string per_queue;
	for (const QueueGen *g : gens) {
		const QueueStats &s = g->stats();
		uint64_t q_in = 0;
		for (int p = 0; p < 2; p++) {
			m_tx[p] += s.tx[p] - s.m_tx[p];
			m_rx[p] += s.rx[p] - s.m_rx[p];
			rx[p] += s.rx[p];
			q_in += s.tx[p] - s.m_tx[p];
		}
		busy += s.busy;
		stalls += s.stalls;
		foreign += s.foreign;
		gradients += s.gradients;
		acks += s.acks;
		results += s.results;
		wrong += s.results_wrong;
		per_queue += (per_queue.empty() ? "" : ", ") + std::to_string(q_in);
	}
	const double tx_mpps = secs > 0 ? (m_tx[0] + m_tx[1]) / secs / 1e6 : 0;
	const double rx_mpps = secs > 0 ? (m_rx[0] + m_rx[1]) / secs / 1e6 : 0;
	if (o.json)
		std::printf("{\"label\": \"%s\", \"workers\": %u, \"jobs\": %u, \"elements\": %u, "
			    "\"queues\": %u, \"window\": %u, \"seconds\": %.3f, \"tx_gradients\": %lu, "
			    "\"tx_acks\": %lu, \"rx_workers_side\": %lu, \"rx_ps_side\": %lu, \"mpps_in\": %.4f, "
			    "\"mpps_out\": %.4f, \"queue_tx\": [%s], \"busy\": %lu, \"window_stalls\": %lu, "
			    "\"foreign_results\": %lu, \"closed_loop\": %s, \"total_gradients\": %lu, "
			    "\"total_acks\": %lu, \"total_rx_workers_side\": %lu, \"total_rx_ps_side\": %lu, "
			    "\"results\": %lu, \"results_wrong\": %lu}\n",
			    o.label.c_str(), o.workers, o.jobs, o.elements, o.queues, o.window, secs, m_tx[0],
			    m_tx[1], m_rx[0], m_rx[1], tx_mpps, rx_mpps, per_queue.c_str(), busy, stalls, foreign,
			    o.open_loop ? "false" : "true", gradients, acks, rx[0], rx[1], results, wrong);
	else
		std::printf("%s: %.2f s, %u queue(s): sent %.3f Mpps (gradients %lu, ACKs %lu), received "
			    "%.3f Mpps (PS side %lu, workers side %lu); results %lu, not the exact sum %lu\n",
			    o.label.c_str(), secs, o.queues, tx_mpps, m_tx[0], m_tx[1], rx_mpps, m_rx[1], m_rx[0],
			    results, wrong);
	std::fflush(stdout);
}

void close_ports(const Options &o, uint64_t hz)
{
	/* DPDK 22.11 memif unmaps its rings when the peer disconnects, under
	 * the feet of a concurrent rx/tx burst: let the peer stop first. */
	for (uint64_t t = rte_rdtsc(); o.hold && !quitting() && rte_rdtsc() - t < 120 * hz;)
		rte_delay_us_sleep(10000);
	for (uint16_t p = 0; p < 2; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
}

int fail(const char *what)
{
	std::fprintf(stderr, "ina-gen: error: %s\n", what);
	rte_eal_cleanup();
	return 1;
}

} /* namespace */

/* main() without the last-resort catch. */
static int run_gen(int argc, char **argv)
{
	/* Our options first (ina::split_eal_args): --help, --version and a
	 * bad option never start the EAL. */
	const ina::EalSplit split = ina::split_eal_args(argc, argv);
	Run run;
	Options &o = run.o;
	const int rc = parse_options(split.own, o);
	if (rc >= 0)
		return rc;
	std::vector<std::string> eal_words = {argv[0]};
	eal_words.insert(eal_words.end(), split.eal.begin(), split.eal.end());
	std::vector<char *> eal_argv;
	for (std::string &w : eal_words)
		eal_argv.push_back(&w[0]);
	if (rte_eal_init(static_cast<int>(eal_argv.size()), eal_argv.data()) < 0) {
		std::fprintf(stderr, "ina-gen: error: EAL initialisation failed: %s (without hugepages: "
				     "--no-huge -m 512)\n", rte_strerror(rte_errno));
		return 1;
	}
	if (rte_eth_dev_count_avail() < 2)
		return fail("needs two ports (workers side, PS side)");
	const unsigned n_lcores = rte_lcore_count();
	rte_mempool *pool = rte_pktmbuf_pool_create("gen", o.queues * (2 * kFramesPerRing + 2 * 1024 + 512) + 2047, 256, 0,
						    RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (!pool)
		return fail(rte_strerror(rte_errno));
	if (!setup_ports(o, pool))
		return fail("port set-up");
	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);
	run.hz = rte_get_tsc_hz();

	std::vector<LcoreJob> jobs(n_lcores);
	for (unsigned q = 0; q < o.queues; q++)
		jobs[q % n_lcores].queues.push_back(static_cast<uint16_t>(q));
	for (auto &j : jobs)
		j.o = &o;
	if (o.forward) {
		std::printf("forwarding on %u queue(s), %u lcore(s)\n", o.queues, n_lcores);
		std::fflush(stdout);
		run_on_lcores(forward, jobs);
		uint64_t fwd = 0, drop = 0, consumed = 0, handled = 0, busy_ns = 0;
		for (auto &j : jobs) {
			fwd += j.fwd;
			drop += j.drop;
			consumed += j.consumed;
			handled += j.handled;
			busy_ns += j.busy_ns;
		}
		std::printf("forwarded %lu dropped %lu consumed %lu received %lu busy_ns %lu\n", fwd, drop, consumed,
			    handled, busy_ns);
		close_ports(Options{}, run.hz);
		rte_eal_cleanup();
		return 0;
	}

	run.per_job = o.aggregators / o.jobs;
	run.window_q = o.window / o.queues;
	run.frame_len = std::max<uint32_t>(INA_FRAME_LEN(o.elements), 60);
	std::vector<std::unique_ptr<QueueGen>> gens;
	std::vector<QueueGen *> all;
	try {
		for (unsigned q = 0; q < o.queues; q++) {
			gens.push_back(std::make_unique<QueueGen>(run, static_cast<uint16_t>(q), pool));
			jobs[q % n_lcores].gens.push_back(gens.back().get());
			all.push_back(gens.back().get());
		}
	} catch (const std::exception &e) {
		return fail(e.what());
	}
	if (!links_up(run.hz))
		return fail("links did not come up");
	run.t_measure = rte_rdtsc() + static_cast<uint64_t>(o.warmup * run.hz);
	run.t_end = run.t_measure + static_cast<uint64_t>(o.duration * run.hz);
	run_on_lcores(generate, jobs);
	report(o, all, run.hz, run.t_measure, std::min<uint64_t>(rte_rdtsc(), run.t_end));
	gens.clear();
	close_ports(o, run.hz);
	rte_eal_cleanup();
	return 0;
}

int main(int argc, char **argv)
{
	return ina::run_main("ina-gen", [&] { return run_gen(argc, argv); });
}
