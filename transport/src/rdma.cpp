/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The rdma transport: an rdma-core raw Ethernet queue pair
 * (IBV_QPT_RAW_PACKET), the kernel-bypass path of ATP's and A2TP's
 * Mellanox implementations. One QP on port 1 of the device; a flow steering
 * rule (rdma_flow.cpp) gives it the INA frames. Frames are copied between a
 * registered buffer (kSlots receive + kSlots transmit slots) and the caller's
 * buffers. `device` names the RDMA device (mlx5_0), or is empty for the
 * first one. Needs CAP_NET_RAW.
 */
#include <dirent.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ina/wire.h"
#include "netdev.h"
#include "rdma_device.h"
#include "rdma_flow.h"
#include "transports.h"

namespace ina {
namespace {

constexpr uint32_t kSlots = 512;
constexpr uint32_t kSlotSize = (INA_FRAME_LEN(INA_MAX_ELEMENTS) + 63u) & ~63u;
constexpr uint8_t kPort = 1;

class RdmaTransport final : public Transport {
public:
	~RdmaTransport() override
	{
		if (flow_)
			ibv_destroy_flow(flow_);
		if (qp_)
			ibv_destroy_qp(qp_);
		release_rdma_resources(send_cq_, recv_cq_, mr_, pd_, ctx_, buf_);
	}

	bool open(const TransportConfig &cfg, std::string *error)
	{
		std::string dev_name;
		ctx_ = open_rdma_device(cfg.device, &dev_name, error);
		if (!ctx_)
			return false;
		struct ibv_port_attr pattr;
		if (ibv_query_port(ctx_, kPort, &pattr) != 0)
			return fail(error, "cannot query port 1 of " + dev_name);
		if (pattr.link_layer != IBV_LINK_LAYER_ETHERNET) {
			*error = "rdma transport: " + dev_name + " port 1 is not Ethernet (raw packet QPs need RoCE/Ethernet)";
			return false;
		}
		/* MAC and IPv4 address from the device's network interface. */
		std::string netdev = netdev_of(dev_name);
		if (!netdev.empty()) {
			Netdev nd;
			std::string e;
			if (netdev_lookup(netdev, &nd, &e)) {
				memcpy(mac_, nd.mac, 6);
				ip_ = nd.ip;
				mtu_ = nd.mtu;
			}
		}
		if (cfg.ip)
			ip_ = cfg.ip;

		pd_ = ibv_alloc_pd(ctx_);
		if (!pd_)
			return fail(error, "cannot allocate a protection domain");
		if (posix_memalign(&buf_, 4096, size_t(2) * kSlots * kSlotSize) != 0) {
			buf_ = nullptr;
			*error = "rdma transport: out of memory";
			return false;
		}
		mr_ = ibv_reg_mr(pd_, buf_, size_t(2) * kSlots * kSlotSize, IBV_ACCESS_LOCAL_WRITE);
		if (!mr_)
			return fail(error, "cannot register memory");
		recv_cq_ = ibv_create_cq(ctx_, kSlots, nullptr, nullptr, 0);
		send_cq_ = ibv_create_cq(ctx_, kSlots, nullptr, nullptr, 0);
		if (!recv_cq_ || !send_cq_)
			return fail(error, "cannot create completion queues");
		struct ibv_qp_init_attr qattr;
		memset(&qattr, 0, sizeof(qattr));
		qattr.send_cq = send_cq_;
		qattr.recv_cq = recv_cq_;
		qattr.cap.max_send_wr = kSlots;
		qattr.cap.max_recv_wr = kSlots;
		qattr.cap.max_send_sge = 1;
		qattr.cap.max_recv_sge = 1;
		qattr.qp_type = IBV_QPT_RAW_PACKET;
		qp_ = ibv_create_qp(pd_, &qattr);
		if (!qp_)
			return fail(error, "cannot create a raw packet QP (needs CAP_NET_RAW)");
		struct ibv_qp_attr a;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = kPort;
		if (ibv_modify_qp(qp_, &a, IBV_QP_STATE | IBV_QP_PORT))
			return fail(error, "cannot move the QP to INIT");
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		if (ibv_modify_qp(qp_, &a, IBV_QP_STATE))
			return fail(error, "cannot move the QP to RTR");
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		if (ibv_modify_qp(qp_, &a, IBV_QP_STATE))
			return fail(error, "cannot move the QP to RTS");
		for (uint32_t i = 0; i < kSlots; i++)
			if (!post_recv(i))
				return fail(error, "cannot post receive buffers");
		for (uint32_t i = 0; i < kSlots; i++)
			tx_free_[tx_free_n_++] = i;
		RawFlowRule rule;
		build_ina_flow(kPort, nullptr, 0, &rule);
		flow_ = ibv_create_flow(qp_, reinterpret_cast<struct ibv_flow_attr *>(&rule));
		if (!flow_)
			return fail(error, "cannot install the INA flow steering rule");
		return true;
	}

