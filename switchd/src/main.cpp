/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-switchd [EAL args] -- --config FILE
 * ina-switchd --check-config FILE   (resolved configuration as JSON)
 * ina-switchd --gen-key FILE        (a new control key for control_key_file)
 *
 * Start-up order: command line and config (before the EAL, so that a bad
 * file or a missing CPU is a one-line error), EAL, ports, aggregator tables
 * and rings per lcore, jobs from the config, telemetry, then the lcores and
 * the control-plane thread. SIGINT / SIGTERM stop the lcores; the final
 * summary is logged and the EAL cleaned up (no hugepage files left).
 */
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <string>
#include <pthread.h>
#include <vector>

#include <CLI/CLI.hpp>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pdump.h>
#include <rte_version.h>
#include <spdlog/spdlog.h>

#include "app.h"
#include "control.h"
#include "goat_install.h"
#include "ina/cli.h"
#include "ina/control_auth.h"
#include "ina/vdev.h"
#include "ina_build_config.h"
#include "lcore_loop.h"
#include "ports.h"
#include "registration.h"
#include "summary.h"
#include "telemetry.h"

#if INA_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace switchd {
/* The signal handler's only way to the lcores' quit flag. */
App *signal_app = nullptr;
}

using namespace switchd;

namespace {

[[noreturn]] void die(const std::string &msg)
{
	std::fprintf(stderr, "ina-switchd: error: %s\n", msg.c_str());
	std::exit(1);
}

bool has_arg(const std::vector<std::string> &args, std::initializer_list<const char *> names)
{
	for (const std::string &a : args)
		for (const char *n : names) {
			const std::string s(n);
			if (a == s || (s.size() > 2 && a.rfind(s + "=", 0) == 0) ||
			    (s.size() == 2 && a.rfind(s, 0) == 0 && a.size() > 2))
				return true;
		}
	return false;
}

uint64_t free_hugepages()
{
	uint64_t total = 0;
	DIR *d = opendir("/sys/kernel/mm/hugepages");
	if (!d)
		return 0;
	while (struct dirent *e = readdir(d)) {
		if (e->d_name[0] == '.')
			continue;
		std::ifstream f(std::string("/sys/kernel/mm/hugepages/") + e->d_name + "/free_hugepages");
		uint64_t n = 0;
		if (f >> n)
			total += n;
	}
	closedir(d);
	return total;
}

std::string join(const std::vector<unsigned> &v)
{
	std::string s;
	for (unsigned x : v)
		s += (s.empty() ? "" : ",") + std::to_string(x);
	return s;
}

/* The CPUs this process may run on. */
std::vector<unsigned> allowed_cpus()
{
	std::vector<unsigned> out;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (unsigned c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				out.push_back(c);
	return out;
}

/* Default lcore: the first allowed CPU on the NUMA node of the first PCI
 * port (hwloc), or the first allowed CPU for vdev-only configs. */
unsigned default_lcore(const SwitchConfig &cfg, const std::vector<unsigned> &allowed)
{
#if INA_HAVE_HWLOC
	for (const PortConfig &p : cfg.ports) {
		if (p.is_vdev)
			continue;
		hwloc_topology_t topo;
		hwloc_topology_init(&topo);
		hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
		hwloc_topology_load(topo);
		unsigned chosen = UINT32_MAX;
		hwloc_obj_t dev = hwloc_get_pcidev_by_busidstring(topo, p.name.c_str());
		if (dev) {
			hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, dev);
			for (unsigned c : allowed)
				if (anc && anc->cpuset && hwloc_bitmap_isset(anc->cpuset, c)) {
					chosen = c;
					break;
				}
		}
		hwloc_topology_destroy(topo);
		if (chosen != UINT32_MAX) {
			spdlog::info("lcore {} chosen next to port {} (hwloc)", chosen, p.name);
			return chosen;
		}
	}
#endif
	return allowed.empty() ? 0 : allowed[0];
}

void on_signal(int)
{
	if (signal_app)
		signal_app->quit.store(true, std::memory_order_relaxed);
}

/* Start-up failures after the EAL started: release what exists, exit 1. */
[[noreturn]] void fail(App &app, const std::string &msg)
{
	std::fprintf(stderr, "ina-switchd: error: %s\n", msg.c_str());
	stop_telemetry();
	app.lcores.clear();
	stop_ports(app);
	rte_eal_cleanup();
	std::exit(1);
}

struct CommandLine {
	std::vector<std::string> eal_args;
	std::string config_path;
};

/* EAL arguments before "--", ours after (ina::split_eal_args). Returns -1
 * to go on, else the exit code (--help, --version, --check-config, errors). */
int parse_command_line(int argc, char **argv, CommandLine *cl)
{
	ina::EalSplit split = ina::split_eal_args(argc, argv);
	cl->eal_args = split.eal;
	const std::vector<std::string> &app_args = split.own;
	/* Without "--" the EAL would start with none of the user's arguments
	 * (the default file prefix, every CPU), and EAL arguments would read
	 * as unknown options of ours: starting needs the separator. */
	if (!split.separated && has_arg(app_args, {"-c", "--config"})) {
		ina::print_error("ina-switchd", "--config goes after \"--\": ina-switchd [EAL args] -- --config FILE");
		return ina::kExitUsage;
	}

	CLI::App cli{"ina-switchd: in-network aggregation switch on DPDK ports", "ina-switchd"};
	cli.footer("DPDK EAL arguments come first, ours after \"--\":\n"
		   "  ina-switchd [EAL args] -- --config FILE\n"
		   "  ina-switchd --no-huge -m 512 --file-prefix sw1 -- --config switchd.toml\n"
		   "  ina-switchd --check-config switchd.toml\n"
		   "  ina-switchd --gen-key control.key\n"
		   "Keys of FILE and their defaults: config/README.md. Telemetry: dpdk-telemetry.py -f <file-prefix>, /ina/...");
	std::string check_path, key_path;
	ina::add_standard_options(cli, "ina-switchd");
	cli.set_version_flag("--version", ina::version_line("ina-switchd") + " (" + rte_version() + ")",
			     "print the version and exit");
	auto *config_opt =
		cli.add_option("-c,--config", cl->config_path, "TOML configuration (see config/README.md)");
	auto *check_opt = cli.add_option("--check-config", check_path,
		       "validate FILE, print the resolved configuration as JSON and exit "
		       "(exit 2 if invalid)")
		->excludes(config_opt);
	auto *key_opt = cli.add_option("--gen-key", key_path,
		       "write a new random control key to FILE (mode 0600; an existing FILE is "
		       "left alone, exit 1) for the config's control_key_file and the PS's "
		       "switch.control_key_file, and exit")
		->excludes(config_opt)
		->excludes(check_opt);
	const int rc = ina::parse_cli("ina-switchd", cli, {app_args.rbegin(), app_args.rend()});
	if (rc >= 0)
		return rc;
	if (key_opt->count() > 0) {
		std::string err;
		if (!ina::write_ctrl_key_file(key_path, &err)) {
			ina::print_error("ina-switchd", err);
			return 1;
		}
		std::printf("ina-switchd: wrote a new control key to %s (mode 0600): name it as "
			    "control_key_file in the switch's config and in each PS job file's [switch]\n",
			    key_path.c_str());
		return 0;
	}
	/* CPUs and ports are checked against the machine only at start. */
	if (check_opt->count() > 0)
		return check_config(check_path);
	if (cl->config_path.empty()) {
		ina::print_error("ina-switchd", "--config FILE is required (or --check-config FILE; see --help)");
		return ina::kExitUsage;
	}
	return -1;
}

/* The EAL's argv: the user's EAL arguments completed from the config
 * (lcores, vdevs, PCI allow list), after checking the lcores and hugepages
 * against this machine. */
std::vector<std::string> eal_arguments(const char *argv0, const CommandLine &cl, const SwitchConfig &cfg)
{
	const std::vector<std::string> &eal_args = cl.eal_args;
	const std::vector<unsigned> allowed = allowed_cpus();
	for (unsigned c : cfg.lcores)
		if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
			die(cfg.lcores_where + ": switch.lcores: CPU " + std::to_string(c) +
			    " does not exist or is not allowed: this machine has " +
			    std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs, usable here: " +
			    join(allowed));
	if (!has_arg(eal_args, {"--no-huge"}) && free_hugepages() == 0)
		die("no free hugepages: reserve some (dpdk-hugepages.py --setup 1G) or run without "
		    "them: ina-switchd --no-huge -m 512 [EAL args] -- --config " +
		    cl.config_path);

	/* Every memif vdev, the user's or the config's, with buffers that hold
	 * the largest frame in one descriptor (ina/vdev.h). */
	const uint32_t max_frame = INA_FRAME_LEN(cfg.elements);
	std::vector<std::string> eal = {argv0};
	for (size_t i = 0; i < eal_args.size(); i++) {
		const std::string &a = eal_args[i];
		if (i > 0 && eal_args[i - 1] == "--vdev")
			eal.push_back(ina::complete_vdev_args(a, max_frame));
		else if (a.rfind("--vdev=", 0) == 0)
			eal.push_back("--vdev=" + ina::complete_vdev_args(a.substr(7), max_frame));
		else
			eal.push_back(a);
	}
	if (!has_arg(eal_args, {"-l", "-c", "--lcores"})) {
		std::vector<unsigned> l = cfg.lcores;
		if (l.empty())
			l.push_back(default_lcore(cfg, allowed));
		eal.push_back("-l");
		eal.push_back(join(l));
	}
	bool any_pci = false;
	for (const PortConfig &p : cfg.ports) {
		if (!p.is_vdev) {
			any_pci = true;
			continue;
		}
		bool given = false;
		for (const std::string &a : eal_args)
			given |= a.rfind(p.name, 0) == 0;
		if (!given) {
			eal.push_back("--vdev");
			eal.push_back(ina::complete_vdev_args(p.device, max_frame));
		}
	}
	if (!has_arg(eal_args, {"-a", "--allow", "-b", "--block", "--no-pci"})) {
		if (!any_pci)
			eal.push_back("--no-pci");
		for (const PortConfig &p : cfg.ports)
			if (!p.is_vdev) {
				eal.push_back("-a");
				eal.push_back(p.device);
			}
	}
	return eal;
}

/* Mbuf pools on the first port's NUMA node. */
void create_pools(App &app, unsigned n)
{
	const SwitchConfig &cfg = app.cfg;
	/* Mbufs: enough for every RX ring, egress queue, TX ring and hand-off ring. */
	uint64_t need = 0;
	for (const PortConfig &p : cfg.ports)
		need += static_cast<uint64_t>(n) *
			(cfg.rx_descriptors + cfg.tx_descriptors + p.egress.queue_capacity);
	need += static_cast<uint64_t>(n) * n * cfg.handoff_ring_size + n * 1024u;
	const uint32_t nb_mbufs = static_cast<uint32_t>(std::max<uint64_t>(cfg.mbufs, need));
	const int socket = rte_eth_dev_socket_id(app.port_id[0]) >= 0
		? rte_eth_dev_socket_id(app.port_id[0])
		: static_cast<int>(rte_socket_id());
	/* The private area holds the PacketDesc of classify (lcore_loop.h).
	 * A frame of the configured fragment size fits one mbuf: the data path
	 * reads payloads in place and never walks a received chain. AF_XDP
	 * receives into the mbuf behind XDP's own 256-byte headroom, and its
	 * chunks (whole mempool objects) must fit a 4 KiB page. */
	constexpr uint32_t kXdpHeadroom = 256;
	const uint32_t room = std::max<uint32_t>(RTE_MBUF_DEFAULT_BUF_SIZE,
						 RTE_PKTMBUF_HEADROOM + kXdpHeadroom + INA_FRAME_LEN(cfg.elements));
	app.pool = rte_pktmbuf_pool_create("ina_pkt", nb_mbufs, 256, kPacketDescSpace,
					   static_cast<uint16_t>(room), socket);
	/* A multicast copy's header mbuf carries the original's PacketDesc too. */
	app.hdr_pool = rte_pktmbuf_pool_create("ina_hdr", 8191, 256, kPacketDescSpace, RTE_PKTMBUF_HEADROOM + 128,
					       socket);
	app.ind_pool = rte_pktmbuf_pool_create("ina_ind", 8191, 256, 0, 0, socket);
	if (!app.pool || !app.hdr_pool || !app.ind_pool)
		fail(app, std::string("cannot create mbuf pools (") + std::to_string(nb_mbufs) +
			  " mbufs): " + rte_strerror(rte_errno) + "; give DPDK more memory (-m)");
	app.control_ring = rte_ring_create("ina_ctrl", 1024, socket, RING_F_SC_DEQ);
	if (!app.control_ring)
		fail(app, "cannot create the control ring");
}

/* One Lcore per EAL lcore, with its share of the aggregators. */
void create_lcores(App &app, const std::vector<unsigned> &lcore_ids)
{
	const SwitchConfig &cfg = app.cfg;
	const unsigned n = static_cast<unsigned>(lcore_ids.size());
	if (!cfg.netreduce.rings.empty() && cfg.netreduce_lcore >= n)
		fail(app, "netreduce.lcore " + std::to_string(cfg.netreduce_lcore) + " is not below the " +
			  std::to_string(n) + " data-path lcores");
	for (unsigned k = 0; k < n; k++) {
		LcorePtr lc = make_lcore(static_cast<int>(rte_lcore_to_socket_id(lcore_ids[k])));
		if (!lc)
			fail(app, "no DPDK memory left for the lcores' state; give DPDK more memory (-m)");
		lc->index = k;
		lc->lcore_id = lcore_ids[k];
		ina::PipelineConfig pc;
		pc.aggregators = cfg.aggregators;
		pc.stride = n;
		pc.offset = k;
		pc.elements = cfg.elements;
		pc.switch_id = cfg.switch_id;
		pc.gc_timeout = app.gc_timeout_cycles;
		try {
			lc->table = std::make_unique<ina::AggregatorTable>(pc, ina::simd_best(),
									   register_allocator(&lc->mem));
			lc->port_ctr.assign(cfg.ports.size(), PortCounters{});
			lc->trace.init(cfg.ports.size());
			lc->job_ctr.assign(65536, JobCounters{});
			lc->seen_gen.assign(65536, 0);
			if (!cfg.netreduce.rings.empty() && k == cfg.netreduce_lcore)
				lc->nr = std::make_unique<ina::NrTable>(cfg.netreduce, register_allocator(&lc->mem));
		} catch (const std::bad_alloc &) {
			fail(app, "no DPDK memory left for the aggregator table and counters of lcore " +
				  std::to_string(lcore_ids[k]) + "; give DPDK more memory (-m)");
		} catch (const std::exception &e) {
			fail(app, std::string("aggregator table: ") + e.what());
		}
		lc->rng ^= (k + 1) * 0x2545F4914F6CDD1DULL ^ rte_rdtsc();
		app.lcores.push_back(std::move(lc));
	}
}

/* Egress queues, hand-off rings (one SPSC ring per ordered lcore pair, on
 * the receiver's node) and the RCU state of the job table's readers. */
void connect_lcores(App &app, const std::vector<unsigned> &lcore_ids)
{
	const SwitchConfig &cfg = app.cfg;
	const unsigned n = static_cast<unsigned>(lcore_ids.size());
	for (auto &lc : app.lcores) {
		lc->egress.resize(cfg.ports.size());
		for (size_t p = 0; p < cfg.ports.size(); p++)
			lc->egress[p].init(app.port_id[p], static_cast<uint16_t>(lc->index), cfg.ports[p].egress,
					   n, cfg.burst, INA_FRAME_LEN(cfg.elements), &lc->port_ctr[p]);
		lc->handoff_in.assign(n, nullptr);
		lc->handoff_out.assign(n, nullptr);
	}
	for (unsigned from = 0; from < n; from++)
		for (unsigned to = 0; to < n; to++) {
			if (from == to)
				continue;
			std::string name = "ina_ho_" + std::to_string(from) + "_" + std::to_string(to);
			rte_ring *r = rte_ring_create(name.c_str(), cfg.handoff_ring_size,
						      rte_lcore_to_socket_id(lcore_ids[to]),
						      RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (!r)
				fail(app, "cannot create hand-off ring: " + std::string(rte_strerror(rte_errno)));
			app.lcores[from]->handoff_out[to] = r;
			app.lcores[to]->handoff_in[from] = r;
		}
	const size_t rcu_size = rte_rcu_qsbr_get_memsize(n + 1);
	app.rcu = static_cast<struct rte_rcu_qsbr *>(rte_zmalloc("ina_rcu", rcu_size, RTE_CACHE_LINE_SIZE));
	app.telemetry_reader = n;
	if (!app.rcu || rte_rcu_qsbr_init(app.rcu, n + 1) != 0 ||
	    rte_rcu_qsbr_thread_register(app.rcu, app.telemetry_reader) != 0)
		fail(app, "cannot create the RCU state");
}

/* Where each lcore's state landed, once: a warning when it is not on the
 * lcore's own node (that node had no DPDK memory left). */
void log_lcore_memory(const App &app)
{
	char want_buf[32], got_buf[32];
	for (const auto &lc : app.lcores) {
		const int want = static_cast<int>(rte_lcore_to_socket_id(lc->lcore_id));
		const char *got = node_name(lc->mem.got, got_buf, sizeof(got_buf));
		const double mib = static_cast<double>(lc->mem.bytes) / (1 << 20);
		if (lc->mem.got == want)
			spdlog::info("lcore {} (index {}): state on {} ({:.1f} MiB)", lc->lcore_id,
				     lc->index, got, mib);
		else
			spdlog::warn("lcore {} (index {}) is on {} but its state is on {} ({:.1f} MiB): "
				     "give that node DPDK memory (--socket-mem)",
				     lc->lcore_id, lc->index, node_name(want, want_buf, sizeof(want_buf)),
				     got, mib);
	}
}

/* What the lcores read of the App, once it is all set up (lcore_shared.h):
 * they get these pointers, not the App. */
void share_with_lcores(App &app)
{
	LcoreShared &sh = app.lcore_shared;
	sh.cfg = &app.cfg;
	sh.fwd = app.fwd.get();
	sh.n_lcores = static_cast<unsigned>(app.lcores.size());
	sh.port_index = app.port_index.data();
	sh.port_ids = static_cast<uint16_t>(app.port_index.size());
	sh.ports = static_cast<uint16_t>(app.port_id.size());
	sh.port_mac = app.port_mac.data();
	sh.port_multiseg = app.port_multiseg.data();
	sh.port_up = app.port_up.get();
	sh.pool = app.pool;
	sh.hdr_pool = app.hdr_pool;
	sh.ind_pool = app.ind_pool;
	sh.control_ring = app.control_ring;
	sh.rcu = app.rcu;
	sh.jobs = &app.jobs;
	sh.goat = &app.goat;
	sh.nr_clt_timeout_cycles = app.nr_clt_timeout_cycles;
	sh.quit = &app.quit;
	for (auto &lc : app.lcores)
		lc->shared = &sh;
}

/* The control thread and the lcores, until SIGINT / SIGTERM. */
void run(App &app, const std::vector<unsigned> &lcore_ids)
{
	share_with_lcores(app);
	/* The control plane runs on the CPUs the data path does not use
	 * (rte_ctrl_thread_create picks them); it sleeps when idle. */
	pthread_t control;
	if (rte_ctrl_thread_create(&control, "ina-control", nullptr,
				   [](void *a) -> void * {
					   control_loop(*static_cast<App *>(a));
					   return nullptr;
				   },
				   &app) != 0)
		fail(app, "cannot start the control-plane thread");
	for (size_t k = 1; k < lcore_ids.size(); k++)
		rte_eal_remote_launch(lcore_main, app.lcores[k].get(), lcore_ids[k]);
	lcore_main(app.lcores[0].get());
	rte_eal_mp_wait_lcore();
	pthread_join(control, nullptr);
}

} /* namespace */

/* main() without the last-resort catch. */
static int run_switchd(int argc, char **argv)
{
	CommandLine cl;
	const int rc = parse_command_line(argc, argv, &cl);
	if (rc >= 0)
		return rc;
	SwitchConfig cfg;
	try {
		cfg = load_config(cl.config_path);
	} catch (const ConfigError &e) {
		ina::print_error("ina-switchd", std::string("invalid config: ") + e.what());
		return ina::kExitUsage;
	}
	std::vector<std::string> eal = eal_arguments(argv[0], cl, cfg);
	std::vector<char *> eal_argv;
	for (std::string &s : eal)
		eal_argv.push_back(s.data());
	eal_argv.push_back(nullptr);
	if (rte_eal_init(static_cast<int>(eal.size()), eal_argv.data()) < 0) {
		std::string hint = has_arg(cl.eal_args, {"--no-huge"})
			? ""
			: " (without hugepages run: ina-switchd --no-huge -m 512 ... -- --config FILE)";
		die(std::string("DPDK EAL initialisation failed: ") + rte_strerror(rte_errno) + hint);
	}
	/* DPDK's packet capture: dpdk-dumpcap / dpdk-pdump, secondary
	 * processes, ask this one to copy a port's packets to them (RX/TX
	 * callbacks, installed only while they capture; docs/wire-tools.md). */
	if (rte_pdump_init() < 0)
		spdlog::warn("packet capture (rte_pdump) unavailable: {}", rte_strerror(rte_errno));

	auto app = std::make_unique<App>();
	signal_app = app.get();
	app->cfg = cfg;
	app->fwd = std::make_unique<ForwardingTable>(app->cfg);
	app->start_tsc = rte_rdtsc();
	app->gc_timeout_cycles = cfg.gc_timeout_ms * (rte_get_tsc_hz() / 1000);
	app->nr_clt_timeout_cycles = cfg.netreduce_clt_timeout_ms * (rte_get_tsc_hz() / 1000);
	std::string err = find_ports(*app);
	if (!err.empty())
		fail(*app, err);

	/* Lcores: every EAL lcore runs the data path, the main one included. */
	std::vector<unsigned> lcore_ids;
	unsigned lid;
	lcore_ids.push_back(rte_get_main_lcore());
	RTE_LCORE_FOREACH_WORKER(lid) lcore_ids.push_back(lid);
	const unsigned n = static_cast<unsigned>(lcore_ids.size());
	if (cfg.aggregators < n)
		fail(*app, "switch.aggregators (" + std::to_string(cfg.aggregators) + ") below the lcore count");
	for (size_t p = 0; p < app->port_id.size(); p++) {
		const int sock = rte_eth_dev_socket_id(app->port_id[p]);
		for (unsigned l : lcore_ids)
			if (sock >= 0 && rte_lcore_to_socket_id(l) != static_cast<unsigned>(sock))
				spdlog::warn("lcore {} is on NUMA node {} but port {} is on node {}: "
					     "packets cross the interconnect",
					     l, rte_lcore_to_socket_id(l), cfg.ports[p].name, sock);
	}
	create_pools(*app, n);
	create_lcores(*app, lcore_ids);
	app->port_up.reset(new std::atomic<uint8_t>[cfg.ports.size()]);
	for (size_t p = 0; p < cfg.ports.size(); p++)
		app->port_up[p].store(0);
	err = setup_ports(*app);
	if (!err.empty())
		fail(*app, err);
	connect_lcores(*app, lcore_ids);
	log_lcore_memory(*app);
	err = setup_control_tx(*app);
	if (!err.empty())
		fail(*app, err);

	app->jobs_owner = std::make_unique<JobTable>();
	app->jobs.store(app->jobs_owner.get());
	for (const JobConfig &j : cfg.jobs)
		register_job(*app, j, "config", 0, false);
	app->goat_owner = std::make_unique<GoatTable>();
	app->goat.store(app->goat_owner.get());
	for (const GoatJobConfig &g : cfg.goat) {
		const std::string e = install_goat(*app, g, "config");
		if (!e.empty())
			fail(*app, "goat: job " + std::to_string(g.job) + ": " + e);
	}
	register_telemetry(*app);
	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);

	std::string ports;
	for (size_t p = 0; p < cfg.ports.size(); p++)
		ports += fmt::format(" {}(port {})", cfg.ports[p].name, app->port_id[p]);
	spdlog::info("ina-switchd {} switch {} ip {}: {} lcore(s) [{}], {} aggregators x {} elements, "
		     "ports:{}, SIMD {}",
		     INA_VERSION_STRING, cfg.switch_id, ipv4_str(cfg.ip), n, join(lcore_ids),
		     cfg.aggregators, cfg.elements, ports, ina::simd_name(app->lcores[0]->table->simd()));
	spdlog::info("ready");

	run(*app, lcore_ids);
	log_final(*app);
	for (auto &lc : app->lcores)
		for (EgressQueue &e : lc->egress)
			e.flush();
	stop_ports(*app);
	/* The lcores' state is DPDK memory, which rte_eal_cleanup() unmaps:
	 * free it before, once telemetry can no longer read it. */
	stop_telemetry();
	app->lcores.clear();
	rte_pdump_uninit();
	rte_eal_cleanup();
	spdlog::info("stopped");
	return 0;
}

int main(int argc, char **argv)
{
	return ina::run_main("ina-switchd", [&] { return run_switchd(argc, argv); });
}
