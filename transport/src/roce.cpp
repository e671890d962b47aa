/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The roce ring (ina/roce_ring.h): the verbs around RoceWindow. One RDMA
 * device port, one protection domain, one registered region holding 2N send
 * slots and 2N receive slots of one message each; an RC QP to the successor
 * (sends) and one from the predecessor (receives), each with its own CQ.
 * Message `seq` is built in send slot seq % 2N, the slot of its aggregators
 * at the switch, and stays there until its result is back, so a resend needs
 * no copy. Every decision (what to post, what a result completes, when to go
 * back N) is RoceWindow's; this file only moves bytes and polls.
 */
#include <infiniband/verbs.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "ina/roce_msg.h"
#include "ina/roce_ring.h"
#include "rdma_device.h"
#include "roce_setup.h"

namespace ina {
namespace {

uint64_t now_ns()
{
	return static_cast<uint64_t>(
		std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
			.count());
}

/* How often an idle ring looks for overdue results. */
constexpr uint64_t kTimeoutCheckNs = 1'000'000;

enum ibv_mtu mtu_enum(uint32_t bytes)
{
	switch (bytes) {
	case 256:
		return IBV_MTU_256;
	case 512:
		return IBV_MTU_512;
	case 1024:
		return IBV_MTU_1024;
	case 2048:
		return IBV_MTU_2048;
	default:
		return IBV_MTU_4096;
	}
}

class RoceRingImpl final : public RoceRing {
public:
	~RoceRingImpl() override
	{
		if (send_qp_)
			ibv_destroy_qp(send_qp_);
		if (recv_qp_)
			ibv_destroy_qp(recv_qp_);
		release_rdma_resources(send_cq_, recv_cq_, mr_, pd_, ctx_, buf_);
	}

	explicit RoceRingImpl(const RoceRingConfig &cfg) : cfg_(cfg), win_(window_config(cfg)) {}

	bool open(std::string *error);
	bool allreduce(float *data, size_t n, std::string *error) override;
	RoceRingStats stats() const override
	{
		RoceRingStats s = stats_;
		s.window = win_.stats();
		return s;
	}

private:
	static RoceWindowConfig window_config(const RoceRingConfig &cfg)
	{
		RoceWindowConfig w = cfg.window;
		w.header_bytes = NR_HDR_LEN;
		w.msg_id_bits = 32;
		return w;
	}
	bool fail(std::string *error, const std::string &what)
	{
		*error = "roce transport: " + what + (errno ? std::string(": ") + strerror(errno) : std::string());
		return false;
	}
	bool find_gid(const std::string &dev, std::string *error);
	bool connect_qp(struct ibv_qp *qp, const RoceConnInfo &self, const RoceConnInfo &peer);
	uint8_t *send_slot(uint32_t i) { return static_cast<uint8_t *>(buf_) + size_t(i) * cfg_.window.msg_bytes; }
	uint8_t *recv_slot(uint32_t i) { return send_slot(slots_ + i); }
	bool post_recv(uint32_t i);
	bool post_send(uint64_t seq);
	bool reap_sends(std::string *error);
	bool reap_results(float *data, size_t n, uint64_t first, bool *progress, std::string *error);

