/* SPDX-License-Identifier: BSD-3-Clause
 *
 * At most one log line per interval for one reason, so that a host sending
 * bad control messages cannot fill the disk; the next line says how many
 * were left out.
 */
#ifndef INA_SWITCHD_LOG_LIMIT_H
#define INA_SWITCHD_LOG_LIMIT_H

#include <cstdint>

namespace switchd {

class LogLimit {
public:
	explicit LogLimit(uint64_t interval_ns = 1000000000ull) : interval_ns_(interval_ns) {}

	/* True if a line may be logged at now_ns; then *suppressed holds how
	 * many were not since the last one. */
	bool allow(uint64_t now_ns, uint64_t *suppressed)
	{
		if (logged_ && now_ns - last_ns_ < interval_ns_) {
			suppressed_++;
			return false;
		}
		*suppressed = suppressed_;
		suppressed_ = 0;
		last_ns_ = now_ns;
		logged_ = true;
		return true;
	}

private:
	uint64_t interval_ns_;
	uint64_t last_ns_ = 0, suppressed_ = 0;
	bool logged_ = false;
};

} /* namespace switchd */

#endif
