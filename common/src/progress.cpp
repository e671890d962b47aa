/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/progress.h"

#include <unistd.h>

#include <cstdio>

namespace ina {

ProgressLine::ProgressLine(bool quiet) : enabled_(!quiet && isatty(STDERR_FILENO) == 1) {}

bool ProgressLine::due(uint64_t now_us)
{
	if (!enabled_ || now_us - last_us_ < 1000000)
		return false;
	/* The first call only starts the clock: a run shorter than a second
	 * shows nothing. */
	const bool first = last_us_ == 0;
	last_us_ = now_us;
	return !first;
}

void ProgressLine::show(const std::string &text)
{
	/* \033[K: clear the rest of a longer previous line. */
	std::fprintf(stderr, "\r%s\033[K", text.c_str());
	std::fflush(stderr);
	shown_ = true;
}

void ProgressLine::finish()
{
	if (shown_)
		std::fputc('\n', stderr);
	shown_ = false;
}

} /* namespace ina */