	RoceRingConfig cfg_;
	RoceWindow win_;
	RoceRingParams params_;
	uint32_t slots_ = 0; /* 2N */
	struct ibv_context *ctx_ = nullptr;
	struct ibv_pd *pd_ = nullptr;
	struct ibv_mr *mr_ = nullptr;
	struct ibv_cq *send_cq_ = nullptr, *recv_cq_ = nullptr;
	struct ibv_qp *send_qp_ = nullptr, *recv_qp_ = nullptr;
	void *buf_ = nullptr;
	int gid_index_ = -1;
	union ibv_gid gid_;
	/* Per send slot: which seq it holds, and sends of it the NIC has not
	 * completed (a resend may go out while the first is still there). */
	std::vector<uint64_t> slot_seq_;
	std::vector<uint32_t> slot_sends_;
	uint32_t sends_out_ = 0;
	std::string failed_;
	RoceRingStats stats_;
};

bool RoceRingImpl::find_gid(const std::string &dev, std::string *error)
{
	if (cfg_.gid_index >= 0) {
		gid_index_ = cfg_.gid_index;
		if (ibv_query_gid(ctx_, cfg_.port, gid_index_, &gid_) != 0)
			return fail(error, "cannot read GID " + std::to_string(gid_index_) + " of " + dev);
		return true;
	}
	/* The first RoCEv2 GID that holds an IPv4 address (::ffff:a.b.c.d):
	 * NetReduce's switch matches IPv4/UDP 4791. */
	struct ibv_port_attr pattr;
	if (ibv_query_port(ctx_, cfg_.port, &pattr) != 0)
		return fail(error, "cannot query port " + std::to_string(cfg_.port) + " of " + dev);
	for (int i = 0; i < pattr.gid_tbl_len; i++) {
		struct ibv_gid_entry e;
		if (ibv_query_gid_ex(ctx_, cfg_.port, i, &e, 0) != 0)
			continue;
		static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && memcmp(e.gid.raw, v4, 12) == 0) {
			gid_index_ = i;
			gid_ = e.gid;
			return true;
		}
	}
	errno = 0;
	return fail(error, "no RoCEv2 GID with an IPv4 address on " + dev + " port " + std::to_string(cfg_.port) +
				   " (give its interface an IPv4 address, or set roce_gid_index)");
}

bool RoceRingImpl::open(std::string *error)
{
	std::string dev_name, why;
	ctx_ = open_rdma_device(cfg_.device, &dev_name, &why);
	if (!ctx_) {
		*error = "roce transport: " + why;
		return false;
	}
	struct ibv_port_attr pattr;
	if (ibv_query_port(ctx_, cfg_.port, &pattr) != 0)
		return fail(error, "cannot query port " + std::to_string(cfg_.port) + " of " + dev_name);
	errno = 0;
	if (pattr.link_layer != IBV_LINK_LAYER_ETHERNET)
		return fail(error, dev_name + " port " + std::to_string(cfg_.port) + " is not Ethernet (RoCE needs one)");
	if (pattr.active_mtu < mtu_enum(cfg_.window.mtu))
		return fail(error, dev_name + " port " + std::to_string(cfg_.port) + " has a path MTU below " +
					   std::to_string(cfg_.window.mtu) + " (raise the interface MTU or lower roce_mtu)");
	if (!find_gid(dev_name, error))
		return false;

	slots_ = 2 * cfg_.window.window;
	params_.msg_bytes = cfg_.window.msg_bytes;
	params_.msg_len = static_cast<uint16_t>(cfg_.window.msg_bytes / cfg_.window.mtu);
	params_.ring_id = cfg_.ring_id;
	params_.rank = cfg_.rank;
	params_.dtype = NR_DTYPE_FLOAT32;
	slot_seq_.assign(slots_, UINT64_MAX);
	slot_sends_.assign(slots_, 0);

	pd_ = ibv_alloc_pd(ctx_);
	if (!pd_)
		return fail(error, "cannot allocate a protection domain");
	const size_t bytes = size_t(2) * slots_ * cfg_.window.msg_bytes;
	if (posix_memalign(&buf_, 4096, bytes) != 0) {
		buf_ = nullptr;
		errno = ENOMEM;
		return fail(error, "message buffers");
	}
	memset(buf_, 0, bytes);
	mr_ = ibv_reg_mr(pd_, buf_, bytes, IBV_ACCESS_LOCAL_WRITE);
	if (!mr_)
		return fail(error, "cannot register " + std::to_string(bytes) + " bytes (locked memory limit?)");
	send_cq_ = ibv_create_cq(ctx_, static_cast<int>(slots_), nullptr, nullptr, 0);
	recv_cq_ = ibv_create_cq(ctx_, static_cast<int>(slots_), nullptr, nullptr, 0);
	if (!send_cq_ || !recv_cq_)
		return fail(error, "cannot create completion queues");
	for (struct ibv_qp **qp : {&send_qp_, &recv_qp_}) {
		struct ibv_qp_init_attr a;
		memset(&a, 0, sizeof(a));
		const bool sends = qp == &send_qp_;
		a.send_cq = sends ? send_cq_ : recv_cq_;
		a.recv_cq = sends ? send_cq_ : recv_cq_;
		a.cap.max_send_wr = sends ? slots_ : 1;
		a.cap.max_recv_wr = sends ? 1 : slots_;
		a.cap.max_send_sge = 1;
		a.cap.max_recv_sge = 1;
		a.qp_type = IBV_QPT_RC;
		a.sq_sig_all = 1;
		*qp = ibv_create_qp(pd_, &a);
		if (!*qp)
			return fail(error, "cannot create an RC queue pair");
		struct ibv_qp_attr m;
		memset(&m, 0, sizeof(m));
		m.qp_state = IBV_QPS_INIT;
		m.pkey_index = 0;
		m.port_num = cfg_.port;
		m.qp_access_flags = 0; /* SENDs only: no remote access */
		if (ibv_modify_qp(*qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			return fail(error, "cannot move a QP to INIT");
	}
	for (uint32_t i = 0; i < slots_; i++)
		if (!post_recv(i))
			return fail(error, "cannot post receive buffers");

	std::random_device rd;
	RoceConnInfo send_info, recv_info;
	for (RoceConnInfo *c : {&send_info, &recv_info}) {
		c->qpn = (c == &send_info ? send_qp_ : recv_qp_)->qp_num;
		c->psn = rd() & ROCE_PSN_MASK;
		memcpy(c->gid, gid_.raw, 16);
		c->ring_id = cfg_.ring_id;
		c->rank = cfg_.rank;
		c->mtu = static_cast<uint16_t>(cfg_.window.mtu);
		c->msg_bytes = cfg_.window.msg_bytes;
	}
	RoceConnInfo succ_recv, pred_send;
	if (!roce_exchange(cfg_, send_info, recv_info, &succ_recv, &pred_send, error))
		return false;
	if (!connect_qp(send_qp_, send_info, succ_recv))
		return fail(error, "cannot connect the QP to the ring successor (RTR/RTS)");
	if (!connect_qp(recv_qp_, recv_info, pred_send))
		return fail(error, "cannot connect the QP from the ring predecessor (RTR/RTS)");
	return true;
}

/* INIT -> RTR -> RTS towards `peer`: requests from the peer start at its
 * PSN, ours at self.psn (what the peer was told). */
bool RoceRingImpl::connect_qp(struct ibv_qp *qp, const RoceConnInfo &self, const RoceConnInfo &peer)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu_enum(cfg_.window.mtu);
	a.dest_qp_num = peer.qpn;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12; /* 0.64 ms */
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, peer.gid, 16);
	a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index_);
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = cfg_.port;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return false;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;  /* 4.096 us x 2^14 = 67 ms per try */
	a.retry_cnt = 7; /* the NIC's go-back-N on loss */
	a.rnr_retry = 7; /* a receiver short of buffers: wait, forever */
	a.sq_psn = self.psn;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC) == 0;
}

