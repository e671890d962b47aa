/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The data path of one lcore, run to completion. Its stages, one file each,
 * in the order a packet meets them:
 *
 *   lcore_loop.cpp  receive: RX bursts, hand-off rings, the loop round
 *   classify.cpp    classify: the one parse into a PacketDesc, ownership
 *   aggregate.cpp   aggregate: admission, ECN pre-mark, ina::process(), the verdict
 *   netreduce.cpp   netreduce: RoCEv2 through ina::nr_process(), results
 *   forward.cpp     forward: IPv4 / L2 next hop (forwarding_table.h), ARP for the switch
 *   replicate.cpp   replicate: multicast copies of a result, flood
 *   egress.cpp      transmit: per-port egress queue, shaping, ECN, tx_burst
 *
 * An INA packet's header is decoded once, in classify, into the PacketDesc's
 * ina::InaView; the later stages, ina::process() and egress read the view.
 *
 * Per packet there is no allocation (except the mbufs of multicast copies,
 * from mempool caches), no lock, no log and no system call. The only shared
 * state is read-only: the forwarding table and the current job table, read
 * under RCU (rte_rcu_qsbr: the lcore reports a quiescent state once per
 * round, after which it holds no pointer into the table).
 */
#ifndef INA_SWITCHD_LCORE_LOOP_H
#define INA_SWITCHD_LCORE_LOOP_H

#include <rte_mbuf.h>

#include "app.h"
#include "ina/pipeline.h"

namespace switchd {

enum class PacketClass : uint8_t {
	kArp,  /* ARP */
	kL2,   /* neither ARP nor IPv4: bridged by MAC */
	kIpv4, /* IPv4, not INA */
	kIna,  /* a valid INA header: `ina` is filled in */
	kRoce, /* RoCEv2 (UDP 4791) while NetReduce rings are configured */
};

/*
 * What classify() learned about a packet, kept in the mbuf's private area
 * so that it travels with the mbuf, across a hand-off ring too: no later
 * stage parses the headers again.
 */
struct PacketDesc {
	PacketClass cls;
	uint16_t in_port; /* config index of the arrival port */
	uint32_t dst_ip;  /* kIpv4, kIna */
	uint32_t src_ip;  /* kIpv4, kIna */
	ina::InaView ina; /* kIna: the header, decoded once (ina/codec.h) */
};

/* What admission (aggregate.cpp) decided about a packet of a registered job:
 * admitted, or why not (docs/security.md, "Data plane"). */
enum class Admission : uint8_t {
	kAdmitted,
	kNotMember,    /* not a worker of the job, or not at its level and bit */
	kWrongPort,    /* a member's address on another member's port */
	kWrongMac,     /* a member's address with another MAC */
	kForgedResult, /* a parameter packet not from the job's PS */
};

/* Private area size for the packet mbuf pool. */
constexpr uint16_t kPacketDescSpace =
	RTE_ALIGN_CEIL(sizeof(PacketDesc), RTE_MBUF_PRIV_ALIGN);

inline PacketDesc *desc(rte_mbuf *m) { return static_cast<PacketDesc *>(rte_mbuf_to_priv(m)); }
/* The packet's decoded INA header, null when it is not INA traffic. */
inline const ina::InaView *ina_view(const PacketDesc &d) { return d.cls == PacketClass::kIna ? &d.ina : nullptr; }

class LcoreLoop {
public:
	LcoreLoop(App &app, Lcore &lc);
	void run();

private:
	/* receive (lcore_loop.cpp) */
	uint32_t receive(rte_mbuf **pkts, uint16_t burst, uint64_t now);
	uint8_t handle_received(rte_mbuf *m, uint64_t now, bool traced);
	uint32_t receive_handoffs(rte_mbuf **pkts, uint16_t burst, uint64_t now);
	void flush_handoffs();
	/* classify (classify.cpp): false if the packet was dropped */
	bool classify(rte_mbuf *m);
	void dispatch(rte_mbuf *m, uint64_t now);
	/* aggregate (aggregate.cpp) */
	void aggregate(rte_mbuf *m, PacketDesc &d, uint64_t now);
	Admission admit(const uint8_t *frame, const PacketDesc &d, const Job &job) const;
	/* netreduce (netreduce.cpp) */
	void netreduce(rte_mbuf *m, PacketDesc &d, uint64_t now);
	void netreduce_results(rte_mbuf *m, const ina::NrResult &res);
	void netreduce_expire(uint64_t now);
	/* stale state (lcore_loop.cpp) */
	void purge_stale();
	void sweep(uint64_t now);
	void count_pipeline(JobCounters &jc, ina::Counter reason);
	/* GOAT: true if the job's assignment here says the packet passes. */
	bool goat_passes(const PacketDesc &d, const GoatRange **range);
	/* forward (forward.cpp) */
	void forward_ipv4(rte_mbuf *m, const PacketDesc &d);
	void forward_l2(rte_mbuf *m, const PacketDesc &d);
	void answer_arp(rte_mbuf *m, const PacketDesc &d);
	/* replicate (replicate.cpp) */
	void multicast(rte_mbuf *m, const PacketDesc &d, const Job &job);
	rte_mbuf *copy_for(rte_mbuf *m, const McastTarget &t);
	void flood(rte_mbuf *m, const PacketDesc &d);
	/* transmit */
	void to_control(rte_mbuf *m);
	/* v: m's decoded INA header (ina_view()), null if m is not INA. */
	void enqueue(uint16_t port, rte_mbuf *m, const ina::InaView *v);
	void drop(rte_mbuf *m, LcoreCtr why)
	{
		lc_.ctr[why]++;
		rte_pktmbuf_free(m);
	}

	App &app_;
	Lcore &lc_;
	const unsigned n_;
	const JobTable *jobs_ = nullptr; /* this round's job table (RCU) */
	std::vector<std::vector<rte_mbuf *>> out_; /* hand-off buffers per lcore */
};

} /* namespace switchd */

#endif