	uint32_t send(const FrameBuf *frames, uint32_t n) override
	{
		reap_sends();
		uint32_t done = 0;
		while (done < n && tx_free_n_ > 0) {
			const FrameBuf &f = frames[done];
			uint32_t slot = tx_free_[--tx_free_n_];
			uint8_t *d = slot_addr(kSlots + slot);
			uint32_t len = f.len < kSlotSize ? f.len : kSlotSize;
			memcpy(d, f.data, len);
			if (!post_one_send(qp_, slot, d, len, mr_->lkey)) {
				tx_free_[tx_free_n_++] = slot;
				break;
			}
			done++;
		}
		return done;
	}

	uint32_t recv(FrameBuf *frames, uint32_t n, uint32_t timeout_us) override
	{
		return poll_recv(timeout_us, [&] { return drain(frames, n); });
	}

	const char *name() const override { return "rdma"; }
	/* The interface's MTU within a ring slot; a slot where no
	 * interface tells. */
	uint32_t max_frame() const override
	{
		const uint32_t slot = INA_FRAME_LEN(INA_MAX_ELEMENTS);
		return mtu_ && mtu_ + kEthHeaderLen < slot ? mtu_ + kEthHeaderLen : slot;
	}
	uint32_t ip() const override { return ip_; }
	void mac(uint8_t out[6]) const override { memcpy(out, mac_, 6); }

private:
	static bool fail(std::string *error, const std::string &what)
	{
		*error = "rdma transport: " + what + ": " + strerror(errno);
		return false;
	}

	/* The network interface of an RDMA device:
	 * /sys/class/infiniband/<dev>/device/net/<netdev>. */
	static std::string netdev_of(const std::string &dev)
	{
		std::string path = "/sys/class/infiniband/" + dev + "/device/net";
		DIR *d = opendir(path.c_str());
		if (!d)
			return "";
		std::string name;
		while (struct dirent *e = readdir(d)) {
			if (e->d_name[0] != '.') {
				name = e->d_name;
				break;
			}
		}
		closedir(d);
		return name;
	}

	uint8_t *slot_addr(uint32_t i) { return static_cast<uint8_t *>(buf_) + size_t(i) * kSlotSize; }

	bool post_recv(uint32_t slot) { return post_one_recv(qp_, slot, slot_addr(slot), kSlotSize, mr_->lkey); }

	void reap_sends()
	{
		struct ibv_wc wc[kTransportBatch];
		int r;
		while ((r = ibv_poll_cq(send_cq_, kTransportBatch, wc)) > 0)
			for (int i = 0; i < r; i++)
				tx_free_[tx_free_n_++] = static_cast<uint32_t>(wc[i].wr_id);
	}

	uint32_t drain(FrameBuf *frames, uint32_t n)
	{
		struct ibv_wc wc[kTransportBatch];
		int want = static_cast<int>(n < kTransportBatch ? n : kTransportBatch);
		int r = ibv_poll_cq(recv_cq_, want, wc);
		uint32_t out = 0;
		for (int i = 0; i < r; i++) {
			uint32_t slot = static_cast<uint32_t>(wc[i].wr_id);
			if (wc[i].status == IBV_WC_SUCCESS && wc[i].byte_len <= frames[out].capacity) {
				memcpy(frames[out].data, slot_addr(slot), wc[i].byte_len);
				frames[out].len = wc[i].byte_len;
				out++;
			} else {
				rx_errors_++;
			}
			post_recv(slot);
		}
		return out;
	}

	struct ibv_context *ctx_ = nullptr;
	struct ibv_pd *pd_ = nullptr;
	struct ibv_mr *mr_ = nullptr;
	struct ibv_cq *recv_cq_ = nullptr, *send_cq_ = nullptr;
	struct ibv_qp *qp_ = nullptr;
	struct ibv_flow *flow_ = nullptr;
	void *buf_ = nullptr;
	uint32_t tx_free_[kSlots];
	uint32_t tx_free_n_ = 0;
	uint32_t ip_ = 0;
	uint32_t mtu_ = 0;
	uint8_t mac_[6] = {};
	uint64_t rx_errors_ = 0;
};

} /* namespace */

std::unique_ptr<Transport> open_rdma(const TransportConfig &cfg, std::string *error)
{
	auto t = std::make_unique<RdmaTransport>();
	if (!t->open(cfg, error))
		return nullptr;
	return t;
}

} /* namespace ina */
