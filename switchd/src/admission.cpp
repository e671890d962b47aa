/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Admission: an INA packet meets its job here. Control messages for the
 * switch go to the control plane; a packet of no registered job is plain
 * traffic; a registered job's packet must come from a member, on its port
 * with its MAC, of the job's current run, and inside the job's GOAT
 * assignment here, and it meets the egress congestion signal (the ECN
 * pre-mark) before the switch program (pipeline_stage.cpp) sees it.
 */
#include "stages.h"

namespace switchd {

namespace {

/* The source MAC of a frame, as ForwardingTable::mac_key() packs it. */
inline uint64_t src_mac_key(const uint8_t *frame)
{
	return ForwardingTable::mac_key(frame + 6);
}

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
Admission admit(const uint8_t *frame, const PacketDesc &d, const Job &job)
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
bool goat_passes(const AdmissionCtx &c, const PacketDesc &d, const GoatRange **range)
{
	if (d.ina.flags & (INA_F_ACK | INA_F_BYPASS | INA_F_FLOAT))
		return false;
	const GoatAssignment *ga = c.goat->find(d.ina.job);
	if (!ga)
		return false;
	const uint16_t node = d.ina.agg_node;
	if (node == INA_AGG_NODE_ANY) {
		(*c.ctr)[LcoreCtr::goat_no_node]++;
		return true;
	}
	if (node != c.switch_id)
		return false;
	*range = ga->find(d.ina.agg_index);
	if (!*range) {
		(*c.ctr)[LcoreCtr::goat_unassigned]++;
		return true;
	}
	return false;
}

} /* namespace */

void admission_burst(const AdmissionCtx &c, const Burst &in, PipelineBurst *pipe, ForwardBurst *fwd,
		     Burst *control)
{
	LcoreCounters &ctr = *c.ctr;
	for (uint32_t i = 0; i < in.n; i++) {
		rte_mbuf *m = in.v[i];
		PacketDesc &d = *desc(m);
		uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
		if (d.ina.type == INA_TYPE_CONTROL) {
			if (d.dst_ip != c.switch_ip)
				fwd->push(m);
			else
				control->push(m);
			continue;
		}
		const Job *job = c.jobs->find(d.ina.job);
		if (!job) {
			/* Plain traffic to this switch: the PS-only baseline, a
			 * job aggregated at other switches, or before its
			 * registration. */
			ctr[LcoreCtr::unregistered_job]++;
			c.job_ctr[d.ina.job][JobCtr::unregistered]++;
			fwd->push(m);
			continue;
		}
		JobCounters &jc = c.job_ctr[d.ina.job];
		const Admission admitted = admit(frame, d, *job);
		if (admitted != Admission::kAdmitted) {
			jc[job_counter(admitted)]++;
			ctr[lcore_counter(admitted)]++;
			rte_pktmbuf_free(m);
			continue;
		}
		/* A packet of another run of the job (a dead one's late
		 * packets, or a restarted worker that missed the new epoch)
		 * never reaches the aggregators (docs/security.md, "Job
		 * incarnations"). */
		if (job->epoch_checked && ina_flags_epoch(d.ina.flags) != job->epoch) {
			jc[JobCtr::stale_epoch_drops]++;
			ctr[LcoreCtr::stale_epoch_drops]++;
			rte_pktmbuf_free(m);
			continue;
		}
		const GoatRange *range = nullptr;
		if (goat_passes(c, d, &range)) {
			jc[JobCtr::goat_passed]++;
			fwd->push(m);
			continue;
		}
		if (c.premark && !(d.ina.flags & INA_F_ACK)) {
			/* Congestion on the way to the PS: tell the aggregator
			 * before it sees the packet, so that the mark survives
			 * aggregation. Without an ECN threshold on any port the
			 * next hop's lookup is skipped. */
			const NextHop *h = c.fwd->by_ip(d.dst_ip);
			if (h && c.egress[h->port].above_threshold() && !(d.ina.flags & INA_F_ECN) &&
			    ecn_mark(frame, m->data_len, &d.ina) >= 0) {
				if (d.ina.type == INA_TYPE_DATA) /* marked in the header too: the view follows */
					d.ina.flags |= INA_F_ECN;
				ctr[LcoreCtr::ecn_premarks]++;
				c.port_ctr[h->port][PortCtr::ecn_marks]++;
				jc[JobCtr::ecn_marks]++;
			}
		}
		pipe->push(PipelineItem{m, job, range});
	}
}

} /* namespace switchd */
