/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Memory on one NUMA node, for the state an lcore owns: its Lcore, the
 * containers in it and its aggregator registers all come from DPDK's heap
 * on the lcore's socket, so that the lcore never reaches across the
 * interconnect for its own state. Used only while switchd starts and stops.
 */
#ifndef INA_SWITCHD_NUMA_H
#define INA_SWITCHD_NUMA_H

#include <cstddef>
#include <new>
#include <vector>

#include <rte_memory.h>

#include "ina/pipeline.h"

namespace switchd {

/*
 * Where one lcore's memory should be and where it ended up. An allocation
 * asks for `want` first and takes any socket when that one has no memory
 * left (--no-huge maps all memory on node 0), so `got` says what happened:
 * the socket of every allocation so far, or kMixedSockets.
 */
struct NodeMemory {
	static constexpr int kNone = -1;         /* nothing allocated yet */
	static constexpr int kMixedSockets = -2; /* allocations on several nodes */
	int want = SOCKET_ID_ANY;
	int got = kNone;
	size_t bytes = 0;
};

/* `bytes` aligned to `align` from node->want (else any node), recorded in
 * *node; null when DPDK has no memory left. */
void *node_alloc(NodeMemory *node, size_t bytes, size_t align);
void node_free(void *p);
/* The socket of the DPDK memory at p, -1 if p is not DPDK memory. */
int memory_socket(const void *p);
/* "socket 0", or what kNone / kMixedSockets mean. */
const char *node_name(int socket, char *buf, size_t len);

/* An aggregator table allocator drawing on `node` (pipeline/ has no DPDK). */
ina::RegisterAllocator register_allocator(NodeMemory *node);

/* The STL allocator of an lcore's containers. */
template <typename T> struct NodeAllocator {
	using value_type = T;
	NodeMemory *node = nullptr;

	NodeAllocator() = default;
	explicit NodeAllocator(NodeMemory *n) : node(n) {}
	template <typename U> NodeAllocator(const NodeAllocator<U> &o) : node(o.node) {}

	T *allocate(size_t n)
	{
		NodeMemory any;
		void *p = node_alloc(node ? node : &any, n * sizeof(T),
				     alignof(T) > RTE_CACHE_LINE_SIZE ? alignof(T) : RTE_CACHE_LINE_SIZE);
		if (p == nullptr)
			throw std::bad_alloc();
		return static_cast<T *>(p);
	}
	void deallocate(T *p, size_t) { node_free(p); }

	template <typename U> bool operator==(const NodeAllocator<U> &o) const { return node == o.node; }
	template <typename U> bool operator!=(const NodeAllocator<U> &o) const { return node != o.node; }
};

template <typename T> using NodeVector = std::vector<T, NodeAllocator<T>>;

} /* namespace switchd */

#endif
