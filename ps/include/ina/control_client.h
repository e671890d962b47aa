/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The PS side of the control protocol (docs/protocol.md): registers or
 * unregisters jobs with their switch, installs or removes their GOAT
 * assignments on the switches of their plan (docs/goat.md), and resends each
 * request, with a fresh counter and exponential backoff, until the switch
 * acknowledges it or a timeout passes. No I/O and no clock of its own: the caller feeds it
 * the time and the frames it receives and sends what it writes, so tests
 * drive it directly.
 */
#ifndef INA_CONTROL_CLIENT_H
#define INA_CONTROL_CLIENT_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ina/codec.h"
#include "ina/ps.h"

namespace ina {

/* Writes the (signed, if the job has a key) control frame of `job` for its
 * switch; returns its length, 0 if the job has no switch or `cap` is too
 * small. */
uint32_t build_ctrl_request(const PsJobConfig &job, const Endpoint &self, bool unregister,
			    uint64_t counter, uint8_t *out, uint32_t cap);
/* The same for a REGISTER that renews the run `epoch` (the epoch an earlier
 * ACK gave; 0: a new run, docs/protocol.md "Epochs"). */
uint32_t build_ctrl_request(const PsJobConfig &job, const Endpoint &self, bool unregister,
			    uint64_t counter, uint8_t epoch, uint8_t *out, uint32_t cap);

/* The same for the GOAT assignment of `job` on its plan's switch `sw`
 * (remove: no ranges). */
uint32_t build_goat_request(const PsJobConfig &job, const PsGoatSwitch &sw, const Endpoint &self, bool remove,
			    uint64_t counter, uint8_t *out, uint32_t cap);

/* A worker's JOB_QUERY addressed to `self` (docs/protocol.md, "Fragment
 * size"): true with the job asked about in *job. `rx`: the received
 * frame, parsed once by the receiver. */
bool is_job_query(const RxFrame &rx, const Endpoint &self, uint16_t *job);
inline bool is_job_query(const uint8_t *frame, uint32_t len, const Endpoint &self, uint16_t *job)
{
	return is_job_query(parse_rx_frame(frame, len), self, job);
}
/* The JOB_INFO that answers the query `query` (is_job_query() said so)
 * from `self`, to its source's MAC and IP, port INA_UDP_PORT: `elements` the job's fragment size, 0 = this PS does not
 * serve the job (status INA_CTRL_INVALID); the job's epoch in the header;
 * the query's counter echoed; unsigned. Returns its length, 0 if cap is
 * too small. */
uint32_t build_job_info(const RxFrame &query, const Endpoint &self, uint16_t elements, uint8_t epoch,
			uint8_t *out, uint32_t cap);
inline uint32_t build_job_info(const uint8_t *query, uint32_t len, const Endpoint &self, uint16_t elements,
			       uint8_t epoch, uint8_t *out, uint32_t cap)
{
	return build_job_info(parse_rx_frame(query, len), self, elements, epoch, out, cap);
}

class ControlClient;

/* ina-ps --resume JOB=EPOCH (docs/ps.md, "Restarting a PS"): each named job,
 * one of `jobs`, has its first registration renew EPOCH (1..255). False
 * with *err on a malformed item, a job not served or one named twice. */
bool ps_resume_runs(const std::vector<std::string> &items, const std::vector<PsJobConfig> &jobs,
		    ControlClient &control, std::string *err);

class ControlClient {
public:
	enum class State : uint8_t {
		kIdle,     /* nothing asked */
		kPending,  /* sent, no answer yet */
		kApplied,  /* the switch applied it */
		kDenied,   /* the switch refused it (config job, or another PS's) */
		kInvalid,  /* the switch found the job description invalid */
		kTimedOut, /* no answer within the timeout */
	};
	struct Timing {
		uint32_t first_retry_ms = 100; /* wait before the first resend */
		uint32_t max_retry_ms = 1000;  /* backoff doubles up to this */
	};
	struct Stats {
		uint64_t sent = 0;     /* request frames written (resends included) */
		uint64_t acks = 0;     /* acknowledgements matched to a request */
		uint64_t ignored = 0;  /* control frames that match no request or fail the MAC */
	};

