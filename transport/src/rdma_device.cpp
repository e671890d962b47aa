/* SPDX-License-Identifier: BSD-3-Clause */
#include "rdma_device.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ina {

struct ibv_context *open_rdma_device(const std::string &want, std::string *name, std::string *error)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		if (list)
			ibv_free_device_list(list);
		*error = "no RDMA device found (ibv_get_device_list returned 0 devices)";
		return nullptr;
	}
	struct ibv_device *dev = nullptr;
	std::string names;
	for (int i = 0; i < n; i++) {
		const char *dn = ibv_get_device_name(list[i]);
		names += (names.empty() ? "" : ", ") + std::string(dn);
		if (!dev && (want.empty() || want == dn))
			dev = list[i];
	}
	if (!dev) {
		ibv_free_device_list(list);
		*error = "no RDMA device named " + want + " (found: " + names + ")";
		return nullptr;
	}
	*name = ibv_get_device_name(dev);
	struct ibv_context *ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!ctx)
		*error = "cannot open " + *name + ": " + strerror(errno);
	return ctx;
}

void release_rdma_resources(struct ibv_cq *send_cq, struct ibv_cq *recv_cq, struct ibv_mr *mr,
			    struct ibv_pd *pd, struct ibv_context *ctx, void *buf)
{
	if (send_cq)
		ibv_destroy_cq(send_cq);
	if (recv_cq)
		ibv_destroy_cq(recv_cq);
	if (mr)
		ibv_dereg_mr(mr);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	free(buf);
}

} /* namespace ina */
