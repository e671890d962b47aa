/* SPDX-License-Identifier: BSD-3-Clause
 *
 * End to end: the real ina-ps daemon and a minimal two-worker sender over
 * real sockets, without a switch (workers -> PS directly, unicast ACKs):
 *   - UDP on loopback, with 1% loss, duplication and reordering injected by
 *     the fault shim at the workers in both directions;
 *   - AF_PACKET (or AF_XDP when auto picks it) on a veth pair in a network
 *     namespace this test creates.
 * Every fragment must come back with the exact int32 sum; one fragment
 * overflows at the PS and must come back as float sums through the float
 * request / answer exchange of docs/ps.md.
 *
 * Every case runs with ina-ps --threads 1, 2 and 5 (more threads than this
 * machine's CPUs): the sums, dedupe, resends and the float path must not
 * depend on how the fragments are spread over threads.
 */
#include <gtest/gtest.h>

#include <regex>

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <map>
#include <sstream>

#include "ina/codec.h"
#include "ina/hash.h"
#include "ina/transport.h"
#include "ina/transport_faults.h"
#include "ina/wire.h"
#include "../transport/test_netns.h"
#include "../transport/test_util.h"
#include "ps_test_util.h"

using namespace ina;
using namespace ina_test;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint16_t kJob = 11;
constexpr uint16_t kElems = 62;
constexpr uint32_t kAggregators = 4096;
constexpr uint32_t kOverflowSeq = 77;

int32_t grad(uint32_t w, uint32_t seq, uint32_t k, bool overflow = true)
{
	if (overflow && seq == kOverflowSeq && k == 0)
		return 2000000000; /* 2 x 2e9 saturates int32 at the PS */
	return int32_t((seq * 7 + k) * (w + 1)) - 1000;
}
float grad_float(uint32_t w, uint32_t k) { return 0.5f * float(w + 1) + float(k); }

/* The ina-ps process, with its stdout on a pipe. */
struct Daemon {
	pid_t pid = -1;
	int out = -1;
	std::string text;

	bool start(const std::vector<std::string> &args)
	{
		const char *exe = getenv("INA_PS");
		if (!exe)
			return false;
		int p[2];
		if (pipe(p) != 0)
			return false;
		pid = fork();
		if (pid == 0) {
			dup2(p[1], 1);
			close(p[0]);
			std::vector<char *> argv{const_cast<char *>(exe)};
			for (auto &a : args)
				argv.push_back(const_cast<char *>(a.c_str()));
			argv.push_back(nullptr);
			execv(exe, argv.data());
			_exit(127);
		}
		close(p[1]);
		out = p[0];
		/* Ready once it prints its "serving" line. */
		return read_until("serving", 5000);
	}
	bool read_until(const char *what, int ms)
	{
		auto until = Clock::now() + std::chrono::milliseconds(ms);
		while (text.find(what) == std::string::npos && Clock::now() < until) {
			struct pollfd pfd = {out, POLLIN, 0};
			if (poll(&pfd, 1, 50) <= 0)
				continue;
			char buf[4096];
			ssize_t n = read(out, buf, sizeof(buf));
			if (n <= 0)
				break;
			text.append(buf, size_t(n));
		}
		return text.find(what) != std::string::npos;
	}
	/* SIGINT, then everything it printed; -1 exit code on timeout. */
	int stop()
	{
		if (pid <= 0)
			return -1;
		kill(pid, SIGINT);
		int status = 0;
		for (int i = 0; i < 500; i++) {
			if (waitpid(pid, &status, WNOHANG) == pid) {
				pid = -1;
				break;
			}
			usleep(10000);
		}
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			pid = -1;
			return -1;
		}
		read_until("\x01never", 200);
		return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	~Daemon()
	{
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, nullptr, 0);
		}
		if (out >= 0)
			close(out);
	}
};

struct WorkerSide {
	Transport *t;
	Endpoint self;
};

/* Two workers: sliding window of fragments, resend on timeout, answer
 * float requests; checks every ACK's payload. */
struct MiniJob {
	std::vector<WorkerSide> w;
	Endpoint ps;
	uint32_t fragments;
	uint32_t window = 64;
	std::chrono::microseconds rto{4000};

