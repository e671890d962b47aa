/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The UDP socket transport: the kernel adds and strips Ethernet/IPv4/UDP.
 * send() takes the destination address and port from the caller's frame and
 * sends the INA header and payload; recv() writes the payload at the INA
 * header offset of the caller's buffer and synthesizes the headers in front
 * of it, so callers see whole frames whatever the transport. One socket is
 * bound to ip:port (unicast); one more per multicast group, bound to
 * group:port with SO_REUSEADDR so several local receivers each get a copy.
 *
 * With udp_gso the socket also takes UDP GRO (UDP_GRO): a run of datagrams of
 * one flow arrives as one message (a GSO message from a peer that sends them
 * so, kept whole through loopback or a veth; or datagrams the receiving
 * device's GRO merged), which recv() cuts back into frames from a few 64 KiB
 * receive buffers: one system call for up to 64 datagrams on either side.
 *
 * open_udp_queues() opens several such transports on one ip:port with
 * SO_REUSEPORT, one per receiving thread, and attaches the caller's classic
 * BPF program to the group so that the kernel itself picks the socket of
 * each datagram (a fragment's packets from every worker to one thread).
 */
#include <arpa/inet.h>
#include <linux/filter.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include "ina/codec.h"
#include "ina/wire.h"
#include "netdev.h"
#include "transports.h"

namespace ina {
namespace {

constexpr uint32_t kMaxSockets = 9; /* unicast + 8 groups */

class UdpTransport final : public Transport {
public:
	~UdpTransport() override
	{
		for (uint32_t i = 0; i < nfds_; i++)
			close(pfd_[i].fd);
	}

	/* reuseport: share ip:port with the other queues of a group. */
	bool open(const TransportConfig &cfg, std::string *error, bool reuseport = false)
	{
		reuseport_ = reuseport;
		gso_ = cfg.udp_gso;
		if (!cfg.device.empty()) {
			Netdev nd;
			if (!netdev_lookup(cfg.device, &nd, error))
				return false;
			memcpy(mac_, nd.mac, 6);
			ip_ = nd.ip;
			ifindex_ = nd.ifindex;
			mtu_ = nd.mtu;
		}
		if (cfg.ip != 0)
			ip_ = cfg.ip;
		if (ip_ == 0) {
			*error = "udp transport needs a local IPv4 address (ip) or an interface with one (device)";
			return false;
		}
		/* The kernel would fragment a datagram above the MTU, and a
		 * switch aggregates no IP fragment: the MTU is the limit. */
		if (!mtu_)
			mtu_ = netdev_mtu_of_ip(ip_);
		if (!mtu_)
			mtu_ = kStandardMtu;
		if (cfg.groups.size() + 1 > kMaxSockets) {
			*error = "udp transport: at most 8 multicast groups";
			return false;
		}
		port_ = cfg.udp_port ? cfg.udp_port : INA_UDP_PORT;

		int fd = make_socket(ip_, false, error);
		if (fd < 0)
			return false;
		add_fd(fd, ip_);
		if (gso_)
			enable_gro(fd);
		/* Multicast sent by this socket leaves through our interface and
		 * loops back to local receivers (PS and workers on one host). */
		struct in_addr ifaddr;
		ifaddr.s_addr = htonl(ip_);
		setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &ifaddr, sizeof(ifaddr));
		int one = 1;
		setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &one, sizeof(one));
		int ttl = 16;
		setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl));

		for (uint32_t group : cfg.groups) {
			if ((group >> 28) != 0xE) {
				*error = "udp transport: not a multicast group: " + ip_text(group);
				return false;
			}
			int gfd = make_socket(group, true, error);
			if (gfd < 0)
				return false;
			add_fd(gfd, group);
			struct ip_mreqn mreq;
			memset(&mreq, 0, sizeof(mreq));
			mreq.imr_multiaddr.s_addr = htonl(group);
			mreq.imr_address.s_addr = htonl(ip_);
			mreq.imr_ifindex = ifindex_;
			if (setsockopt(gfd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof(mreq)) < 0) {
				*error = "udp transport: cannot join " + ip_text(group) + ": " + strerror(errno);
				return false;
			}
		}
		return true;
	}

	/* With udp_gso, consecutive frames to one unicast destination with one
	 * payload size leave as one UDP GSO message (UDP_SEGMENT): the kernel
	 * walks its UDP/IP path once per message, not once per frame, and cuts
	 * the datagrams at the end (each a normal datagram on the wire). */
	uint32_t send(const FrameBuf *frames, uint32_t n) override
	{
		uint32_t done = 0;
		while (done < n) {
			uint32_t nmsg = 0, nframes = 0, consumed = 0;
			uint32_t msg_end[kTransportBatch]; /* consumed frames after message m */
			uint32_t last_ip = 0, last_len = 0;
			uint16_t last_port = 0;
			while (done + consumed < n && nframes < kTransportBatch) {
				const FrameBuf &f = frames[done + consumed];
				consumed++;
				Endpoint dst;
				uint32_t payload;
				if (!parse_frame_headers(f.data, f.len, nullptr, &dst, &payload)) {
					/* consumed: never leaves, like a frame lost on the wire */
					if (nmsg)
						msg_end[nmsg - 1] = consumed;
					continue;
				}
				tx_iov_[nframes].iov_base = f.data + INA_L2L3L4_LEN;
				tx_iov_[nframes].iov_len = payload;
				struct msghdr *prev = nmsg ? &tx_msg_[nmsg - 1].msg_hdr : nullptr;
				if (gso_ && prev && dst.ip == last_ip && dst.port == last_port && payload == last_len &&
				    (dst.ip >> 28) != 0xE && prev->msg_iovlen < kGsoSegments &&
				    (prev->msg_iovlen + 1) * payload <= kGsoBytes) {
					prev->msg_iovlen++;
					set_segment_size(nmsg - 1, static_cast<uint16_t>(payload));
					msg_end[nmsg - 1] = consumed;
					nframes++;
					continue;
				}
				struct sockaddr_in &sa = tx_addr_[nmsg];
				sa.sin_family = AF_INET;
				sa.sin_port = htons(dst.port);
				sa.sin_addr.s_addr = htonl(dst.ip);
				struct msghdr &mh = tx_msg_[nmsg].msg_hdr;
				memset(&mh, 0, sizeof(mh));
				mh.msg_name = &sa;
				mh.msg_namelen = sizeof(sa);
				mh.msg_iov = &tx_iov_[nframes];
				mh.msg_iovlen = 1;
				msg_end[nmsg] = consumed;
				last_ip = dst.ip;
				last_port = dst.port;
				last_len = payload;
				nmsg++;
				nframes++;
			}
			if (nmsg > 0) {
				int r = sendmmsg(pfd_[0].fd, tx_msg_, nmsg, MSG_DONTWAIT);
				if (r < 0 && gso_ && (errno == EIO || errno == EINVAL || errno == ENOPROTOOPT)) {
					/* A device or kernel without UDP GSO: plain
					 * datagrams from now on, this batch again. */
					gso_ = false;
					continue;
				}
				if (r < 0)
					r = 0;
				if (static_cast<uint32_t>(r) < nmsg) {
					/* Socket buffer full: report what went out. */
					return done + (r > 0 ? msg_end[r - 1] : 0);
				}
			}
			done += consumed;
		}
		return done;
	}

	uint32_t recv(FrameBuf *frames, uint32_t n, uint32_t timeout_us) override
	{
		if (gro_)
			return fd_recv(pfd_, nfds_, timeout_us, [&] { return drain_gro(frames, n); });
		return fd_recv(pfd_, nfds_, timeout_us, [&] { return drain(frames, n); });
	}

	uint64_t rx_drops() const override
	{
		uint64_t n = truncated_rx_.load(std::memory_order_relaxed);
		for (uint32_t i = 0; i < nfds_; i++)
			n += socket_rx_drops(pfd_[i].fd);
		return n;
	}

	const char *name() const override { return "udp"; }
	uint32_t max_frame() const override { return mtu_ + kEthHeaderLen; }

	/* Attaches the steering program to this socket's reuseport group. */
	bool attach_steering(const std::vector<BpfInsn> &prog, std::string *error)
	{
		static_assert(sizeof(BpfInsn) == sizeof(struct sock_filter), "BpfInsn is a sock_filter");
		struct sock_fprog fp;
		fp.len = static_cast<unsigned short>(prog.size());
		fp.filter = reinterpret_cast<struct sock_filter *>(const_cast<BpfInsn *>(prog.data()));
		if (setsockopt(pfd_[0].fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &fp, sizeof(fp)) < 0) {
			*error = std::string("udp transport: SO_ATTACH_REUSEPORT_CBPF: ") + strerror(errno);
			return false;
		}
		return true;
	}
	uint32_t ip() const override { return ip_; }
	void mac(uint8_t out[6]) const override { memcpy(out, mac_, 6); }

private:
	static std::string ip_text(uint32_t ip)
	{
		struct in_addr a;
		a.s_addr = htonl(ip);
		char buf[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &a, buf, sizeof(buf));
		return buf;
	}

	int make_socket(uint32_t bind_ip, bool shared, std::string *error)
	{
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			*error = std::string("udp transport: socket: ") + strerror(errno);
			return -1;
		}
		int one = 1;
		if (shared)
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!shared && reuseport_ && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0) {
			*error = std::string("udp transport: SO_REUSEPORT: ") + strerror(errno);
			close(fd);
			return -1;
		}
		setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
		int buf = 8 << 20;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) < 0)
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
			setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
		struct sockaddr_in sa;
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons(port_);
		sa.sin_addr.s_addr = htonl(bind_ip);
		if (bind(fd, reinterpret_cast<struct sockaddr *>(&sa), sizeof(sa)) < 0) {
			*error = "udp transport: cannot bind " + ip_text(bind_ip) + ":" +
				 std::to_string(port_) + ": " + strerror(errno);
			close(fd);
			return -1;
		}
		return fd;
	}

	void add_fd(int fd, uint32_t local)
	{
		pfd_[nfds_].fd = fd;
		pfd_[nfds_].events = POLLIN;
		local_[nfds_] = local;
		nfds_++;
	}

	/* The receive buffers are sized for the largest message GRO can hand
	 * up; a kernel without UDP_GRO leaves the socket as it was. */
	void enable_gro(int fd)
	{
		int one = 1;
		if (setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0)
			return;
		gro_buf_.assign(static_cast<size_t>(kGroMsgs) * kGroBytes, 0);
		gro_ = true;
	}

	/* Cuts the messages already received into frames; receives a new set
	 * of messages (from each socket in turn) only once all are cut. */
	uint32_t drain_gro(FrameBuf *frames, uint32_t n)
	{
		if (gro_next_ == gro_count_) {
			gro_next_ = gro_count_ = 0;
			for (uint32_t s = 0; s < nfds_ && gro_count_ == 0; s++) {
				uint32_t k = (next_fd_ + s) % nfds_;
				gro_count_ = receive_gro(k);
			}
			next_fd_ = (next_fd_ + 1) % nfds_;
		}
		uint32_t out = 0;
		while (out < n && gro_next_ < gro_count_) {
			GroMsg &m = gro_msg_[gro_next_];
			uint32_t seg = m.len - m.offset < m.segment ? m.len - m.offset : m.segment;
			FrameBuf &f = frames[out];
			if (f.capacity < INA_L2L3L4_LEN + seg) {
				truncated_rx_.fetch_add(1, std::memory_order_relaxed);
			} else {
				memcpy(f.data + INA_L2L3L4_LEN, gro_data(gro_next_) + m.offset, seg);
				write_frame_headers(f.data, m.src, m.dst, seg, m.tos);
				f.len = INA_L2L3L4_LEN + seg;
				out++;
			}
			m.offset += seg;
			if (m.offset >= m.len)
				gro_next_++;
		}
		return out;
	}

	/* One recvmmsg() into the GRO buffers of socket k; returns the
	 * messages kept (a truncated or empty one is counted and skipped). */
	uint32_t receive_gro(uint32_t k)
	{
		for (uint32_t i = 0; i < kGroMsgs; i++)
			prepare_rx(i, gro_data(i), kGroBytes);
		int r = recvmmsg(pfd_[k].fd, rx_msg_, kGroMsgs, MSG_DONTWAIT, nullptr);
		uint32_t kept = 0;
		for (uint32_t i = 0; i < static_cast<uint32_t>(r > 0 ? r : 0); i++) {
			struct msghdr &mh = rx_msg_[i].msg_hdr;
			uint32_t len = rx_msg_[i].msg_len;
			if ((mh.msg_flags & MSG_TRUNC) || len == 0) {
				truncated_rx_.fetch_add(1, std::memory_order_relaxed);
				continue;
			}
			GroMsg &m = gro_msg_[kept];
			m.segment = len;
			read_addresses(mh, rx_addr_[i], k, &m.src, &m.dst, &m.tos, &m.segment);
			m.len = len;
			m.offset = 0;
			if (kept != i)
				memmove(gro_data(kept), gro_data(i), len);
			kept++;
		}
		return kept;
	}

	/* recvmmsg() message i receives into buf[0..len), with its source
	 * address and control messages. */
	void prepare_rx(uint32_t i, uint8_t *buf, size_t len)
	{
		rx_iov_[i].iov_base = buf;
		rx_iov_[i].iov_len = len;
		struct msghdr &mh = rx_msg_[i].msg_hdr;
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &rx_addr_[i];
		mh.msg_namelen = sizeof(rx_addr_[i]);
		mh.msg_iov = &rx_iov_[i];
		mh.msg_iovlen = 1;
		mh.msg_control = rx_ctrl_[i];
		mh.msg_controllen = sizeof(rx_ctrl_[i]);
	}

	uint8_t *gro_data(uint32_t i) { return gro_buf_.data() + static_cast<size_t>(i) * kGroBytes; }

	/* The datagram's addresses, TOS and (with GRO) segment size from its
	 * source address and control messages. */
	void read_addresses(struct msghdr &mh, const struct sockaddr_in &from, uint32_t k, Endpoint *src, Endpoint *dst,
			    uint8_t *tos, uint32_t *segment)
	{
		memset(src->mac, 0, 6);
		memcpy(dst->mac, mac_, 6);
		src->ip = ntohl(from.sin_addr.s_addr);
		src->port = ntohs(from.sin_port);
		dst->ip = local_[k];
		dst->port = port_;
		*tos = 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
				int size;
				memcpy(&size, CMSG_DATA(c), sizeof(size));
				if (size > 0)
					*segment = static_cast<uint32_t>(size);
				continue;
			}
			if (c->cmsg_level != IPPROTO_IP)
				continue;
			if (c->cmsg_type == IP_PKTINFO) {
				struct in_pktinfo pi;
				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				dst->ip = ntohl(pi.ipi_addr.s_addr);
			} else if (c->cmsg_type == IP_TOS) {
				*tos = *CMSG_DATA(c);
			}
		}
		if ((dst->ip >> 28) == 0xE)
			group_mac(dst->ip, dst->mac);
	}

	/* Message m carries several datagrams of `size` bytes: UDP_SEGMENT. */
	void set_segment_size(uint32_t m, uint16_t size)
	{
		struct msghdr &mh = tx_msg_[m].msg_hdr;
		if (mh.msg_control)
			return;
		mh.msg_control = tx_ctrl_[m];
		mh.msg_controllen = CMSG_SPACE(sizeof(uint16_t));
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		memcpy(CMSG_DATA(c), &size, sizeof(size));
	}

	uint32_t drain(FrameBuf *frames, uint32_t n)
	{
		uint32_t got = 0;
		for (uint32_t s = 0; s < nfds_ && got < n; s++) {
			/* Start with a different socket each call so that no
			 * socket starves the others. */
			uint32_t k = (next_fd_ + s) % nfds_;
			got += drain_one(k, frames + got, n - got);
		}
		next_fd_ = (next_fd_ + 1) % nfds_;
		return got;
	}

	uint32_t drain_one(uint32_t k, FrameBuf *frames, uint32_t n)
	{
		uint32_t want = n < kTransportBatch ? n : kTransportBatch;
		for (uint32_t i = 0; i < want; i++) {
			FrameBuf &f = frames[i];
			prepare_rx(i, f.data + INA_L2L3L4_LEN, f.capacity > INA_L2L3L4_LEN ? f.capacity - INA_L2L3L4_LEN : 0);
		}
		int r = recvmmsg(pfd_[k].fd, rx_msg_, want, MSG_DONTWAIT, nullptr);
		if (r <= 0)
			return 0;
		uint32_t out = 0;
		for (uint32_t i = 0; i < static_cast<uint32_t>(r); i++) {
			struct msghdr &mh = rx_msg_[i].msg_hdr;
			if (mh.msg_flags & MSG_TRUNC) {
				truncated_rx_.fetch_add(1, std::memory_order_relaxed);
				continue;
			}
			Endpoint src, dst;
			uint8_t tos;
			uint32_t segment = 0;
			read_addresses(mh, rx_addr_[i], k, &src, &dst, &tos, &segment);
			uint32_t len = rx_msg_[i].msg_len;
			FrameBuf &f = frames[out];
			if (out != i) /* compact after a dropped datagram */
				memmove(f.data + INA_L2L3L4_LEN, frames[i].data + INA_L2L3L4_LEN, len);
			write_frame_headers(f.data, src, dst, len, tos);
			f.len = INA_L2L3L4_LEN + len;
			out++;
		}
		return out;
	}

	struct pollfd pfd_[kMaxSockets] = {};
	uint32_t local_[kMaxSockets] = {};
	uint32_t nfds_ = 0;
	uint32_t next_fd_ = 0;
	uint32_t ip_ = 0;
	uint32_t mtu_ = 0;
	uint16_t port_ = 0;
	bool reuseport_ = false;
	int ifindex_ = 0;
	uint8_t mac_[6] = {};
	std::atomic<uint64_t> truncated_rx_{0}; /* frames longer than the caller's buffer */

	/* The kernel's limits for one GSO message (UDP_MAX_SEGMENTS, and an IP
	 * datagram's 64 KiB less its headers). */
	static constexpr size_t kGsoSegments = 64;
	static constexpr size_t kGsoBytes = 65535 - 20 - 8;
	bool gso_ = false;

	/* UDP GRO: kGroMsgs receive buffers of one IP datagram's size each;
	 * gro_msg_[gro_next_ .. gro_count_) are still to be cut into frames. */
	struct GroMsg {
		Endpoint src, dst;
		uint32_t len, offset, segment;
		uint8_t tos;
	};
	static constexpr uint32_t kGroMsgs = 8;
	static constexpr size_t kGroBytes = 65536;
	bool gro_ = false;
	std::vector<uint8_t> gro_buf_;
	GroMsg gro_msg_[kGroMsgs];
	uint32_t gro_next_ = 0, gro_count_ = 0;

	struct mmsghdr tx_msg_[kTransportBatch];
	struct iovec tx_iov_[kTransportBatch];
	struct sockaddr_in tx_addr_[kTransportBatch];
	alignas(struct cmsghdr) uint8_t tx_ctrl_[kTransportBatch][CMSG_SPACE(sizeof(uint16_t))];
	struct mmsghdr rx_msg_[kTransportBatch];
	struct iovec rx_iov_[kTransportBatch];
	struct sockaddr_in rx_addr_[kTransportBatch];
	alignas(struct cmsghdr) uint8_t rx_ctrl_[kTransportBatch][128]; /* PKTINFO, TOS, UDP_GRO */
};

} /* namespace */

std::unique_ptr<Transport> open_udp(const TransportConfig &cfg, std::string *error)
{
	auto t = std::make_unique<UdpTransport>();
	if (!t->open(cfg, error))
		return nullptr;
	return t;
}

std::vector<std::unique_ptr<Transport>> open_udp_queues(const TransportConfig &cfg, uint32_t queues,
							 std::string *error)
{
	std::vector<std::unique_ptr<Transport>> out;
	if (!cfg.groups.empty() && queues > 1) {
		/* Every group socket of every queue would get its own copy. */
		*error = "udp transport: several queues with multicast groups are not supported";
		return out;
	}
	UdpTransport *first = nullptr;
	for (uint32_t q = 0; q < queues; q++) {
		auto t = std::make_unique<UdpTransport>();
		if (!t->open(cfg, error, queues > 1))
			return {};
		if (!first)
			first = t.get();
		out.push_back(std::move(t));
	}
	/* Attached once every socket is in the group: the program's answer
	 * is an index into the group's sockets, in the order they bound. */
	if (queues > 1 && !cfg.steer.empty() && !first->attach_steering(cfg.steer, error))
		return {};
	return out;
}

} /* namespace ina */
