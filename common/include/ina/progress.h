/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The live status line of a long run (ina-ps, ina-worker): one line on
 * stderr, rewritten in place at most once a second, and only when stderr is
 * a terminal, so that logs and JSON on stdout never see it. The caller asks
 * due() from a loop it runs anyway, with a clock it reads anyway: the line
 * costs no system call per packet.
 */
#ifndef INA_PROGRESS_H
#define INA_PROGRESS_H

#include <cstdint>
#include <string>

namespace ina {

class ProgressLine {
public:
	/* Shown when not `quiet` and stderr is a terminal. */
	explicit ProgressLine(bool quiet);
	~ProgressLine() { finish(); }

	bool enabled() const { return enabled_; }
	/* True when enabled and a second has passed since the last line
	 * (now_us: any monotonic microsecond clock). */
	bool due(uint64_t now_us);
	/* Replaces the line with "PROG: text". */
	void show(const std::string &text);
	/* Ends the line (once something was shown), before other output. */
	void finish();

private:
	bool enabled_;
	bool shown_ = false;
	uint64_t last_us_ = 0;
};

} /* namespace ina */

#endif
