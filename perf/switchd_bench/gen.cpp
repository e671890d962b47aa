/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-gen: a DPDK traffic generator and sink that emulates W workers x J
 * jobs (and their PS) in front of an INA switch. Usable on its own against
 * any switch:
 *
 *   ina-gen [EAL args] -- --workers 4 --jobs 2 --aggregators 4096 --duration 5 [--json]
 *
 * Port 0 faces the workers' side: gradients leave here, parameter copies
 * come back. Port 1 faces the PS: results come back and the emulated PS
 * answers each complete one with its ACK (parameter packet); each job
 * keeps at most `window` fragments in flight (closed loop). With
 * --open-loop the ACK of fragment s-window follows fragment s whatever
 * happened (for devices that do not aggregate). Everything received on
 * either port is counted and freed (the sink). One lcore does
 * it all, so that on a small machine the other cores stay with the switch.
 *
 * Addresses (configure the switch's neighbours and jobs accordingly):
 * worker w of job j (j = 0..J-1, job id j+1) is 10.1.j.(w+1), MAC
 * 02:00:00:jj:ww:01, bitmap bit w, fan-in W; the PS is 10.1.255.100, MAC
 * 02:00:00:ff:00:64. Fragment s of job j uses aggregator index
 * j * N/J + s % (N/J) (no collisions while --window < N/J) and UDP source
 * port ina::steering_src_port(index). Every header is written by the
 * protocol's codec (ina/codec.h).
 *
 * Frames are written into a fixed set of mbufs that are reused once their
 * reference count says the PMD is done with them (memif copies at TX).
 */
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ina/codec.h"

namespace {

volatile bool g_quit = false;
void on_signal(int) { g_quit = true; }

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
	unsigned rx_queues = 1;
	uint16_t burst = 32;
};

/* A reusable set of frames for one port. */
struct FrameRing {
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

/* The payload, written once: the headers are rewritten per frame. */
void write_payload(uint8_t *f, unsigned elems)
{
	for (unsigned i = 0; i < elems; i++)
		ina_store32(f + INA_PAYLOAD_OFFSET + 4 * i, 1);
}

} /* namespace */

int main(int argc, char **argv)
{
	int used = rte_eal_init(argc, argv);
	if (used < 0) {
		std::fprintf(stderr, "ina-gen: error: EAL initialisation failed: %s (without hugepages: "
				     "--no-huge -m 512)\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= used;
	argv += used;

	Options o;
	CLI::App cli{"ina-gen: INA traffic generator and sink (W workers x J jobs + PS)", "ina-gen"};
	cli.add_option("--workers", o.workers, "workers per job (fan-in)")->check(CLI::Range(1, 32));
	cli.add_option("--jobs", o.jobs, "jobs (ids 1..J)")->check(CLI::Range(1, 255));
	cli.add_option("--elements", o.elements, "int32 elements per packet")->check(CLI::Range(1, 256));
	cli.add_option("--aggregators", o.aggregators, "switch aggregator count N");
	cli.add_option("--window", o.window, "fragments in flight per job");
	cli.add_option("--duration", o.duration, "measured seconds");
	cli.add_option("--warmup", o.warmup, "seconds before measuring");
	cli.add_flag("!--no-acks", o.acks, "do not send parameter packets (aggregators are never freed)");
	cli.add_flag("--open-loop", o.open_loop,
		     "ACK fragment s-window after sending s, whether or not it completed (default: the "
		     "emulated PS ACKs each result it receives, at most `window` fragments in flight)");
	cli.add_option("--rx-queues", o.rx_queues,
		       "RX queues per port: the peer's TX queue count (memif pairs rings)");
	cli.add_option("--label", o.label, "name in the output");
	cli.add_flag("--json", o.json, "one JSON object on stdout");
	cli.add_flag("--hold", o.hold,
		     "after the result, stop polling and wait for SIGINT before closing the ports "
		     "(a memif peer must not disconnect while the other side polls)");
	cli.add_flag("--forward", o.forward,
		     "no generator: forward port 0 <-> port 1 until SIGINT (the bare forwarding baseline)");
	try {
		cli.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		rte_eal_cleanup();
		return cli.exit(e);
	}
	if (rte_eth_dev_count_avail() < 2) {
		std::fprintf(stderr, "ina-gen: error: needs two ports (workers side, PS side), found %u\n",
			     rte_eth_dev_count_avail());
		rte_eal_cleanup();
		return 1;
	}
	const uint32_t per_job = o.aggregators / o.jobs;
	if (o.window >= per_job || o.window == 0) {
		std::fprintf(stderr, "ina-gen: error: --window must be in 1..aggregators/jobs-1 (%u)\n",
			     per_job - 1);
		rte_eal_cleanup();
		return 1;
	}

	rte_mempool *pool = rte_pktmbuf_pool_create("gen", 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
						    rte_socket_id());
	if (!pool) {
		std::fprintf(stderr, "ina-gen: error: mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	for (uint16_t p = 0; p < 2; p++) {
		struct rte_eth_conf conf = {};
		struct rte_eth_dev_info info;
		rte_eth_dev_info_get(p, &info);
		o.rx_queues = std::min<unsigned>({o.rx_queues, info.max_rx_queues, info.max_tx_queues});
		const uint16_t rxq = static_cast<uint16_t>(o.rx_queues);
		/* As many TX as RX queues: memif pairs its rings with the peer's. */
		if (rte_eth_dev_configure(p, rxq, rxq, &conf) != 0) {
			std::fprintf(stderr, "ina-gen: error: port %u configure\n", p);
			return 1;
		}
		for (uint16_t q = 0; q < rxq; q++)
			rte_eth_rx_queue_setup(p, q, 1024, rte_socket_id(), nullptr, pool);
		for (uint16_t q = 0; q < rxq; q++)
			rte_eth_tx_queue_setup(p, q, 1024, rte_socket_id(), nullptr);
		if (rte_eth_dev_start(p) != 0) {
			std::fprintf(stderr, "ina-gen: error: port %u start\n", p);
			return 1;
		}
		rte_eth_promiscuous_enable(p);
	}
	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);

	if (o.forward) {
		/* The baseline: the cheapest possible DPDK forwarder on the same
		 * ports, same burst, no look at the packets. */
		rte_mbuf *b[64];
		uint64_t fwd = 0, drop = 0;
		std::printf("forwarding\n");
		std::fflush(stdout);
		while (!g_quit) {
			for (uint16_t p = 0; p < 2; p++) {
				for (uint16_t q = 0; q < o.rx_queues; q++) {
					uint16_t n = rte_eth_rx_burst(p, q, b, o.burst);
					if (!n)
						continue;
					uint16_t s = rte_eth_tx_burst(static_cast<uint16_t>(1 - p), 0, b, n);
					fwd += s;
					drop += n - s;
					if (s < n)
						rte_pktmbuf_free_bulk(b + s, n - s);
				}
			}
		}
		std::printf("forwarded %lu dropped %lu\n", fwd, drop);
		for (uint16_t p = 0; p < 2; p++) {
			rte_eth_dev_stop(p);
			rte_eth_dev_close(p);
		}
		rte_eal_cleanup();
		return 0;
	}

	const uint8_t ps_mac[6] = {0x02, 0, 0, 0xff, 0, 0x64};
	const uint32_t ps_ip = (10u << 24) | (1u << 16) | (255u << 8) | 100;
	const unsigned elems = o.elements;
	const uint32_t flen = INA_FRAME_LEN(elems) < 60 ? 60 : INA_FRAME_LEN(elems);

	FrameRing ring[2];
	for (int p = 0; p < 2; p++) {
		ring[p].m.resize(4096);
		for (auto &m : ring[p].m) {
			m = rte_pktmbuf_alloc(pool);
			rte_pktmbuf_append(m, static_cast<uint16_t>(flen));
			write_payload(rte_pktmbuf_mtod(m, uint8_t *), elems);
		}
	}

	/* Wait for links (memif connects asynchronously). */
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t t0 = rte_rdtsc();
	for (;;) {
		struct rte_eth_link l0, l1;
		rte_eth_link_get_nowait(0, &l0);
		rte_eth_link_get_nowait(1, &l1);
		if (l0.link_status && l1.link_status)
			break;
		if (rte_rdtsc() - t0 > 60 * hz || g_quit) {
			std::fprintf(stderr, "ina-gen: error: links did not come up\n");
			return 1;
		}
		rte_delay_ms(10);
	}

	std::vector<uint64_t> seq(o.jobs, 0);
	uint64_t tx[2] = {0, 0}, rx[2] = {0, 0}, busy = 0;
	uint64_t m_tx[2] = {0, 0}, m_rx[2] = {0, 0};
	rte_mbuf *burst[2][64];
	unsigned nb[2] = {0, 0};
	const uint64_t start = rte_rdtsc();
	const uint64_t t_measure = start + static_cast<uint64_t>(o.warmup * hz);
	const uint64_t t_end = t_measure + static_cast<uint64_t>(o.duration * hz);
	bool measuring = false;
	unsigned job = 0, worker = 0;
	rte_mbuf *rxb[64];

	/* A parameter packet of the emulated PS for <job, seq>, queued on the PS port. */
	auto make_ack = [&](unsigned aj, uint32_t as) -> bool {
		rte_mbuf *a = ring[1].take();
		if (!a)
			return false;
		const uint16_t jid = static_cast<uint16_t>(aj + 1);
		ina::Endpoint src{{}, ps_ip, INA_UDP_PORT}, dst{{}, ina::job_group(jid), INA_UDP_PORT};
		memcpy(src.mac, ps_mac, 6);
		ina::job_group_mac(jid, dst.mac);
		ina::InaHeader h;
		h.flags = INA_F_ACK;
		h.job_id = jid;
		h.seq = as;
		h.agg_index = aj * per_job + as % per_job;
		h.elem_count = static_cast<uint16_t>(elems);
		h.levels = 1;
		ina::write_ina_frame(rte_pktmbuf_mtod(a, uint8_t *), src, dst, h);
		rte_mbuf_refcnt_update(a, 1);
		burst[1][nb[1]++] = a;
		return true;
	};
	/* Closed loop: results received, ACKs owed, fragments completed per job. */
	std::vector<uint64_t> owed(1u << 16);
	size_t owed_head = 0, owed_tail = 0;
	std::vector<uint64_t> done(o.jobs, 0);
	uint64_t stalls = 0, last_progress = rte_rdtsc();

	while (!g_quit) {
		const uint64_t now = rte_rdtsc();
		if (!measuring && now >= t_measure) {
			measuring = true;
			for (int p = 0; p < 2; p++) {
				m_tx[p] = tx[p];
				m_rx[p] = rx[p];
			}
		}
		if (now >= t_end)
			break;
		/* Fill a burst: gradients round robin over (job, worker); after
		 * the last worker of a fragment, the ACK of the fragment `window`
		 * back goes on the PS port. */
		while (owed_head != owed_tail && nb[1] < o.burst) {
			const uint64_t e = owed[owed_head];
			if (!make_ack(static_cast<unsigned>(e >> 32), static_cast<uint32_t>(e)))
				break;
			owed_head = (owed_head + 1) & (owed.size() - 1);
		}
		while (nb[0] < o.burst && nb[1] < o.burst) {
			if (!o.open_loop && worker == 0) {
				unsigned tries = 0;
				while (tries < o.jobs && seq[job] - done[job] >= o.window) {
					if (++job == o.jobs)
						job = 0;
					tries++;
				}
				if (tries == o.jobs)
					break; /* every job has a full window */
			}
			rte_mbuf *m = ring[0].take();
			if (!m) {
				busy++;
				break;
			}
			const uint32_t s = seq[job];
			const uint32_t index = job * per_job + s % per_job;
			/* The UDP source port carries the index's low bits: NIC steering. */
			ina::Endpoint src{{0x02, 0, 0, static_cast<uint8_t>(job), static_cast<uint8_t>(worker), 1},
					  (10u << 24) | (1u << 16) | (job << 8) | (worker + 1),
					  ina::steering_src_port(index)};
			ina::Endpoint dst{{}, ps_ip, INA_UDP_PORT};
			memcpy(dst.mac, ps_mac, 6);
			ina::InaHeader h;
			h.job_id = static_cast<uint16_t>(job + 1);
			h.seq = s;
			h.agg_index = index;
			h.elem_count = static_cast<uint16_t>(elems);
			h.levels = 1;
			h.bitmap[0] = 1u << worker;
			h.fan_in[0] = static_cast<uint8_t>(o.workers);
			ina::write_ina_frame(rte_pktmbuf_mtod(m, uint8_t *), src, dst, h);
			rte_mbuf_refcnt_update(m, 1);
			burst[0][nb[0]++] = m;
			if (++worker < o.workers)
				continue;
			worker = 0;
			if (o.acks && o.open_loop && s >= o.window) {
				if (!make_ack(job, s - o.window))
					busy++;
			}
			seq[job]++;
			if (++job == o.jobs)
				job = 0;
		}
		for (int p = 0; p < 2; p++) {
			if (!nb[p])
				continue;
			uint16_t sent = rte_eth_tx_burst(static_cast<uint16_t>(p), 0, burst[p],
							 static_cast<uint16_t>(nb[p]));
			tx[p] += sent;
			/* Unsent frames keep their content and go first next time. */
			for (unsigned k = sent; k < nb[p]; k++)
				burst[p][k - sent] = burst[p][k];
			nb[p] -= sent;
		}
		for (uint16_t p = 0; p < 2; p++)
			for (uint16_t q = 0; q < o.rx_queues; q++) {
				uint16_t n = rte_eth_rx_burst(p, q, rxb, 64);
				rx[p] += n;
				for (uint16_t k = 0; p == 1 && !o.open_loop && k < n; k++) {
					/* The PS side: a complete result earns its ACK. */
					ina::InaFrame r;
					if (ina::parse_ina_frame(rte_pktmbuf_mtod(rxb[k], const uint8_t *),
								 rxb[k]->data_len, &r) != ina::FrameVerdict::kOk ||
					    r.hdr.type != INA_TYPE_DATA)
						continue;
					const uint16_t fl = r.hdr.flags;
					const unsigned j = r.hdr.job_id - 1u;
					const uint32_t all = o.workers == 32 ? ~0u : (1u << o.workers) - 1u;
					if ((fl & (INA_F_ACK | INA_F_COLLISION | INA_F_RESEND)) || j >= o.jobs ||
					    r.hdr.bitmap[0] != all || done[j] >= seq[j])
						continue;
					done[j]++;
					last_progress = now;
					const size_t next = (owed_tail + 1) & (owed.size() - 1);
					if (next != owed_head) {
						owed[owed_tail] = (uint64_t)j << 32 | r.hdr.seq;
						owed_tail = next;
					}
				}
				rte_pktmbuf_free_bulk(rxb, n);
			}
		/* Results lost (dropped, or collided): give their window back. */
		if (!o.open_loop && now - last_progress > hz / 2) {
			for (unsigned j = 0; j < o.jobs; j++)
				if (seq[j] - done[j] >= o.window) {
					done[j] = seq[j];
					stalls++;
				}
			last_progress = now;
		}
	}
	const double secs = measuring ? static_cast<double>(rte_rdtsc() - t_measure) / hz : 0.0;
	for (int p = 0; p < 2; p++) {
		m_tx[p] = tx[p] - m_tx[p];
		m_rx[p] = rx[p] - m_rx[p];
		for (unsigned k = 0; k < nb[p]; k++)
			rte_pktmbuf_free(burst[p][k]);
	}
	const double tx_mpps = secs > 0 ? (m_tx[0] + m_tx[1]) / secs / 1e6 : 0;
	const double rx_mpps = secs > 0 ? (m_rx[0] + m_rx[1]) / secs / 1e6 : 0;
	if (o.json)
		std::printf("{\"label\": \"%s\", \"workers\": %u, \"jobs\": %u, \"elements\": %u, "
			    "\"seconds\": %.3f, \"tx_gradients\": %lu, \"tx_acks\": %lu, \"rx_workers_side\": %lu, "
			    "\"rx_ps_side\": %lu, \"mpps_in\": %.4f, \"mpps_out\": %.4f, \"busy\": %lu, "
			    "\"window_stalls\": %lu, \"closed_loop\": %s}\n",
			    o.label.c_str(), o.workers, o.jobs, elems, secs, m_tx[0], m_tx[1], m_rx[0],
			    m_rx[1], tx_mpps, rx_mpps, busy, stalls, o.open_loop ? "false" : "true");
	else
		std::printf("%s: %.2f s: sent %.3f Mpps (gradients %lu, ACKs %lu), received %.3f Mpps "
			    "(PS side %lu, workers side %lu)\n",
			    o.label.c_str(), secs, tx_mpps, m_tx[0], m_tx[1], rx_mpps, m_rx[1], m_rx[0]);
	std::fflush(stdout);
	/* DPDK 22.11 memif unmaps its rings when the peer disconnects, under
	 * the feet of a concurrent rx/tx burst: let the peer stop first. */
	for (uint64_t t = rte_rdtsc(); o.hold && !g_quit && rte_rdtsc() - t < 120 * hz;)
		rte_delay_us_sleep(10000);
	for (uint16_t p = 0; p < 2; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_eal_cleanup();
	return 0;
}