	struct State {
		std::vector<Clock::time_point> sent;
		std::vector<uint8_t> acked;
		uint32_t next = 0, done = 0;
	};
	std::vector<State> st;
	uint64_t wrong = 0, float_acks = 0, requests = 0, resends = 0, in_network_marks = 0;
	uint32_t rx_from = 0; /* the worker whose transport delivered the frame */
	Endpoint next_hop{}; /* gradients' destination MAC when set (the switch) */
	bool via_switch = false;
	bool overflow = true; /* fragment kOverflowSeq saturates int32 */
	uint8_t epoch = 0;    /* the run's epoch, as the PS got it from the switch */

	void send_frag(uint32_t wi, uint32_t seq, uint16_t flags, bool floats)
	{
		Pkt p;
		p.job = kJob;
		p.seq = seq;
		p.index = aggregator_index(kJob, seq, kAggregators);
		p.flags = ina_flags_with_epoch(flags, epoch);
		p.levels = 1;
		p.bitmap[0] = 1u << wi;
		p.fan_in[0] = 2;
		for (uint32_t k = 0; k < kElems; k++) {
			if (floats)
				p.floats.push_back(grad_float(wi, k));
			else
				p.values.push_back(grad(wi, seq, k, overflow));
		}
		std::vector<uint8_t> f = build(p);
		Endpoint src = w[wi].self;
		src.port = steering_src_port(p.index);
		Endpoint dst = ps;
		if (via_switch)
			memcpy(dst.mac, next_hop.mac, 6);
		write_frame_headers(f.data(), src, dst, uint32_t(f.size() - INA_L2L3L4_LEN));
		FrameBuf fb{f.data(), uint32_t(f.size()), uint32_t(f.size())};
		for (int i = 0; i < 1000 && w[wi].t->send(&fb, 1) == 0; i++)
			usleep(100);
	}

	void on_frame(const uint8_t *f, uint32_t len)
	{
		Out o = parse(f, len);
		bool shared = w.size() > 1 && w[0].t == w[1].t;
		for (uint32_t wi = 0; wi < w.size(); wi++) {
			/* A group copy on a worker's own port is that worker's. */
			bool mine = o.dst.ip == w[wi].self.ip || (!shared && o.dst.ip == job_group(kJob) && rx_from == wi);
			if (!mine || o.job != kJob || o.seq >= fragments)
				continue;
			if (!(o.flags & INA_F_ACK)) {
				if ((o.flags & INA_F_OVERFLOW) && !(o.flags & INA_F_FLOAT)) {
					requests++;
					send_frag(wi, o.seq, INA_F_FLOAT | INA_F_RESEND | INA_F_BYPASS, true);
				}
				continue;
			}
			State &s = st[wi];
			if (s.acked[o.seq])
				continue;
			bool ok = o.elems == kElems;
			for (uint32_t k = 0; ok && k < kElems; k++) {
				if (o.flags & INA_F_FLOAT)
					ok = o.floats[k] == grad_float(0, k) + grad_float(1, k);
				else
					ok = o.values[k] == grad(0, o.seq, k, overflow) + grad(1, o.seq, k, overflow);
			}
			if (overflow && o.seq == kOverflowSeq)
				ok = ok && (o.flags & INA_F_FLOAT) && (o.flags & INA_F_OVERFLOW);
			wrong += !ok;
			float_acks += (o.flags & INA_F_FLOAT) != 0;
			in_network_marks += o.level != 0;
			s.acked[o.seq] = 1;
			s.done++;
		}
	}

