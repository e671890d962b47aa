/* SPDX-License-Identifier: BSD-3-Clause */
#include "stats_trace.h"

#include <cerrno>
#include <cstring>

StatsTrace::~StatsTrace()
{
	if (f_)
		fclose(f_);
}

bool StatsTrace::open(const std::string &path, uint32_t interval_ms, std::string *err)
{
	f_ = fopen(path.c_str(), "w");
	if (!f_) {
		*err = "--trace " + path + ": " + strerror(errno);
		return false;
	}
	interval_ms_ = interval_ms ? interval_ms : 1;
	return true;
}

void StatsTrace::sample(uint64_t now_us, const ina::WorkerStats &s)
{
	if (!f_ || now_us < next_us_)
		return;
	write(now_us, s);
	/* The next sample one interval on, not one interval after a late one:
	 * the lines stay on the interval's grid. */
	while (next_us_ <= now_us)
		next_us_ += interval_ms_ * 1000ull;
}

void StatsTrace::finish(uint64_t now_us, const ina::WorkerStats &s)
{
	if (!f_)
		return;
	write(now_us, s);
	fclose(f_);
	f_ = nullptr;
}

void StatsTrace::write(uint64_t now_us, const ina::WorkerStats &s)
{
	fprintf(f_,
		"{\"t_ms\": %.3f, \"fragments\": %llu, \"acks\": %llu, \"switch_acks\": %llu, "
		"\"packets_sent\": %llu, \"bypass_sent\": %llu, \"retransmits\": %llu, \"ecn_acks\": %llu, "
		"\"col_acks\": %llu, \"window\": %u, \"agg_window\": %u, \"straggling\": %.4f, \"srtt_us\": %.1f}\n",
		(now_us - t0_us_) / 1e3, static_cast<unsigned long long>(s.fragments),
		static_cast<unsigned long long>(s.acks), static_cast<unsigned long long>(s.switch_acks),
		static_cast<unsigned long long>(s.packets_sent), static_cast<unsigned long long>(s.bypass_sent),
		static_cast<unsigned long long>(s.retransmits), static_cast<unsigned long long>(s.ecn_acks),
		static_cast<unsigned long long>(s.col_acks), s.window, s.agg_window, s.straggling, s.srtt_ns / 1e3);
}
