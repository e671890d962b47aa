/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Aggregate: an INA packet of a registered job passes admission, meets the
 * egress congestion signal, runs through the switch program
 * (ina::process(), the same logic as the P4 build) and leaves the way its
 * verdict says. Control messages for the switch go to the control plane.
 */
#include <cstddef>

#include <rte_ip.h>

#include "ina/codec.h"
#include "lcore_loop.h"

namespace switchd {

namespace {

/* A result carries the ECN mark of any packet aggregated into it (the
 * aggregator keeps INA_F_ECN); the IP header is the last packet's, so the
 * mark is copied to IP CE as it leaves. */
void ce_from_ina_ecn(uint8_t *frame, const PacketDesc &d)
{
	if (!(d.ina.flags & INA_F_ECN)) /* ina::process() keeps the view's flags the frame's */
		return;
	auto *ip = reinterpret_cast<struct rte_ipv4_hdr *>(frame + sizeof(struct ina_eth_hdr));
	if ((ip->type_of_service & 3) == 3)
		return;
	ip->type_of_service |= 3;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

} /* namespace */

/* The source MAC of a frame, as ForwardingTable::mac_key() packs it. */
inline uint64_t src_mac_key(const uint8_t *frame)
{
	return ForwardingTable::mac_key(frame + 6);
}

namespace {

/* The drop counters of a refusal: the lcore's, and the job's. */
LcoreCtr lcore_counter(Admission a)
{
	switch (a) {
	case Admission::kWrongPort:
		return LcoreCtr::spoof_port_drops;
	case Admission::kWrongMac:
		return LcoreCtr::spoof_mac_drops;
	case Admission::kForgedResult:
		return LcoreCtr::forged_result_drops;
	case Admission::kNotMember:
	case Admission::kAdmitted:
		break;
	}
	return LcoreCtr::admission_drops;
}

JobCtr job_counter(Admission a)
{
	switch (a) {
	case Admission::kWrongPort:
	case Admission::kWrongMac:
		return JobCtr::spoof_drops;
	case Admission::kForgedResult:
		return JobCtr::forged_result_drops;
	case Admission::kNotMember:
	case Admission::kAdmitted:
		break;
	}
	return JobCtr::admission_drops;
}

} /* namespace */

/*
 * Admission of a packet of a registered job (docs/security.md, "Data
 * plane"): kAdmitted, or the reason it is refused.
 *
 * A parameter packet (ACK) comes only from the job's PS: its IP, its MAC,
 * on the port its neighbour entry names (at a lower switch of a multi-level
 * job that is the uplink, and the MAC is still the PS's: switches rewrite
 * destination MACs only). Anything else from the PS's IP (its overflow
 * float requests) must come the same way. A gradient comes from a
 * registered worker, on its port with its MAC, for the level and bitmap bit
 * it was registered with; a lower switch's result carries the last
 * contributing worker's addresses and arrives on the port toward that
 * switch, so the same binding holds at every level.
 */
Admission LcoreLoop::admit(const uint8_t *frame, const PacketDesc &d, const Job &job) const
{
	const bool from_ps_ip = d.src_ip == job.cfg.ps_ip;
	if (d.ina.flags & INA_F_ACK) {
		if (!from_ps_ip || d.in_port != job.ps_port || src_mac_key(frame) != job.ps_mac)
			return Admission::kForgedResult;
		return Admission::kAdmitted;
	}
	if (from_ps_ip) {
		if (d.in_port != job.ps_port)
			return Admission::kWrongPort;
		if (src_mac_key(frame) != job.ps_mac)
			return Admission::kWrongMac;
		return Admission::kAdmitted;
	}
	const int w = job.worker(d.src_ip);
	if (w < 0)
		return Admission::kNotMember;
	if (d.in_port != job.worker_port[w])
		return Admission::kWrongPort;
	if (src_mac_key(frame) != job.worker_mac[w])
		return Admission::kWrongMac;
	const uint8_t level = d.ina.level;
	const uint8_t start = job.start_level[w];
	if (level >= job.cfg.levels || level > start)
		return Admission::kAdmitted; /* a lower switch's result, or past the in-network levels */
	if (level < start)
		return Admission::kNotMember; /* a level the worker does not take part in */
	/* level < levels <= INA_MAX_LEVELS: the view holds bitmap[level]. */
	return d.ina.level_bitmap == (1u << job.cfg.workers[w].bit[level]) ? Admission::kAdmitted
									   : Admission::kNotMember;
}

/*
 * GOAT (docs/goat.md, "Installing a plan"): where the job has an assignment
 * on this switch, only its fragments that name this switch in agg_node and
 * fall in its ranges are aggregated here. One that names this switch
 * outside them (a worker with another plan) or names no switch passes
 * untouched, so that no other sub-model takes the aggregators the plan
 * gave this one. Those naming another switch are the pipeline's filter's.
 * *range: the range of this switch's that a fragment naming it falls in
 * (whose children, for a split sub-model, the switch program waits for).
 */
bool LcoreLoop::goat_passes(const PacketDesc &d, const GoatRange **range)
{
	if (d.ina.flags & (INA_F_ACK | INA_F_BYPASS | INA_F_FLOAT))
		return false;
	const GoatAssignment *ga = app_.goat.load(std::memory_order_acquire)->find(d.ina.job);
	if (!ga)
		return false;
	const uint16_t node = d.ina.agg_node;
	if (node == INA_AGG_NODE_ANY) {
		lc_.ctr[LcoreCtr::goat_no_node]++;
		return true;
	}
	if (node != app_.cfg.switch_id)
		return false;
	*range = ga->find(d.ina.agg_index);
	if (!*range) {
		lc_.ctr[LcoreCtr::goat_unassigned]++;
		return true;
	}
	return false;
}

void LcoreLoop::count_pipeline(JobCounters &jc, ina::Counter reason)
{
	switch (reason) {
	case ina::Counter::claimed:
	case ina::Counter::aggregated:
		jc[JobCtr::aggregated]++;
		break;
	case ina::Counter::completed:
		jc[JobCtr::aggregated]++;
		jc[JobCtr::completed]++;
		break;
	case ina::Counter::collision:
		jc[JobCtr::collisions]++;
		break;
	case ina::Counter::share_refusals:
		jc[JobCtr::share_refusals]++;
		break;
	case ina::Counter::too_wide:
		jc[JobCtr::too_wide]++;
		break;
	case ina::Counter::resend_merged:
	case ina::Counter::resend_flushed:
	case ina::Counter::resend_forwarded:
		jc[JobCtr::resends]++;
		break;
	case ina::Counter::gc_freed:
		jc[JobCtr::gc_frees]++;
		break;
	default:
		if (ina::counter_is_malformed(reason))
			jc[JobCtr::malformed]++;
		break;
	}
}

void LcoreLoop::aggregate(rte_mbuf *m, PacketDesc &d, uint64_t now)
{
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	const uint32_t len = m->data_len;
	if (d.ina.type == INA_TYPE_CONTROL) {
		if (d.dst_ip != app_.cfg.ip)
			return forward_ipv4(m, d);
		return to_control(m);
	}
	const Job *job = jobs_->find(d.ina.job);
	if (!job) {
		/* Plain traffic to this switch: the PS-only baseline, a job
		 * aggregated at other switches, or before its registration. */
		lc_.ctr[LcoreCtr::unregistered_job]++;
		lc_.job_ctr[d.ina.job][JobCtr::unregistered]++;
		return forward_ipv4(m, d);
	}
	JobCounters &jc = lc_.job_ctr[d.ina.job];
	const Admission admitted = admit(frame, d, *job);
	if (admitted != Admission::kAdmitted) {
		jc[job_counter(admitted)]++;
		return drop(m, lcore_counter(admitted));
	}
	/* A packet of another run of the job (a dead one's late packets, or a
	 * restarted worker that missed the new epoch) never reaches the
	 * aggregators (docs/security.md, "Job incarnations"). */
	if (job->epoch_checked && ina_flags_epoch(d.ina.flags) != job->epoch) {
		jc[JobCtr::stale_epoch_drops]++;
		return drop(m, LcoreCtr::stale_epoch_drops);
	}
	const GoatRange *range = nullptr;
	if (goat_passes(d, &range)) {
		jc[JobCtr::goat_passed]++;
		return forward_ipv4(m, d);
	}
	/* A range of a split sub-model: its workers' fan-in and bits. */
	ina::Children children;
	if (range && range->fan_in) {
		children.fan_in = range->fan_in;
		children.allowed = range->children;
	}
	if (!(d.ina.flags & INA_F_ACK)) {
		/* Congestion on the way to the PS: tell the aggregator before it
		 * sees the packet, so that the mark survives aggregation. */
		const NextHop *h = app_.fwd->by_ip(d.dst_ip);
		if (h && lc_.egress[h->port].above_threshold() && !(d.ina.flags & INA_F_ECN) &&
		    ecn_mark(frame, len, &d.ina) >= 0) {
			if (d.ina.type == INA_TYPE_DATA) /* marked in the header too: the view follows */
				d.ina.flags |= INA_F_ECN;
			lc_.ctr[LcoreCtr::ecn_premarks]++;
			lc_.port_ctr[h->port][PortCtr::ecn_marks]++;
			jc[JobCtr::ecn_marks]++;
		}
	}
	const ina::Result r = ina::process(*lc_.table, lc_.pipeline, frame, len, d.ina, now,
					   job->lcore_share[lc_.index], children.fan_in ? &children : nullptr);
	count_pipeline(jc, r.reason);
	/* The width the control thread logs, once per job (log_too_wide()):
	 * a compare and a store here, no log line per packet. */
	if (r.reason == ina::Counter::too_wide && d.ina.elem_count > jc[JobCtr::too_wide_elements])
		jc[JobCtr::too_wide_elements] = d.ina.elem_count;
	if (r.verdict != ina::Verdict::kDrop && r.verdict != ina::Verdict::kControl)
		ce_from_ina_ecn(frame, d);
	switch (r.verdict) {
	case ina::Verdict::kDrop:
		/* A drop is counted by the pipeline under its reason; any other
		 * reason (`aggregated`) is a gradient the aggregator took, which
		 * the packet accounting needs apart (the pipeline's `aggregated`
		 * also counts completions and resend merges). */
		if (ina::counter_kind(r.reason) != ina::CounterKind::kDrop)
			lc_.ctr[LcoreCtr::absorbed]++;
		rte_pktmbuf_free(m);
		return;
	case ina::Verdict::kDownstream:
		jc[JobCtr::sent_to_ps]++;
		return forward_ipv4(m, d);
	case ina::Verdict::kPass:
		return forward_ipv4(m, d);
	case ina::Verdict::kMulticast:
		jc[JobCtr::multicast]++;
		return multicast(m, d, *job);
	case ina::Verdict::kControl:
		return to_control(m);
	}
	rte_pktmbuf_free(m);
}

} /* namespace switchd */