	/* Runs until both workers have every ACK or `ms` passed. */
	bool run(int ms)
	{
		st.assign(w.size(), State{});
		for (auto &s : st) {
			s.sent.assign(fragments, Clock::time_point{});
			s.acked.assign(fragments, 0);
		}
		std::vector<Buf> bufs(32);
		std::vector<FrameBuf> fbs(32);
		auto until = Clock::now() + std::chrono::milliseconds(ms);
		while (Clock::now() < until) {
			bool all = true;
			for (uint32_t wi = 0; wi < w.size(); wi++) {
				State &s = st[wi];
				all = all && s.done == fragments;
				auto now = Clock::now();
				/* Oldest unACKed defines the window. */
				uint32_t base = 0;
				while (base < fragments && s.acked[base])
					base++;
				while (s.next < fragments && s.next < base + window) {
					send_frag(wi, s.next, 0, false);
					s.sent[s.next++] = now;
				}
				for (uint32_t q = base; q < s.next; q++) {
					if (!s.acked[q] && now - s.sent[q] > rto) {
						send_frag(wi, q, INA_F_RESEND, false);
						s.sent[q] = now;
						resends++;
					}
				}
			}
			if (all)
				return true;
			for (uint32_t wi = 0; wi < w.size(); wi++) {
				/* Workers sharing one transport: poll it once. */
				if (wi > 0 && w[wi].t == w[0].t)
					continue;
				/* Take everything queued, so that a slow sender
				 * (sanitizers) never lets its socket overflow. */
				rx_from = wi;
				uint32_t timeout = 500;
				for (int round = 0; round < 256; round++) {
					for (uint32_t i = 0; i < fbs.size(); i++)
						fbs[i] = bufs[i].fb;
					uint32_t n = w[wi].t->recv(fbs.data(), uint32_t(fbs.size()), timeout);
					for (uint32_t i = 0; i < n; i++)
						on_frame(fbs[i].data, fbs[i].len);
					if (n == 0)
						break;
					timeout = 0;
				}
			}
		}
		return false;
	}
};

std::string write_job_file(const std::string &dir, const Endpoint w[2], const char *switch_toml = nullptr)
{
	std::string path = dir + "/ps-e2e-job.toml";
	std::ofstream f(path);
	auto ip = [](uint32_t a) {
		return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." +
		       std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255);
	};
	auto mac = [](const uint8_t *m) {
		char b[32];
		snprintf(b, sizeof(b), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
		return std::string(b);
	};
	f << "id = " << kJob << "\nelements = " << kElems << "\naggregators = " << kAggregators
	  << "\nwindow = 1024\nlevels = 1\nfan_in = [2]\n";
	if (switch_toml)
		f << switch_toml; /* [switch]: multicast ACKs */
	else
		f << "ack = \"unicast\"\n";
	/* A worker without a MAC (the udp transport) has no `mac` key: the
	 * job file takes only a host's MAC, never all zero. */
	static const uint8_t none[6] = {};
	for (int i = 0; i < 2; i++)
		f << "[[worker]]\nip = \"" << ip(w[i].ip) << "\"\n"
		  << (memcmp(w[i].mac, none, 6) ? "mac = \"" + mac(w[i].mac) + "\"\n" : std::string())
		  << "bit = [" << i << "]\n";
	return path;
}

/* Temporary directories of this process, removed at exit. */
struct TempDirs {
	std::vector<std::string> dirs;
	~TempDirs()
	{
		std::error_code ec;
		for (auto &d : dirs)
			std::filesystem::remove_all(d, ec);
	}
} g_temp_dirs;

std::string temp_dir()
{
	char tmpl[] = "/tmp/ina-ps-e2e-XXXXXX";
	const char *d = mkdtemp(tmpl);
	if (!d)
		return "/tmp";
	g_temp_dirs.dirs.push_back(d);
	return d;
}

nlohmann::json daemon_json(const std::string &out)
{
	size_t brace = out.find('{');
	if (brace == std::string::npos)
		return {};
	auto j = nlohmann::json::parse(out.substr(brace), nullptr, false);
	return j.is_discarded() ? nlohmann::json{} : j;
}

/* The threads' share of the work: every thread served fragments, and with
 * a queue per thread (kernel steering) none was handed between threads;
 * with one queue, thread 0 handed the others theirs. Nothing was dropped
 * for a full hand-off ring. */
void expect_threads(const std::string &out, uint32_t threads, bool queue_per_thread)
{
	auto d = daemon_json(out);
	ASSERT_FALSE(d.is_null()) << out;
	ASSERT_EQ(d["threads"], threads) << out;
	ASSERT_EQ(d["per_thread"].size(), threads);
	EXPECT_EQ(d["queues"], queue_per_thread ? threads : 1u) << out;
	EXPECT_GT(d["cpu_us_per_fragment"].get<double>(), 0.0);
	uint64_t handed = 0;
	for (uint32_t t = 0; t < threads; t++) {
		const auto &pt = d["per_thread"][t];
		EXPECT_EQ(pt["handoff_full"], 0u) << out;
		handed += pt["handed_off"].get<uint64_t>();
		if (queue_per_thread) {
			EXPECT_GT(pt["rx"].get<uint64_t>(), 0u) << "thread " << t << "\n" << out;
		} else if (t > 0) {
			EXPECT_GT(pt["taken"].get<uint64_t>(), 0u) << "thread " << t << "\n" << out;
		}
	}
	if (threads > 1 && !queue_per_thread) {
		EXPECT_GT(handed, 0u) << out;
	}
	if (queue_per_thread) {
		EXPECT_EQ(handed, 0u) << out; /* the kernel put each fragment on its thread */
	}
	EXPECT_EQ(d["jobs"][0]["other_shard"], 0u) << out;
}

