/* SPDX-License-Identifier: BSD-3-Clause */
#include "lcore.h"

#include <new>

namespace switchd {

Lcore::Lcore(int socket)
	: mem{socket, NodeMemory::kNone, 0}, port_ctr(NodeAllocator<PortCounters>(&mem)),
	  job_ctr(NodeAllocator<JobCounters>(&mem)), rx(NodeAllocator<RxQueueRef>(&mem)),
	  egress(NodeAllocator<EgressQueue>(&mem)), handoff_in(NodeAllocator<rte_ring *>(&mem)),
	  handoff_out(NodeAllocator<rte_ring *>(&mem)), seen_gen(NodeAllocator<uint32_t>(&mem))
{
}

void LcoreDeleter::operator()(Lcore *lc) const
{
	lc->~Lcore();
	node_free(lc);
}

LcorePtr make_lcore(int socket)
{
	/* The Lcore's own bytes are recorded in the NodeMemory it holds, once
	 * that exists. */
	NodeMemory self{socket, NodeMemory::kNone, 0};
	void *p = node_alloc(&self, sizeof(Lcore), alignof(Lcore));
	if (p == nullptr)
		return nullptr;
	LcorePtr lc(new (p) Lcore(socket));
	lc->mem.got = self.got;
	lc->mem.bytes = self.bytes;
	return lc;
}

} /* namespace switchd */
