/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Pipeline: an admitted INA packet runs through the switch program
 * (ina::process(), the same logic as the P4 build) and leaves the way its
 * verdict says; the job's counters follow the pipeline's reason.
 */
#include <rte_ip.h>

#include "stages.h"

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

void count_pipeline(JobCounters &jc, ina::Counter reason)
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

} /* namespace */

void pipeline_burst(const PipelineCtx &c, const PipelineBurst &in, ForwardBurst *fwd, McastBurst *mcast,
		    Burst *control)
{
	for (uint32_t i = 0; i < in.n; i++) {
		const PipelineItem &it = in.v[i];
		rte_mbuf *m = it.m;
		PacketDesc &d = *desc(m);
		uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
		JobCounters &jc = c.job_ctr[d.ina.job];
		/* A range of a split sub-model: its workers' fan-in and bits. */
		ina::Children children;
		if (it.range && it.range->fan_in) {
			children.fan_in = it.range->fan_in;
			children.allowed = it.range->children;
		}
		const ina::Result r = ina::process(*c.table, *c.pipeline, frame, m->data_len, d.ina, c.now,
						   it.job->lcore_share[c.lcore], children.fan_in ? &children : nullptr);
		count_pipeline(jc, r.reason);
		/* The width the control thread logs, once per job
		 * (log_too_wide()): a compare and a store here, no log line per
		 * packet. */
		if (r.reason == ina::Counter::too_wide && d.ina.elem_count > jc[JobCtr::too_wide_elements])
			jc[JobCtr::too_wide_elements] = d.ina.elem_count;
		if (r.verdict != ina::Verdict::kDrop && r.verdict != ina::Verdict::kControl)
			ce_from_ina_ecn(frame, d);
		switch (r.verdict) {
		case ina::Verdict::kDrop:
			/* A drop is counted by the pipeline under its reason; any
			 * other reason (`aggregated`) is a gradient the aggregator
			 * took, which the packet accounting needs apart (the
			 * pipeline's `aggregated` also counts completions and
			 * resend merges). */
			if (ina::counter_kind(r.reason) != ina::CounterKind::kDrop)
				(*c.ctr)[LcoreCtr::absorbed]++;
			rte_pktmbuf_free(m);
			break;
		case ina::Verdict::kDownstream:
			jc[JobCtr::sent_to_ps]++;
			fwd->push(m);
			break;
		case ina::Verdict::kPass:
			fwd->push(m);
			break;
		case ina::Verdict::kMulticast:
			jc[JobCtr::multicast]++;
			mcast->push(McastItem{m, it.job});
			break;
		case ina::Verdict::kControl:
			control->push(m);
			break;
		default:
			rte_pktmbuf_free(m);
			break;
		}
	}
}

} /* namespace switchd */
