/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The parameter server's runtime (what ina-ps runs; ps/tools/ina_ps.cpp is
 * its command line): the jobs served on one transport, registered with
 * their switches, and the statistics printed at the end.
 *
 * With N threads the fragments are split into N shards (ps_shard()), each
 * served by one thread with its own ParameterServer, so no fragment state is
 * shared. A thread with a receive queue of its own (the udp transport: one
 * SO_REUSEPORT socket per thread, steered by fragment in the kernel) serves
 * what arrives there; on a transport with one queue, thread 0 receives for
 * all, hands each frame to its shard's thread over a single-producer ring
 * (PsFrameRing) and sends the replies those threads hand back. Frames that
 * reach the wrong thread are handed over the same way. The control client
 * (registration with the switch) lives on thread 0 only.
 *
 * ps/src/daemon.cpp serves, ps/src/daemon_control.cpp registers,
 * ps/src/daemon_report.cpp prints.
 */
#ifndef INA_PS_DAEMON_H
#define INA_PS_DAEMON_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ina/control_client.h"
#include "ina/frame_ring.h"
#include "ina/ps.h"
#include "ina/ps_config.h"
#include "ina/transport.h"

namespace ina {

/* How the daemon serves (ina-ps's options that reach it). */
struct PsServeOptions {
	uint32_t threads = 1;             /* shards, one thread each */
	double duration = 0;              /* seconds; 0: until the stop flag */
	uint32_t register_interval_ms = 0; /* repeat the registration; 0: once */
	bool no_register = false;         /* no registration, no GOAT plans */
	bool quiet = false;               /* no progress line */
	std::string stats_file;           /* every job's counters, once a second (ina/stats_file.h) */
};

/* One serving thread: its shard of the fragments, its receive queue if it
 * has one, and the rings to and from the other threads. */
struct PsShard {
	static constexpr uint32_t kBatch = 64;

	uint32_t index;
	std::unique_ptr<ParameterServer> ps;
	Transport *io = nullptr; /* own receive (and send) queue, or none */
	TxQueue tx;
	std::vector<FrameBuf> view;
	std::vector<std::vector<uint8_t>> rxmem;
	std::vector<FrameBuf> rx;
	std::vector<PsFrameRing *> in;  /* frames handed to this shard */
	std::vector<PsFrameRing *> out; /* by destination shard; null: none */
	PsFrameRing *tx_ring = nullptr; /* without io: replies for thread 0 to send */
	Doorbell bell;
	/* Counters, read after the thread ended. */
	uint64_t rx_frames = 0;    /* received from its own queue */
	uint64_t handed_off = 0;   /* of those, handed to another shard */
	uint64_t handoff_full = 0; /* not handed over: the ring was full (dropped) */
	uint64_t taken = 0;        /* frames handed to it by other threads */
	uint64_t tx_lost = 0;
	double cpu_seconds = 0;

	PsShard(uint32_t i, uint32_t shards, const Endpoint &self, uint32_t max_workers, bool has_io);
	/* Sends (or hands to thread 0) what tx holds. */
	void flush_tx();
	/* Receives one batch from the own queue, waiting up to timeout_us. */
	uint32_t receive(uint32_t timeout_us);
	/* True while another thread still holds frames this one handed it. */
	bool handoff_busy() const;
};

/* The serving state: the shards on their transports, and the control
 * client. The caller keeps opts, jobs, transports and stop alive; `stop`
 * may be set from a signal handler and ends serve(). */
struct PsDaemon {
	const PsServeOptions &o;
	const std::vector<PsJobConfig> &jobs;
	std::vector<std::unique_ptr<Transport>> &transports;
	std::atomic<bool> &stop;
	uint32_t max_workers;
	ControlClient control;
	Endpoint self_;
	/* Each served job's fragment size as workers are told it (JOB_INFO);
	 * 0 until the path is known, when queries go unanswered and the
	 * workers ask again. */
	std::map<uint16_t, uint16_t> job_size;
	/* Each served job's epoch, set with its size: the one the shards
	 * stamp and require, and the one JOB_INFO tells the workers, so that
	 * the two never differ (a refresh's ACK renews it; control.epoch()
	 * follows the switch, this follows the run). */
	std::map<uint16_t, uint8_t> job_epoch;
	std::vector<std::unique_ptr<PsShard>> shards;
	std::set<uint16_t> epoch_warned; /* jobs check_epochs() reported */
	std::vector<std::unique_ptr<PsFrameRing>> rings;
	uint64_t last_completed = 0; /* the progress line's last reading */
	double last_s = 0;