class PsE2eThreads : public ::testing::TestWithParam<uint32_t> {};

nlohmann::json job_json(const std::string &out)
{
	size_t brace = out.find('{');
	if (brace == std::string::npos)
		return {};
	auto j = nlohmann::json::parse(out.substr(brace), nullptr, false);
	if (j.is_discarded() || !j.contains("jobs"))
		return {};
	return j["jobs"][0];
}

} // namespace

TEST_P(PsE2eThreads, LoopbackUdpWithLossDuplicationReordering)
{
	const std::string threads = std::to_string(GetParam());
	ASSERT_NE(getenv("INA_PS"), nullptr) << "INA_PS must name the ina-ps binary";
	uint32_t pid = static_cast<uint32_t>(getpid()) & 0xFFFF;
	uint32_t net = (127u << 24) | (pid << 8);
	Endpoint wep[2] = {{{0}, net | 2, INA_UDP_PORT}, {{0}, net | 3, INA_UDP_PORT}};
	Endpoint ps{{0}, net | 1, INA_UDP_PORT};
	std::string dir = temp_dir();
	std::string job = write_job_file(dir, wep);

	Daemon d;
	ASSERT_TRUE(d.start({"--job", job, "--transport", "udp", "--ip", "127." + std::to_string(pid >> 8) + "." +
						     std::to_string(pid & 255) + ".1", "--json", "--threads", threads}))
		<< d.text;

	std::vector<std::unique_ptr<Transport>> ts;
	MiniJob mj;
	for (int i = 0; i < 2; i++) {
		TransportConfig c;
		c.kind = "udp";
		c.ip = wep[i].ip;
		c.drop = 0.01;
		c.duplicate = 0.01;
		c.reorder = 0.01;
		c.seed = 100 + i;
		std::string err;
		ts.push_back(open_transport(c, &err));
		ASSERT_TRUE(ts.back()) << err;
		mj.w.push_back({ts.back().get(), wep[i]});
	}
	mj.ps = ps;
	mj.fragments = 3000;
	auto t0 = Clock::now();
	bool finished = mj.run(60000);
	double secs = std::chrono::duration<double>(Clock::now() - t0).count();
	int rc = d.stop();
	ASSERT_TRUE(finished) << "acked " << mj.st[0].done << " / " << mj.st[1].done << "\n" << d.text;
	EXPECT_EQ(rc, 0);
	EXPECT_EQ(mj.wrong, 0u);
	EXPECT_EQ(mj.float_acks, 2u); /* the overflow fragment, at both workers */
	EXPECT_GE(mj.requests, 2u);
	EXPECT_EQ(mj.in_network_marks, 0u);
	FaultStats fs;
	ASSERT_TRUE(fault_stats(*ts[0], &fs));
	EXPECT_GT(fs.tx.dropped + fs.rx.dropped, 0u);
	EXPECT_GT(fs.tx.duplicated, 0u);

	auto j = job_json(d.text);
	ASSERT_FALSE(j.is_null()) << d.text;
	EXPECT_EQ(j["completed"], mj.fragments);
	EXPECT_EQ(j["completed_at_ps"], mj.fragments);
	EXPECT_EQ(j["overflows"], 1);
	EXPECT_EQ(j["ps_overflows"], 1);
	EXPECT_GT(j["duplicates"].get<uint64_t>() + j["after_done"].get<uint64_t>(), 0u);
	EXPECT_GT(j["retransmits"].get<uint64_t>(), 0u);
	EXPECT_EQ(j["stale"], 0);
	EXPECT_EQ(j["evicted_incomplete"], 0);
	expect_threads(d.text, GetParam(), true);
	printf("loopback udp, 1%% faults, %s thread(s): %u fragments x 2 workers in %.2f s (%.0f fragments/s), "
	       "%lu worker resends, %lu float requests seen\n",
	       threads.c_str(), mj.fragments, secs, mj.fragments / secs, (unsigned long)mj.resends,
	       (unsigned long)mj.requests);
}