bool RoceRingImpl::post_recv(uint32_t i)
{
	return post_one_recv(recv_qp_, i, recv_slot(i), cfg_.window.msg_bytes, mr_->lkey);
}

bool RoceRingImpl::post_send(uint64_t seq)
{
	const uint32_t slot = win_.slot(seq);
	if (!post_one_send(send_qp_, slot, send_slot(slot), cfg_.window.msg_bytes, mr_->lkey))
		return false;
	slot_sends_[slot]++;
	sends_out_++;
	return true;
}

bool RoceRingImpl::reap_sends(std::string *error)
{
	struct ibv_wc wc[32];
	int r;
	while ((r = ibv_poll_cq(send_cq_, 32, wc)) > 0) {
		for (int i = 0; i < r; i++) {
			/* An RC send completes in error only once the NIC gave
			 * up (retries exhausted, peer gone): the QP is dead. */
			if (wc[i].status != IBV_WC_SUCCESS) {
				failed_ = std::string("roce transport: send to the ring successor failed: ") +
					  ibv_wc_status_str(wc[i].status);
				*error = failed_;
				return false;
			}
			slot_sends_[wc[i].wr_id]--;
			sends_out_--;
		}
	}
	return true;
}

bool RoceRingImpl::reap_results(float *data, size_t n, uint64_t first, bool *progress, std::string *error)
{
	struct ibv_wc wc[32];
	int r = ibv_poll_cq(recv_cq_, 32, wc);
	for (int i = 0; i < r; i++) {
		const uint32_t slot = static_cast<uint32_t>(wc[i].wr_id);
		if (wc[i].status != IBV_WC_SUCCESS) {
			stats_.rx_errors++;
			failed_ = std::string("roce transport: receive from the ring predecessor failed: ") +
				  ibv_wc_status_str(wc[i].status);
			*error = failed_;
			return false;
		}
		stats_.rx_messages++;
		uint32_t id;
		uint64_t seq;
		if (roce_msg_check(params_, recv_slot(slot), wc[i].byte_len, &id) != RoceMsgError::kOk) {
			stats_.rx_malformed++;
		} else if (win_.on_result(id, &seq) == RoceResult::kCompleted && seq >= first) {
			size_t f;
			uint32_t count;
			roce_msg_span(params_, n, seq - first, &f, &count);
			memcpy(data + f, recv_slot(slot) + NR_HDR_LEN, size_t(count) * 4);
			*progress = true;
		}
		if (!post_recv(slot)) {
			failed_ = "roce transport: cannot repost a receive buffer";
			*error = failed_;
			return false;
		}
	}
	return true;
}

