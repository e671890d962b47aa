/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The busy clock of a polling loop (switchd's lcores, and the bare
 * forwarder of perf/switchd_bench, so that both are measured alike).
 */
#ifndef INA_SWITCHD_BUSY_CLOCK_H
#define INA_SWITCHD_BUSY_CLOCK_H

#include <algorithm>
#include <cstdint>
#include <ctime>

#include <rte_cycles.h>

namespace switchd {

/* Loop rounds per reading of the thread's CPU clock (a system call of a
 * few hundred ns). */
inline constexpr unsigned kClockRounds = 256;

inline uint64_t thread_cpu_ns()
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

/*
 * CPU time this thread spends in rounds that carried packets: the cost per
 * packet of the data path, without idle polls and without the time the OS
 * gave to another thread. Each round is timed with the TSC; every
 * kClockRounds rounds the thread's CPU clock says which fraction of the
 * rounds' TSC time the thread was really on its CPU, and the busy rounds'
 * TSC time is counted at that fraction. Preemption strikes at timer ticks,
 * blind to whether a round is busy, so the fraction applies to busy rounds
 * alike; a reading per kClockRounds rounds keeps the clock off the
 * per-packet cost (a per-round reading cost 5 % of a loaded lcore's
 * samples).
 */
class BusyClock {
public:
	explicit BusyClock(uint64_t tsc_hz) : ns_per_tsc_(1e9 / double(tsc_hz)), cpu_(thread_cpu_ns()) {}
	/* busy_ns: a counter (or a stats.h CounterRef) the busy time is added to. */
	template <typename Counter>
	void round_end(bool busy, uint64_t round_start, Counter &&busy_ns)
	{
		const uint64_t d = rte_rdtsc() - round_start;
		rounds_tsc_ += d;
		busy_tsc_ += busy ? d : 0;
		if (++rounds_ < kClockRounds)
			return;
		const uint64_t cpu = thread_cpu_ns();
		if (busy_tsc_) {
			const double wall = double(rounds_tsc_) * ns_per_tsc_;
			const double on_cpu = std::min(1.0, double(cpu - cpu_) / wall);
			busy_ns += uint64_t(double(busy_tsc_) * ns_per_tsc_ * on_cpu);
		}
		cpu_ = cpu;
		rounds_ = 0;
		rounds_tsc_ = busy_tsc_ = 0;
	}

private:
	const double ns_per_tsc_;
	uint64_t cpu_;
	uint64_t rounds_tsc_ = 0, busy_tsc_ = 0;
	unsigned rounds_ = 0;
};

} /* namespace switchd */

#endif