TEST_P(PsE2eThreads, VethFramesWithoutSwitch)
{
	const std::string threads = std::to_string(GetParam());
	ASSERT_NE(getenv("INA_PS"), nullptr);
	std::string why = enter_netns();
	if (!why.empty())
		GTEST_SKIP() << why;
	VethPair veth("pe", "10.78.0.1", "10.78.0.2"); /* a: the PS's end, b: the workers' */
	ASSERT_EQ(veth.error(), "");
	TransportConfig wc;
	wc.kind = "af_packet";
	wc.device = veth.b();
	std::string err;
	auto wt = open_transport(wc, &err);
	ASSERT_TRUE(wt) << err;
	Endpoint wep[2];
	for (int i = 0; i < 2; i++) {
		wt->mac(wep[i].mac);
		wep[i].ip = (10u << 24) | (78u << 16) | uint32_t(10 + i);
		wep[i].port = INA_UDP_PORT;
	}
	std::string dir = temp_dir();
	std::string job = write_job_file(dir, wep);
	Daemon d;
	ASSERT_TRUE(d.start({"--job", job, "--transport", "auto", "--device", veth.a(), "--json", "--threads", threads})) << d.text;

	MiniJob mj;
	mj.w = {{wt.get(), wep[0]}, {wt.get(), wep[1]}};
	mj.ps = Endpoint{{2, 0, 0, 0x77, 0, 1}, (10u << 24) | (78u << 16) | 1u, INA_UDP_PORT};
	/* The PS's MAC: VethPair gives the first end 02:00:00:77:00:01
	 * (set in mj.ps above). */
	mj.fragments = 3000;
	auto t0 = Clock::now();
	bool finished = mj.run(60000);
	double secs = std::chrono::duration<double>(Clock::now() - t0).count();
	int rc = d.stop();
	ASSERT_TRUE(finished) << "acked " << mj.st[0].done << " / " << mj.st[1].done << "\n" << d.text;
	EXPECT_EQ(rc, 0);
	EXPECT_EQ(mj.wrong, 0u);
	EXPECT_EQ(mj.float_acks, 2u);
	auto j = job_json(d.text);
	ASSERT_FALSE(j.is_null()) << d.text;
	EXPECT_EQ(j["completed"], mj.fragments);
	EXPECT_EQ(j["overflows"], 1);
	std::string transport = nlohmann::json::parse(d.text.substr(d.text.find('{')))["transport"];
	expect_threads(d.text, GetParam(), false);
	printf("veth, PS on %s, %s thread(s): %u fragments x 2 workers in %.2f s (%.0f fragments/s)\n",
	       transport.c_str(), threads.c_str(), mj.fragments, secs, mj.fragments / secs);
}

namespace {

/* A child process with stdout and stderr in a file. */
struct LoggedProc {
	pid_t pid = -1;
	std::string log;
	bool start(const std::string &exe, const std::vector<std::string> &args, const std::string &log_path)
	{
		log = log_path;
		pid = fork();
		if (pid == 0) {
			int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(fd, 1);
			dup2(fd, 2);
			std::vector<char *> argv{const_cast<char *>(exe.c_str())};
			for (auto &a : args)
				argv.push_back(const_cast<char *>(a.c_str()));
			argv.push_back(nullptr);
			execv(exe.c_str(), argv.data());
			_exit(127);
		}
		return pid > 0;
	}
	std::string output() const
	{
		std::ifstream f(log);
		std::stringstream ss;
		ss << f.rdbuf();
		return ss.str();
	}
	bool wait_for(const std::string &what, int ms) const
	{
		auto until = Clock::now() + std::chrono::milliseconds(ms);
		while (Clock::now() < until) {
			if (output().find(what) != std::string::npos)
				return true;
			if (waitpid(pid, nullptr, WNOHANG) == pid)
				return false;
			usleep(50000);
		}
		return false;
	}
	int stop()
	{
		if (pid <= 0)
			return -1;
		kill(pid, SIGINT);
		int status = 0;
		for (int i = 0; i < 1000; i++) {
			if (waitpid(pid, &status, WNOHANG) == pid) {
				pid = -1;
				return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			}
			usleep(10000);
		}
		kill(pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		pid = -1;
		return -1;
	}
	~LoggedProc()
	{
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, nullptr, 0);
		}
	}
};

} // namespace

