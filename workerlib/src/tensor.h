/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Internal: a tensor being all-reduced, shared by the submitting thread (the
 * handle) and the sender thread that owns it.
 */
#ifndef INA_WORKERLIB_TENSOR_H
#define INA_WORKERLIB_TENSOR_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ina {

struct TensorState {
	float *data = nullptr;
	size_t n = 0;
	uint64_t seq64 = 0;    /* job-wide fragment number of fragment 0 */
	uint32_t seq_base = 0; /* seq of fragment 0: seq64 mod 2^32 */
	uint32_t nfrags = 0;
	uint64_t elem_base = 0; /* GOAT: element 0's place in the round */
	uint32_t thread = 0;
	double scale = 1e8;    /* float -> int32 factor of this tensor */

	/* Written by the owning sender thread only. */
	uint64_t local_base = 0;       /* sender-local index of fragment 0 */
	uint32_t acked = 0;
	std::vector<uint8_t> as_float; /* per fragment: the PS asked for floats */

	uint32_t frag_elems(uint32_t i, uint32_t epp) const
	{
		size_t off = static_cast<size_t>(i) * epp;
		return static_cast<uint32_t>(n - off < epp ? n - off : epp);
	}
	bool owns_seq(uint32_t seq) const { return seq - seq_base < nfrags; }

	/* 0 running, 1 done, -1 failed. */
	std::atomic<int> status{0};
	std::mutex m;
	std::condition_variable cv;
	std::string error;

	void finish(int st, const std::string &err = std::string())
	{
		{
			std::lock_guard<std::mutex> g(m);
			error = err;
			status.store(st, std::memory_order_release);
		}
		cv.notify_all();
	}
};

} /* namespace ina */

#endif /* INA_WORKERLIB_TENSOR_H */
