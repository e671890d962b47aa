/* SPDX-License-Identifier: BSD-3-Clause
 * The verbs both the rdma and the roce transport use: opening an RDMA device
 * by name, posting one buffer, releasing what was set up on the device. */
#ifndef INA_TRANSPORT_RDMA_DEVICE_H
#define INA_TRANSPORT_RDMA_DEVICE_H

#include <infiniband/verbs.h>

#include <cstring>
#include <string>

namespace ina {

/* Opens the device named `want` (empty: the first one) and sets *name to
 * its name. Null with *error = "no RDMA device found (...)", "no RDMA
 * device named X (found: a, b)" or "cannot open X: reason". */
struct ibv_context *open_rdma_device(const std::string &want, std::string *name, std::string *error);

/* Posts one signalled send of addr[0..len) (in the region of `lkey`) on
 * qp, `wr_id` coming back in its completion; false if verbs refused it. */
inline bool post_one_send(struct ibv_qp *qp, uint64_t wr_id, const void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {reinterpret_cast<uint64_t>(addr), len, lkey};
	struct ibv_send_wr wr, *bad = nullptr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	return ibv_post_send(qp, &wr, &bad) == 0;
}

/* Posts one receive into addr[0..len) on qp; the same for receives. */
inline bool post_one_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {reinterpret_cast<uint64_t>(addr), len, lkey};
	struct ibv_recv_wr wr, *bad = nullptr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(qp, &wr, &bad) == 0;
}

/* Releases what both transports set up on a device besides their QPs (and
 * flows), in the order verbs needs: the CQs, the memory region, the
 * protection domain, the device, then the registered buffer (posix_memalign).
 * Null ones are skipped. The caller destroys its QPs first: they hold
 * references to the CQs and the PD, which verbs refuses to free before. */
void release_rdma_resources(struct ibv_cq *send_cq, struct ibv_cq *recv_cq, struct ibv_mr *mr,
			    struct ibv_pd *pd, struct ibv_context *ctx, void *buf);

} /* namespace ina */

#endif