/* A real ina-switchd (net_af_packet on sw0..sw2) in this test's network
 * namespace, h0/h1 the workers' ends, h2 the PS's (10.0.0.100), with the
 * control key both read. */
struct SwitchdLab {
	std::string dir, prefix;
	LoggedProc sw;
	~SwitchdLab()
	{
		sw.stop();
		std::error_code ec;
		if (!prefix.empty())
			std::filesystem::remove_all("/var/run/dpdk/" + prefix, ec);
	}
};

/* Starts it (GTEST_SKIP without switchd or a namespace). */
void start_switchd_lab(SwitchdLab *lab)
{
	const char *switchd = getenv("INA_SWITCHD");
	if (!switchd || access(switchd, X_OK) != 0)
		GTEST_SKIP() << "ina-switchd not built (INA_SWITCHD unset)";
	ASSERT_NE(getenv("INA_PS"), nullptr);
	std::string why = enter_netns();
	if (!why.empty())
		GTEST_SKIP() << why;
	const char *macs[3] = {"02:00:00:00:00:01", "02:00:00:00:00:02", "02:00:00:00:00:64"};
	for (int i = 0; i < 3; i++) {
		std::string cmd = "ip link add h" + std::to_string(i) + " address " + macs[i] +
				  " type veth peer name sw" + std::to_string(i) + " && ip link set h" +
				  std::to_string(i) + " up && ip link set sw" + std::to_string(i) +
				  " up && sysctl -qw net.ipv6.conf.h" + std::to_string(i) +
				  ".disable_ipv6=1 && sysctl -qw net.ipv6.conf.sw" + std::to_string(i) +
				  ".disable_ipv6=1";
		ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
	}
	lab->dir = temp_dir();
	const std::string &dir = lab->dir;
	{
		/* The control key both switchd and the PS read (docs/security.md). */
		std::ofstream k(dir + "/control.key");
		k << "4f2a9c0e7d11b3a85e6f0c2d9b7a4e1f0a3c5e7f9b1d3f5a7c9e0b2d4f6a8c0e\n";
		k.close();
		std::filesystem::permissions(dir + "/control.key", std::filesystem::perms::owner_read |
									     std::filesystem::perms::owner_write);
		std::ofstream c(dir + "/switchd.toml");
		c << "[switch]\nid = 1\nip = \"10.0.0.254\"\nmac = \"02:00:00:00:00:fe\"\naggregators = "
		  << kAggregators << "\nelements = 62\nlcores = [0]\nstats_interval_s = 60\nidle_sleep_us = 50\n"
		  << "control_key_file = \"control.key\"\n";
		const char *ips[3] = {"10.0.0.1", "10.0.0.2", "10.0.0.100"};
		for (int i = 0; i < 3; i++)
			c << "\n[[port]]\ndevice = \"net_af_packet" << i << ",iface=sw" << i
			  << "\"\n[[port.neighbour]]\nip = \"" << ips[i] << "\"\nmac = \"" << macs[i] << "\"\n";
	}
	lab->prefix = "psswd" + std::to_string(getpid());
	ASSERT_TRUE(lab->sw.start(switchd,
				  {"--no-huge", "-m", "256", "--file-prefix", lab->prefix, "--log-level",
				   "lib.eal:notice", "--", "--config", dir + "/switchd.toml"},
				  dir + "/switchd.log"));
	ASSERT_TRUE(lab->sw.wait_for("] ready", 30000)) << lab->sw.output();
}

/*
 * Through a real ina-switchd (rack scale, levels = 1): switchd owns sw0..sw2
 * (net_af_packet), worker 0 on h0, worker 1 on h1, the PS on h2. The job is
 * not in switchd's config: ina-ps registers it with the control message.
 * Gradients are aggregated in the switch, the PS multicasts the parameter
 * packets back through it.
 */
