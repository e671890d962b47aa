/* SPDX-License-Identifier: BSD-3-Clause
 * A set of up to 256 workers of one job, as four 64-bit words. */
#ifndef INA_PS_WORKER_SET_H
#define INA_PS_WORKER_SET_H

#include <cstdint>

namespace ina {

struct WorkerSet {
	uint64_t w[4] = {0, 0, 0, 0};

	void set(uint32_t i) { w[i >> 6] |= 1ull << (i & 63); }
	bool test(uint32_t i) const { return (w[i >> 6] >> (i & 63)) & 1; }
	bool empty() const { return (w[0] | w[1] | w[2] | w[3]) == 0; }
	bool intersects(const WorkerSet &o) const
	{
		return ((w[0] & o.w[0]) | (w[1] & o.w[1]) | (w[2] & o.w[2]) | (w[3] & o.w[3])) != 0;
	}
	bool operator==(const WorkerSet &o) const
	{
		return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2] && w[3] == o.w[3];
	}
	WorkerSet &operator|=(const WorkerSet &o)
	{
		for (int k = 0; k < 4; k++)
			w[k] |= o.w[k];
		return *this;
	}
	WorkerSet &operator&=(const WorkerSet &o)
	{
		for (int k = 0; k < 4; k++)
			w[k] &= o.w[k];
		return *this;
	}
	uint32_t count() const
	{
		return static_cast<uint32_t>(__builtin_popcountll(w[0]) + __builtin_popcountll(w[1]) +
					     __builtin_popcountll(w[2]) + __builtin_popcountll(w[3]));
	}
};

} /* namespace ina */

#endif
