/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The AF_XDP transport (libxdp's xsk API, libbpf for the program): one socket
 * on receive queue 0 of an interface, fed by the program of xdp_filter.cpp
 * that takes only INA frames. Copy mode works on any driver (veth included);
 * the kernel picks zero-copy where the driver has it. The program is attached
 * in driver mode when the driver supports XDP, else in generic (skb) mode.
 *
 * UMEM: kFrames buffers of kFrameSize bytes; the first half feeds the fill
 * ring (receive), the second half is a free list for transmit, refilled from
 * the completion ring. recv()/send() copy between the UMEM and the caller's
 * buffers, and make at most one system call per batch (poll or a TX kick).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/xsk.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "ina/wire.h"
#include "netdev.h"
#include "transports.h"
#include "xdp_filter.h"
#include "xsk_rx.h"

namespace ina {
namespace {

constexpr uint32_t kFrames = 4096;
constexpr uint32_t kFrameSize = XSK_UMEM__DEFAULT_FRAME_SIZE; /* 4096 */
constexpr uint32_t kRing = 2048;
/* What the kernel puts before a received frame in its chunk in copy mode
 * (XDP_PACKET_HEADROOM; frame_headroom is 0): a frame longer than the rest
 * of the chunk is dropped on receive (rx_dropped), whatever the MTU. */
constexpr uint32_t kXdpRxHeadroom = 256;

class AfXdpTransport final : public Transport {
public:
	~AfXdpTransport() override
	{
		if (xsk_)
			xsk_socket__delete(xsk_);
		if (umem_)
			xsk_umem__delete(umem_);
		if (attached_)
			bpf_xdp_detach(ifindex_, xdp_flags_, nullptr);
		if (prog_fd_ >= 0)
			close(prog_fd_);
		if (map_fd_ >= 0)
			close(map_fd_);
		if (area_)
			munmap(area_, size_t(kFrames) * kFrameSize);
		if (absorber_ >= 0)
			close(absorber_);
	}

	bool open(const TransportConfig &cfg, std::string *error)
	{
		Netdev nd;
		if (!netdev_for_transport(cfg, "af_xdp", &nd, error))
			return false;
		memcpy(mac_, nd.mac, 6);
		ip_ = nd.ip;
		ifindex_ = nd.ifindex;
		mtu_ = nd.mtu;
		libbpf_set_print(nullptr); /* errors are reported as one line below */

		map_fd_ = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "ina_xsks", 4, 4, 64, nullptr);
		if (map_fd_ < 0)
			return fail(error, "cannot create the XSKMAP", -map_fd_);
		std::vector<struct bpf_insn> prog = xdp_ina_filter(map_fd_);
		LIBBPF_OPTS(bpf_prog_load_opts, popts);
		prog_fd_ = bpf_prog_load(BPF_PROG_TYPE_XDP, "ina_xdp", "GPL", prog.data(), prog.size(), &popts);
		if (prog_fd_ < 0)
			return fail(error, "cannot load the XDP program", -prog_fd_);
		/* Driver mode if the driver has XDP, else generic; never
		 * replace a program somebody else attached. */
		int r = -1;
		for (uint32_t mode : {uint32_t(XDP_FLAGS_DRV_MODE), uint32_t(XDP_FLAGS_SKB_MODE)}) {
			xdp_flags_ = mode | XDP_FLAGS_UPDATE_IF_NOEXIST;
			r = bpf_xdp_attach(ifindex_, prog_fd_, xdp_flags_, nullptr);
			if (r == 0 || r == -EBUSY || r == -EEXIST)
				break;
		}
		if (r != 0)
			return fail(error, r == -EBUSY || r == -EEXIST
						   ? "an XDP program is already attached to " + cfg.device
						   : "cannot attach the XDP program to " + cfg.device,
				    -r);
		attached_ = true;

		area_ = mmap(nullptr, size_t(kFrames) * kFrameSize, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area_ == MAP_FAILED) {
			area_ = nullptr;
			return fail(error, "cannot map the UMEM", errno);
		}
		struct xsk_umem_config ucfg = {};
		ucfg.fill_size = kRing;
		ucfg.comp_size = kRing;
		ucfg.frame_size = kFrameSize;
		ucfg.frame_headroom = 0;
		struct xsk_socket_config scfg = {};
		scfg.rx_size = kRing;
		scfg.tx_size = kRing;
		scfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
		scfg.bind_flags = XDP_USE_NEED_WAKEUP;
		/* The kernel frees a closed socket's hold on the queue from a
		 * work queue after close(): a socket bound right after the
		 * previous one on the same queue (a restarted process, the next
		 * test) sees EBUSY for a few milliseconds. Wait for it, 1 s at
		 * most. A failed bind leaves the UMEM's rings half set up, so
		 * each try starts from a new UMEM. */
		for (int tries = 0;; tries++) {
			r = xsk_umem__create(&umem_, area_, uint64_t(kFrames) * kFrameSize, &fill_, &comp_, &ucfg);
			if (r) {
				umem_ = nullptr;
				return fail(error, "cannot create the UMEM", -r);
			}
			r = xsk_socket__create(&xsk_, cfg.device.c_str(), 0, umem_, &rx_, &tx_, &scfg);
			if (r == 0)
				break;
			xsk_ = nullptr;
			xsk_umem__delete(umem_);
			umem_ = nullptr;
			if (r != -EBUSY || tries >= 100)
				return fail(error, "cannot create the AF_XDP socket on " + cfg.device, -r);
			usleep(10000);
		}
		r = xsk_socket__update_xskmap(xsk_, map_fd_);
		if (r)
			return fail(error, "cannot insert the socket into the XSKMAP", -r);

		/* First half: receive buffers on the fill ring. */
		uint32_t idx = 0;
		uint32_t n = xsk_ring_prod__reserve(&fill_, kFrames / 2, &idx);
		for (uint32_t i = 0; i < n; i++)
			*xsk_ring_prod__fill_addr(&fill_, idx + i) = uint64_t(i) * kFrameSize;
		xsk_ring_prod__submit(&fill_, n);
		/* Second half: transmit buffers. */
		for (uint32_t i = kFrames / 2; i < kFrames; i++)
			tx_free_[tx_free_n_++] = uint64_t(i) * kFrameSize;
		absorber_ = open_udp_absorber(ip_);
		return true;
	}

	uint32_t send(const FrameBuf *frames, uint32_t n) override
	{
		reclaim();
		uint32_t want = n < tx_free_n_ ? n : tx_free_n_;
		uint32_t idx = 0;
		uint32_t got = want ? xsk_ring_prod__reserve(&tx_, want, &idx) : 0;
		for (uint32_t i = 0; i < got; i++) {
			uint32_t len = frames[i].len < kFrameSize ? frames[i].len : kFrameSize;
			uint64_t addr = tx_free_[--tx_free_n_];
			memcpy(xsk_umem__get_data(area_, addr), frames[i].data, len);
			struct xdp_desc *d = xsk_ring_prod__tx_desc(&tx_, idx + i);
			d->addr = addr;
			d->len = len;
			d->options = 0;
		}
		if (got) {
			xsk_ring_prod__submit(&tx_, got);
			outstanding_ += got;
		}
		kick();
		return got;
	}

	uint32_t recv(FrameBuf *frames, uint32_t n, uint32_t timeout_us) override
	{
		/* Frames still in the TX ring go out while the caller polls. */
		if (outstanding_) {
			reclaim();
			kick();
		}
		struct pollfd pfd = {xsk_socket__fd(xsk_), POLLIN, 0};
		return fd_recv(&pfd, 1, timeout_us, [&] { return drain(frames, n); });
	}

	uint64_t rx_drops() const override
	{
		struct xdp_statistics st = {};
		socklen_t len = sizeof(st);
		uint64_t n = truncated_rx_.load(std::memory_order_relaxed);
		if (xsk_ && getsockopt(xsk_socket__fd(xsk_), SOL_XDP, XDP_STATISTICS, &st, &len) == 0)
			n += st.rx_dropped + st.rx_ring_full + st.rx_fill_ring_empty_descs;
		return n;
	}

	const char *name() const override { return "af_xdp"; }
	uint32_t ip() const override { return ip_; }
	void mac(uint8_t out[6]) const override { memcpy(out, mac_, 6); }
	uint32_t max_frame() const override
	{
		const uint32_t chunk = kFrameSize - kXdpRxHeadroom;
		return mtu_ + kEthHeaderLen < chunk ? mtu_ + kEthHeaderLen : chunk;
	}

private:
	static bool fail(std::string *error, const std::string &what, int err)
	{
		*error = "af_xdp transport: " + what + ": " + strerror(err);
		return false;
	}

	/* In copy mode the kernel transmits at most 32 descriptors per
	 * wakeup (EAGAIN: more left), so one kick per 32 frames. */
	void kick()
	{
		if (!outstanding_ || !xsk_ring_prod__needs_wakeup(&tx_))
			return;
		for (uint32_t i = 0; i < outstanding_ / 32 + 2; i++) {
			if (sendto(xsk_socket__fd(xsk_), nullptr, 0, MSG_DONTWAIT, nullptr, 0) >= 0)
				break;
			if (errno != EAGAIN && errno != EBUSY && errno != ENOBUFS)
				break;
		}
	}

	void reclaim()
	{
		uint32_t idx = 0;
		uint32_t n = xsk_ring_cons__peek(&comp_, kRing, &idx);
		for (uint32_t i = 0; i < n; i++)
			tx_free_[tx_free_n_++] = *xsk_ring_cons__comp_addr(&comp_, idx + i);
		if (n) {
			xsk_ring_cons__release(&comp_, n);
			outstanding_ -= n;
		}
	}

	uint32_t drain(FrameBuf *frames, uint32_t n)
	{
		uint32_t out = 0;
		const uint32_t took = xsk_take_rx(&rx_, &fill_, n, [&](const struct xdp_desc &d) {
			if (d.len > frames[out].capacity) {
				truncated_rx_.fetch_add(1, std::memory_order_relaxed);
				return;
			}
			memcpy(frames[out].data, xsk_umem__get_data(area_, xsk_umem__add_offset_to_addr(d.addr)), d.len);
			frames[out].len = d.len;
			out++;
		});
		/* Keep the kernel filling when it waits for a wakeup. */
		if (!took && xsk_ring_prod__needs_wakeup(&fill_))
			recvfrom(xsk_socket__fd(xsk_), nullptr, 0, MSG_DONTWAIT, nullptr, nullptr);
		return out;
	}

	int ifindex_ = 0;
	uint32_t xdp_flags_ = 0;
	bool attached_ = false;
	int map_fd_ = -1, prog_fd_ = -1, absorber_ = -1;
	void *area_ = nullptr;
	struct xsk_umem *umem_ = nullptr;
	struct xsk_socket *xsk_ = nullptr;
	struct xsk_ring_prod fill_ = {}, tx_ = {};
	struct xsk_ring_cons comp_ = {}, rx_ = {};
	uint64_t tx_free_[kFrames / 2];
	uint32_t tx_free_n_ = 0;
	uint32_t outstanding_ = 0;
	uint32_t ip_ = 0;
	uint32_t mtu_ = 0;
	uint8_t mac_[6] = {};
	std::atomic<uint64_t> truncated_rx_{0};
};

} /* namespace */

std::unique_ptr<Transport> open_af_xdp(const TransportConfig &cfg, std::string *error)
{
	auto t = std::make_unique<AfXdpTransport>();
	if (!t->open(cfg, error))
		return nullptr;
	return t;
}

} /* namespace ina */