void run_through_switchd(double faults, uint32_t threads)
{
	SwitchdLab lab;
	start_switchd_lab(&lab);
	if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped())
		return;
	const std::string &dir = lab.dir;
	LoggedProc &sw = lab.sw;

	Endpoint wep[2] = {{{2, 0, 0, 0, 0, 1}, (10u << 24) | 1u, INA_UDP_PORT},
			   {{2, 0, 0, 0, 0, 2}, (10u << 24) | 2u, INA_UDP_PORT}};
	std::string job = write_job_file(dir, wep,
					 "[switch]\nip = \"10.0.0.254\"\nmac = \"02:00:00:00:00:fe\"\n"
					 "control_key_file = \"control.key\"\n");
	Daemon d;
	ASSERT_TRUE(d.start({"--job", job, "--transport", "af_packet", "--device", "h2", "--ip", "10.0.0.100",
			     "--register-interval-ms", "500", "--json", "--threads", std::to_string(threads)}))
		<< d.text;
	/* The registration's ACK gives the run its epoch, which ina-ps prints
	 * before "serving" and every gradient of the run carries. */
	std::smatch m;
	ASSERT_TRUE(std::regex_search(d.text, m, std::regex("ina-ps: job \\d+ epoch (\\d+)")))
		<< "ina-ps printed no epoch:\n" << d.text;
	usleep(300000); /* the registration reaches switchd's control plane */

	std::vector<std::unique_ptr<Transport>> ts;
	MiniJob mj;
	for (int i = 0; i < 2; i++) {
		TransportConfig c;
		c.kind = "af_packet";
		c.device = "h" + std::to_string(i);
		c.ip = wep[i].ip;
		c.drop = c.duplicate = c.reorder = faults;
		c.seed = 7 + i;
		std::string err;
		ts.push_back(open_transport(c, &err));
		ASSERT_TRUE(ts.back()) << err;
		mj.w.push_back({ts.back().get(), wep[i]});
	}
	mj.ps = Endpoint{{2, 0, 0, 0, 0, 0x64}, (10u << 24) | 100u, INA_UDP_PORT};
	mj.via_switch = true;
	mj.epoch = static_cast<uint8_t>(std::stoi(m[1].str()));
	uint8_t swmac[6] = {2, 0, 0, 0, 0, 0xFE};
	memcpy(mj.next_hop.mac, swmac, 6);
	mj.fragments = 2000;
	mj.rto = std::chrono::microseconds(50000);
	/* No overflow here: switchd's admission drops the PS's float requests
	 * (non-ACK INA packets whose source is not a worker of the job); the
	 * overflow path is covered by the tests without a switch. */
	mj.overflow = false;
	auto t0 = Clock::now();
	bool finished = mj.run(90000);
	double secs = std::chrono::duration<double>(Clock::now() - t0).count();
	int rc = d.stop();
	int src = sw.stop();
	ASSERT_TRUE(finished) << "acked " << mj.st[0].done << " / " << mj.st[1].done << "\n"
			      << d.text << "\n" << sw.output();
	EXPECT_EQ(rc, 0);
	EXPECT_EQ(src, 0) << sw.output();
	EXPECT_EQ(mj.wrong, 0u);
	EXPECT_EQ(mj.float_acks, 0u);
	auto j = job_json(d.text);
	ASSERT_FALSE(j.is_null()) << d.text;
	EXPECT_EQ(j["completed"], mj.fragments);
	EXPECT_EQ(j["overflows"], 0);
	uint64_t in_net = j["completed_in_network"];
	if (faults == 0) {
		/* Without loss every fragment is aggregated in the switch. */
		EXPECT_EQ(in_net, mj.fragments) << d.text;
		EXPECT_EQ(mj.resends, 0u);
	} else {
		/* Lost and resent fragments finish at the PS. */
		EXPECT_GT(j["completed_at_ps"].get<uint64_t>(), 0u) << d.text;
		EXPECT_GE(in_net, mj.fragments / 2) << d.text;
	}
	EXPECT_EQ(mj.in_network_marks / 2, in_net);
	expect_threads(d.text, threads, false);
	printf("through ina-switchd, %.0f%% faults, %u thread(s): %u fragments x 2 workers in %.2f s (%.0f fragments/s), "
	       "%lu aggregated in the switch (%.1f%%), %lu worker resends\n",
	       faults * 100, threads, mj.fragments, secs, mj.fragments / secs, (unsigned long)in_net,
	       100.0 * in_net / mj.fragments, (unsigned long)mj.resends);
}

TEST_P(PsE2eThreads, ThroughSwitchdWithRegistration) { run_through_switchd(0, GetParam()); }

/* 1% loss, duplication and reordering at both workers, both directions:
 * the switch's resend handling and the PS's partial aggregation together. */
TEST_P(PsE2eThreads, ThroughSwitchdWithFaults) { run_through_switchd(0.01, GetParam()); }