	ControlClient(const Endpoint &self, Timing t);
	ControlClient(const Endpoint &self) : ControlClient(self, Timing{}) {}

	/* Starts a request for `job` (it must outlive the request), replacing
	 * one in progress for the same job id; it is sent at the next poll(). */
	void start(const PsJobConfig &job, bool unregister, uint64_t now_us, uint64_t timeout_us);
	/* Starts installing (or removing) job.goat[sw] on that switch,
	 * replacing a request in progress for the same job and switch. */
	void start_goat(const PsJobConfig &job, size_t sw, bool remove, uint64_t now_us, uint64_t timeout_us);
	/* Writes the frames due at now_us into tx (at most one per pending
	 * request); times requests out. `wall_ns`: the wall clock, for counters. */
	void poll(uint64_t now_us, uint64_t wall_ns, TxQueue &tx);
	/* Takes a received frame: true if it was a control frame (consumed,
	 * whether it matched a request or not). */
	bool take(const RxFrame &rx);
	bool take(const uint8_t *frame, uint32_t len) { return take(parse_rx_frame(frame, len)); }

	State state(uint16_t job) const;
	/* The GOAT request of `job` on the switch with id `switch_id`. */
	State goat_state(uint16_t job, uint16_t switch_id) const;
	/* The job's epoch from the switch's last applied registration; 0
	 * before one (and after an applied unregistration). The first
	 * registration asks for a new run, later ones renew this epoch. */
	uint8_t epoch(uint16_t job) const;
	/* A PS started again for a run that is still going on (ina-ps
	 * --resume, docs/ps.md "Restarting a PS"): the job's first
	 * registration renews `epoch` instead of asking for a new run. The
	 * switch applies it only while `epoch` is the job's run there. */
	void resume(uint16_t job, uint8_t epoch) { epoch_[job] = epoch; }
	/* The most elements per fragment the job's switches carry: the least
	 * cap their applied ACKs stated (registration and GOAT assignments;
	 * docs/protocol.md), and in *switch_ip the switch that stated it.
	 * 0 where none stated one (an older switch, no switch). */
	uint16_t cap(uint16_t job, uint32_t *switch_ip = nullptr) const;
	bool pending() const;
	/* Requests sent for the job's current request so far. */
	uint32_t attempts(uint16_t job) const;
	uint32_t goat_attempts(uint16_t job, uint16_t switch_id) const;
	const Stats &stats() const { return stats_; }

private:
	struct Request {
		const PsJobConfig *job = nullptr;
		const PsGoatSwitch *goat = nullptr; /* a GOAT request to this switch */
		bool unregister = false;            /* or remove the GOAT assignment */
		State state = State::kIdle;
		uint64_t deadline_us = 0, next_us = 0;
		uint32_t backoff_ms = 0, attempts = 0;
		uint64_t first_counter = 0, last_counter = 0; /* counters this request used */
		uint16_t cap = 0; /* the elements its switch's applied ACK stated */
	};

	/* Requests by job << 16 | target: 0 the registration, else the id
	 * of the switch a GOAT request goes to. */
	static uint32_t key(uint16_t job, uint16_t target) { return uint32_t(job) << 16 | target; }
	void start_request(uint32_t k, const Request &r, uint64_t now_us, uint64_t timeout_us);
	uint32_t write_request(const Request &r, uint64_t counter, uint8_t *out) const;
	Request *match(const InaFrame &f, const CtrlMessage &m);
	uint64_t next_counter(uint64_t wall_ns);

	Endpoint self_;
	Timing timing_;
	uint64_t last_counter_ = 0;
	std::map<uint32_t, Request> req_;
	std::map<uint16_t, uint8_t> epoch_;
	Stats stats_;
};

const char *control_state_name(ControlClient::State s);

} /* namespace ina */

#endif /* INA_CONTROL_CLIENT_H */