bool RoceRingImpl::allreduce(float *data, size_t n, std::string *error)
{
	if (!failed_.empty()) {
		*error = failed_;
		return false;
	}
	if (n == 0)
		return true;
	const uint64_t first = win_.end();
	win_.add(roce_msg_count(params_, n));
	uint64_t last_progress = now_ns(), next_check = 0;
	while (!win_.done()) {
		if (!reap_sends(error))
			return false;
		uint64_t seq;
		while (win_.next(&seq) && sends_out_ < slots_) {
			const uint32_t slot = win_.slot(seq);
			if (slot_seq_[slot] != seq) {
				/* The slot's previous message (seq - 2N) is done,
				 * but the NIC may still hold a send of it. */
				if (slot_sends_[slot] > 0)
					break;
				size_t f;
				uint32_t count;
				roce_msg_span(params_, n, seq - first, &f, &count);
				roce_msg_build(params_, win_.msg_id(seq), data + f, count, send_slot(slot));
				slot_seq_[slot] = seq;
			}
			if (!post_send(seq))
				break; /* send queue full: after the next completions */
			win_.posted(seq, now_ns());
		}
		bool progress = false;
		if (!reap_results(data, n, first, &progress, error))
			return false;
		const uint64_t now = now_ns();
		if (progress) {
			last_progress = now;
			continue;
		}
		/* Go back N only with the send queue empty: once the NIC has
		 * completed every send it retransmits none of them, so no
		 * older PSN follows the resent MsgIDs (ina/roce_window.h). */
		if (sends_out_ == 0 && now >= next_check) {
			win_.on_timeout(now);
			next_check = now + kTimeoutCheckNs; /* the check walks the window */
		}
		if (now - last_progress > cfg_.stall_timeout_ns) {
			*error = "roce transport: no result from the ring for " +
				 std::to_string(cfg_.stall_timeout_ns / 1000000) + " ms (waiting for MsgID " +
				 std::to_string(win_.msg_id(win_.base())) + ")";
			failed_ = *error; /* out of step with the ring from here on */
			return false;
		}
		std::this_thread::yield();
	}
	stats_.bytes_reduced += n * sizeof(float);
	return true;
}

} /* namespace */

std::unique_ptr<RoceRing> open_roce_ring(const RoceRingConfig &cfg, std::string *error)
{
	std::string scratch;
	if (!error)
		error = &scratch;
	if (!roce_ring_check(cfg, error))
		return nullptr;
	auto r = std::make_unique<RoceRingImpl>(cfg);
	if (!r->open(error))
		return nullptr;
	return r;
}

} /* namespace ina */