INSTANTIATE_TEST_SUITE_P(PsE2e, PsE2eThreads, ::testing::Values(1u, 2u, 5u),
			 [](const ::testing::TestParamInfo<uint32_t> &i) {
				 return "threads" + std::to_string(i.param);
			 });

/*
 * GOAT (docs/goat.md, "Installing a plan"): ina-ps with a [goat] plan sends
 * the switch its part by control message after the registration, and
 * removes it at exit; a part the switch refuses (ranges beyond its table)
 * makes ina-ps exit 1 with one line naming the switch.
 */
TEST(PsE2eGoat, PlanInstalledAndRemovedThroughSwitchd)
{
	SwitchdLab lab;
	start_switchd_lab(&lab);
	if (HasFatalFailure() || IsSkipped())
		return;
	const std::string &dir = lab.dir;
	{
		std::ofstream p(dir + "/plan.json");
		p << R"({"plan": {"switches": [{"name": "s1", "id": 1, "submodels": ["a"]}],
			"submodels": [{"name": "a", "first_element": 0, "end_element": 620},
				      {"name": "b", "first_element": 620, "end_element": 1240}],
			"workers": [)";
		for (int w = 0; w < 2; w++)
			p << (w ? "," : "") << R"({"name": "w)" << w << R"(", "ranges": [
				{"submodel": "a", "first_element": 0, "end_element": 620, "agg_node": 1},
				{"submodel": "b", "first_element": 620, "end_element": 1240, "agg_node": 0}]})";
		p << "]}}\n";
	}
	Endpoint wep[2] = {{{2, 0, 0, 0, 0, 1}, (10u << 24) | 1u, INA_UDP_PORT},
			   {{2, 0, 0, 0, 0, 2}, (10u << 24) | 2u, INA_UDP_PORT}};
	const char *sw_toml = "[switch]\nip = \"10.0.0.254\"\nmac = \"02:00:00:00:00:fe\"\n"
			      "control_key_file = \"control.key\"\nregister_timeout_ms = 2000\n";
	auto job_with = [&](const std::string &aggregators) {
		const std::string job = write_job_file(dir, wep, sw_toml);
		std::ofstream f(job, std::ios::app);
		f << "\n[goat]\nplan = \"plan.json\"\n[[goat.switch]]\nid = 1\nip = \"10.0.0.254\"\n"
		  << "mac = \"02:00:00:00:00:fe\"\naggregators = " << aggregators << "\n";
		return job;
	};
	const std::vector<std::string> ps_args = {"--transport", "af_packet", "--device", "h2", "--ip", "10.0.0.100"};

	std::vector<std::string> args = {"--job", job_with("[[100, 300]]")};
	args.insert(args.end(), ps_args.begin(), ps_args.end());
	Daemon d;
	ASSERT_TRUE(d.start(args)) << d.text;
	EXPECT_NE(d.text.find("ina-ps: job 11 GOAT switch 1 (10.0.0.254): a in [100, 300)"), std::string::npos)
		<< d.text;
	EXPECT_TRUE(lab.sw.wait_for("job 11: GOAT assignment (control message from 10.0.0.100): switch 1 "
				    "aggregates aggregators [100, 300)",
				    3000))
		<< lab.sw.output();
	EXPECT_EQ(d.stop(), 0) << d.text;
	EXPECT_TRUE(lab.sw.wait_for("switch 1 aggregates nothing (removed)", 3000)) << lab.sw.output();

	/* Beyond the switch's 4096 aggregators: invalid, one line, exit 1. */
	std::string cmd = std::string(getenv("INA_PS")) + " --job " + job_with("[[0, 5000]]");
	for (const std::string &a : ps_args)
		cmd += " " + a;
	FILE *p = popen((cmd + " 2>&1").c_str(), "r");
	ASSERT_NE(p, nullptr);
	std::string out;
	char buf[512];
	while (fgets(buf, sizeof(buf), p))
		out += buf;
	const int status = pclose(p);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << out;
	EXPECT_NE(out.find("ina-ps: job 11: switch 1 (10.0.0.254) rejected as invalid (ranges beyond its table or "
			   "another job's) the GOAT assignment"),
		  std::string::npos)
		<< out;
	EXPECT_EQ(out.find("serving"), std::string::npos) << "nothing served without the plan installed";
}
