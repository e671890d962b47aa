/* SPDX-License-Identifier: BSD-3-Clause */
#include "numa.h"

#include <cstdio>

#include <rte_malloc.h>

namespace switchd {

int memory_socket(const void *p)
{
	const struct rte_memseg *ms = rte_mem_virt2memseg(p, nullptr);
	return ms != nullptr ? ms->socket_id : -1;
}

void *node_alloc(NodeMemory *node, size_t bytes, size_t align)
{
	void *p = rte_malloc_socket("ina_lcore", bytes, static_cast<unsigned>(align), node->want);
	if (p == nullptr && node->want != SOCKET_ID_ANY)
		p = rte_malloc_socket("ina_lcore", bytes, static_cast<unsigned>(align), SOCKET_ID_ANY);
	if (p == nullptr)
		return nullptr;
	const int socket = memory_socket(p);
	if (node->got == NodeMemory::kNone)
		node->got = socket;
	else if (node->got != socket)
		node->got = NodeMemory::kMixedSockets;
	node->bytes += bytes;
	return p;
}

void node_free(void *p)
{
	rte_free(p);
}

const char *node_name(int socket, char *buf, size_t len)
{
	if (socket == NodeMemory::kMixedSockets)
		return "several sockets";
	if (socket < 0)
		return "no DPDK memory";
	std::snprintf(buf, len, "socket %d", socket);
	return buf;
}

ina::RegisterAllocator register_allocator(NodeMemory *node)
{
	ina::RegisterAllocator a;
	a.alloc = [](size_t bytes, size_t align, void *ctx) {
		return node_alloc(static_cast<NodeMemory *>(ctx), bytes, align);
	};
	a.free = [](void *p, void *) { node_free(p); };
	a.ctx = node;
	return a;
}

} /* namespace switchd */
