/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The AF_PACKET transport: a SOCK_RAW packet socket bound to one interface,
 * batched with recvmmsg/sendmmsg. A classic BPF filter in the kernel keeps
 * only IPv4/UDP frames to INA_UDP_PORT, so the caller sees INA frames only.
 * The socket is bound to ETH_P_IP, which does not see the frames this host
 * sends, only those it receives.
 */
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ina/wire.h"
#include "netdev.h"
#include "transports.h"

namespace ina {

int open_udp_absorber(uint32_t ip)
{
	if (ip == 0)
		return -1;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* "ret #0": the socket takes the datagram and discards it. */
	struct sock_filter drop_all[] = {{BPF_RET | BPF_K, 0, 0, 0}};
	struct sock_fprog prog = {1, drop_all};
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(INA_UDP_PORT);
	sa.sin_addr.s_addr = htonl(ip);
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
	    bind(fd, reinterpret_cast<struct sockaddr *>(&sa), sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

namespace {

/* tcpdump -dd 'ip and udp dst port 18766 and not ip[6:2] & 0x1fff != 0'
 * reduced to: IPv4, UDP, first fragment, UDP dst port == INA_UDP_PORT. */
const struct sock_filter kInaFilter[] = {
	{0x28, 0, 0, 0x0000000c},    /* ldh [12]            ethertype */
	{0x15, 0, 8, 0x00000800},    /* jeq IPv4 else drop */
	{0x30, 0, 0, 0x00000017},    /* ldb [23]            proto */
	{0x15, 0, 6, 0x00000011},    /* jeq UDP else drop */
	{0x28, 0, 0, 0x00000014},    /* ldh [20]            frag */
	{0x45, 4, 0, 0x00001fff},    /* jset offset -> drop */
	{0xb1, 0, 0, 0x0000000e},    /* ldxb 4*([14]&0xf)   ihl */
	{0x48, 0, 0, 0x00000010},    /* ldh [x + 16]        dst port */
	{0x15, 0, 1, INA_UDP_PORT},  /* jeq INA */
	{0x06, 0, 0, 0x00040000},    /* accept */
	{0x06, 0, 0, 0x00000000},    /* drop */
};

class AfPacketTransport final : public Transport {
public:
	~AfPacketTransport() override
	{
		if (fd_ >= 0)
			close(fd_);
		if (absorber_ >= 0)
			close(absorber_);
	}

	bool open(const TransportConfig &cfg, std::string *error)
	{
		Netdev nd;
		if (!netdev_for_transport(cfg, "af_packet", &nd, error))
			return false;
		memcpy(mac_, nd.mac, 6);
		ip_ = nd.ip;
		mtu_ = nd.mtu;

		fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_IP));
		if (fd_ < 0) {
			*error = std::string("af_packet transport: socket: ") + strerror(errno) +
				 (errno == EPERM ? " (needs CAP_NET_RAW)" : "");
			return false;
		}
		struct sock_fprog prog = {
			static_cast<unsigned short>(sizeof(kInaFilter) / sizeof(kInaFilter[0])),
			const_cast<struct sock_filter *>(kInaFilter)};
		if (setsockopt(fd_, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0) {
			*error = std::string("af_packet transport: filter: ") + strerror(errno);
			return false;
		}
		int buf = 8 << 20;
		if (setsockopt(fd_, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) < 0)
			setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
		if (setsockopt(fd_, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
			setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
		int one = 1;
		/* Frames go straight to the driver: the fault shim, not a
		 * qdisc, decides what is lost. */
		setsockopt(fd_, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));

		struct sockaddr_ll sll;
		memset(&sll, 0, sizeof(sll));
		sll.sll_family = AF_PACKET;
		sll.sll_protocol = htons(ETH_P_IP);
		sll.sll_ifindex = nd.ifindex;
		if (bind(fd_, reinterpret_cast<struct sockaddr *>(&sll), sizeof(sll)) < 0) {
			*error = std::string("af_packet transport: bind ") + cfg.device + ": " +
				 strerror(errno);
			return false;
		}
		/* Receive the job multicast frames whatever their MAC. */
		struct packet_mreq mr;
		memset(&mr, 0, sizeof(mr));
		mr.mr_ifindex = nd.ifindex;
		mr.mr_type = PACKET_MR_ALLMULTI;
		setsockopt(fd_, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
		/* Frames queued before the filter was attached may be anything:
		 * drop them. */
		char scratch[64];
		while (::recv(fd_, scratch, sizeof(scratch), MSG_DONTWAIT) >= 0) {
		}
		absorber_ = open_udp_absorber(ip_);
		return true;
	}

	uint32_t send(const FrameBuf *frames, uint32_t n) override
	{
		uint32_t done = 0;
		while (done < n) {
			uint32_t batch = n - done < kTransportBatch ? n - done : kTransportBatch;
			for (uint32_t i = 0; i < batch; i++) {
				tx_iov_[i].iov_base = frames[done + i].data;
				tx_iov_[i].iov_len = frames[done + i].len;
				struct msghdr &mh = tx_msg_[i].msg_hdr;
				memset(&mh, 0, sizeof(mh));
				mh.msg_iov = &tx_iov_[i];
				mh.msg_iovlen = 1;
			}
			int r = sendmmsg(fd_, tx_msg_, batch, MSG_DONTWAIT);
			if (r <= 0) {
				/* A frame the driver rejects (too long, too short)
				 * fails the whole call: skip it (the caller sees it
				 * as sent, like a frame lost on the wire). */
				if (r < 0 && (errno == EMSGSIZE || errno == EINVAL)) {
					done++;
					continue;
				}
				return done;
			}
			done += static_cast<uint32_t>(r);
			if (static_cast<uint32_t>(r) < batch)
				return done;
		}
		return done;
	}

	uint32_t recv(FrameBuf *frames, uint32_t n, uint32_t timeout_us) override
	{
		struct pollfd pfd = {fd_, POLLIN, 0};
		return fd_recv(&pfd, 1, timeout_us, [&] { return drain(frames, n); });
	}

	uint64_t rx_drops() const override
	{
		return socket_rx_drops(fd_) + truncated_rx_.load(std::memory_order_relaxed);
	}
	const char *name() const override { return "af_packet"; }
	uint32_t max_frame() const override { return mtu_ + kEthHeaderLen; }
	uint32_t ip() const override { return ip_; }
	void mac(uint8_t out[6]) const override { memcpy(out, mac_, 6); }

private:
	uint32_t drain(FrameBuf *frames, uint32_t n)
	{
		uint32_t got = 0;
		while (got < n) {
			uint32_t want = n - got < kTransportBatch ? n - got : kTransportBatch;
			for (uint32_t i = 0; i < want; i++) {
				rx_iov_[i].iov_base = frames[got + i].data;
				rx_iov_[i].iov_len = frames[got + i].capacity;
				struct msghdr &mh = rx_msg_[i].msg_hdr;
				memset(&mh, 0, sizeof(mh));
				mh.msg_iov = &rx_iov_[i];
				mh.msg_iovlen = 1;
			}
			int r = recvmmsg(fd_, rx_msg_, want, MSG_DONTWAIT, nullptr);
			if (r <= 0)
				break;
			uint32_t kept = 0;
			for (uint32_t i = 0; i < static_cast<uint32_t>(r); i++) {
				if (rx_msg_[i].msg_hdr.msg_flags & MSG_TRUNC) {
					truncated_rx_.fetch_add(1, std::memory_order_relaxed);
					continue;
				}
				FrameBuf &f = frames[got + kept];
				if (kept != i)
					memmove(f.data, frames[got + i].data, rx_msg_[i].msg_len);
				f.len = rx_msg_[i].msg_len;
				kept++;
			}
			got += kept;
			if (static_cast<uint32_t>(r) < want)
				break;
		}
		return got;
	}

	int fd_ = -1;
	int absorber_ = -1;
	uint32_t ip_ = 0;
	uint32_t mtu_ = 0;
	uint8_t mac_[6] = {};
	std::atomic<uint64_t> truncated_rx_{0}; /* frames longer than the caller's buffer */
	struct mmsghdr tx_msg_[kTransportBatch];
	struct iovec tx_iov_[kTransportBatch];
	struct mmsghdr rx_msg_[kTransportBatch];
	struct iovec rx_iov_[kTransportBatch];
};

} /* namespace */

std::unique_ptr<Transport> open_af_packet(const TransportConfig &cfg, std::string *error)
{
	auto t = std::make_unique<AfPacketTransport>();
	if (!t->open(cfg, error))
		return nullptr;
	return t;
}

} /* namespace ina */