	/* Thread 0 waits this long for new frames while others hold frames it
	 * handed them (serve_turn0()). */
	static constexpr uint32_t kBusyWaitUs = 50;

	PsDaemon(const PsServeOptions &opts, const std::vector<PsJobConfig> &jobs,
		 std::vector<std::unique_ptr<Transport>> &transports, const Endpoint &self, std::atomic<bool> &stop);

	/* Adds every job to every shard; false with *err on the first refused. */
	bool add_jobs(std::string *err);
	/* Registers every job with its switch and installs its GOAT
	 * assignments (unregister: removes them, then unregisters). False
	 * (after a message per request) if one was not applied. */
	bool control_all(bool unregister);
	/* After the registrations: each job's size and epoch to every shard
	 * and the query answers. -1 to go on, else the exit code. */
	int settle_jobs();
	/* Starts threads 1..N-1, runs thread 0 until `stop` or the duration,
	 * then stops and joins the others. */
	void serve(uint64_t start_us);

	ParameterServer &ps0() { return *shards[0]->ps; }
	const ParameterServer &ps0() const { return *shards[0]->ps; }
	/* The shards' counters, summed. */
	PsStats stats() const;
	PsJobStats job_stats(uint16_t id) const;
	uint64_t tx_lost() const;

	/* Serving (daemon.cpp). */
	bool answer_query(const RxFrame &rx, TxQueue &tx);
	void handle(PsShard &s, const RxFrame &rx, uint64_t now_ns);
	void dispatch(PsShard &s, uint32_t n, uint64_t now);
	uint32_t drain_in(PsShard &s, uint64_t now);
	void send_handed_back();
	void serve_turn0(uint64_t now);
	void serve_shard(PsShard &s);
	void receive_alone(uint32_t timeout_us);
	std::string progress_text(uint64_t elapsed_us);
	void write_stats(uint64_t elapsed_us);
	bool stats_warned = false;
	/* Registration (daemon_control.cpp). */
	void start_control(bool unregister, uint64_t now);
	void start_goat(bool remove, uint64_t now);
	void poll_control();
	bool wait_control(bool patient);
	void check_epochs();
	bool all_applied(bool unregister) const;
	void report(const PsJobConfig &c, bool unregister) const;
	void report_goat(const PsJobConfig &c, const PsGoatSwitch &g, bool remove) const;
};

/* The transports: one receive queue per thread where the transport has
 * them (udp, steered by ps_steering_program()), else one. Empty with *err
 * if none opened. */
std::vector<std::unique_ptr<Transport>> ps_open_queues(TransportConfig &tcfg, uint32_t threads,
						      const std::vector<PsJobConfig> &jobs, std::string *err);
/* This PS's own cap (docs/ps.md, "Fragment size"): a job that leaves
 * `elements` to the path takes the most a frame of `t` carries; one that
 * names more is refused. -1 to go on, else the exit code. */
int ps_size_for_interface(std::vector<PsJobConfig> &jobs, const std::string &device, const Transport &t);

/* The CPU time of the calling thread, of the process. */
double ps_thread_cpu_seconds();
double ps_process_cpu_seconds();
/* A clock in nanoseconds: the steady clock for intervals, the system
 * clock for control-message counters (docs/protocol.md). */
template <typename Clock> uint64_t ps_clock_ns()
{
	return static_cast<uint64_t>(
		std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
}
/* The steady clock in microseconds. */
uint64_t ps_now_us();

/* What the daemon serves, on stdout: each job's epoch, fragment size and
 * GOAT switches, then the serving line. */
void ps_print_plan(const PsDaemon &d, uint32_t threads);
/* The statistics as one JSON object, or for people (a summary per job,
 * then its nonzero counters, then per thread). */
void ps_print_json(const PsDaemon &d, uint32_t ip, uint64_t start_us, double cpu_seconds);
void ps_print_text(const PsDaemon &d, uint64_t start_us, double cpu_seconds);

} /* namespace ina */

#endif /* INA_PS_DAEMON_H */
