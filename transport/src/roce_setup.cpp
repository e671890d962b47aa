/* SPDX-License-Identifier: BSD-3-Clause */
#include "roce_setup.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>


namespace ina {

bool roce_ring_check(const RoceRingConfig &c, std::string *error)
{
	auto fail = [error](const std::string &m) {
		if (error)
			*error = m;
		return false;
	};
	RoceWindowConfig w = c.window;
	w.header_bytes = NR_HDR_LEN;
	w.msg_id_bits = 32; /* nr_hdr.msg_id */
	if (!roce_window_check(w, error))
		return false;
	if (c.ranks < 1 || c.ranks > NR_MAX_RANKS)
		return fail("roce ring of " + std::to_string(c.ranks) + " ranks, must be 1.." +
			    std::to_string(NR_MAX_RANKS));
	if (c.rank >= c.ranks)
		return fail("roce rank " + std::to_string(c.rank) + " must be below the ring's " +
			    std::to_string(c.ranks) + " ranks");
	if (c.successor_ip == 0)
		return fail("roce ring needs the successor's address (roce_next)");
	if (c.successor_port == 0 || c.listen_port == 0)
		return fail("roce set-up ports must not be 0");
	if (c.port < 1)
		return fail("roce device port must be 1 or more");
	if (c.setup_timeout_ms == 0 || c.stall_timeout_ns == 0)
		return fail("roce set-up and stall timeouts must be above 0");
	return true;
}

namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
	int fd = -1;
	~Fd()
	{
		if (fd >= 0)
			close(fd);
	}
};

int ms_left(Clock::time_point until)
{
	auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
	return ms > 0 ? static_cast<int>(ms) : 0;
}

sockaddr_in addr_of(uint32_t ip, uint16_t port)
{
	sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(ip);
	a.sin_port = htons(port);
	return a;
}

std::string where(uint32_t ip, uint16_t port)
{
	char b[INET_ADDRSTRLEN];
	struct in_addr a;
	a.s_addr = htonl(ip);
	inet_ntop(AF_INET, &a, b, sizeof(b));
	return std::string(b) + ":" + std::to_string(port);
}

/* Reads or writes exactly len bytes before `until`. */
bool io_all(int fd, uint8_t *buf, size_t len, bool writing, Clock::time_point until)
{
	size_t done = 0;
	while (done < len) {
		struct pollfd p = {fd, static_cast<short>(writing ? POLLOUT : POLLIN), 0};
		int left = ms_left(until);
		if (left == 0 || poll(&p, 1, left) <= 0)
			return false;
		ssize_t r = writing ? send(fd, buf + done, len - done, MSG_NOSIGNAL) : recv(fd, buf + done, len - done, 0);
		if (r <= 0) {
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			return false;
		}
		done += static_cast<size_t>(r);
	}
	return true;
}

bool check_peer(const RoceRingConfig &cfg, const RoceConnInfo &peer, uint8_t want_rank, const char *who,
		std::string *error)
{
	const std::string w = std::string("roce transport: ") + who + " ";
	if (peer.ring_id != cfg.ring_id) {
		*error = w + "is on ring " + std::to_string(peer.ring_id) + ", not " + std::to_string(cfg.ring_id);
		return false;
	}
	if (peer.rank != want_rank) {
		*error = w + "is rank " + std::to_string(peer.rank) + ", expected " + std::to_string(want_rank);
		return false;
	}
	if (peer.mtu != cfg.window.mtu || peer.msg_bytes != cfg.window.msg_bytes) {
		*error = w + "uses MTU " + std::to_string(peer.mtu) + " and " + std::to_string(peer.msg_bytes) +
			 "-byte messages, this worker " + std::to_string(cfg.window.mtu) + " and " +
			 std::to_string(cfg.window.msg_bytes);
		return false;
	}
	return true;
}

} /* namespace */

bool roce_exchange(const RoceRingConfig &cfg, const RoceConnInfo &send_qp, const RoceConnInfo &recv_qp,
		   RoceConnInfo *succ_recv, RoceConnInfo *pred_send, std::string *error)
{
	const auto until = Clock::now() + std::chrono::milliseconds(cfg.setup_timeout_ms);
	const std::string listen_at = where(cfg.listen_ip, cfg.listen_port);
	const std::string succ_at = where(cfg.successor_ip, cfg.successor_port);

	Fd ls;
	ls.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1;
	if (ls.fd < 0 || setsockopt(ls.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0) {
		*error = std::string("roce transport: set-up socket: ") + strerror(errno);
		return false;
	}
	sockaddr_in la = addr_of(cfg.listen_ip, cfg.listen_port);
	if (bind(ls.fd, reinterpret_cast<sockaddr *>(&la), sizeof(la)) != 0 || listen(ls.fd, 4) != 0) {
		*error = "roce transport: cannot listen on " + listen_at + ": " + strerror(errno);
		return false;
	}

	/* Successor: it may not listen yet, so retry until the deadline. */
	Fd sc;
	for (;;) {
		sc.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		sockaddr_in sa = addr_of(cfg.successor_ip, cfg.successor_port);
		if (sc.fd >= 0 && connect(sc.fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) == 0)
			break;
		int e = errno;
		if (sc.fd >= 0)
			close(sc.fd);
		sc.fd = -1;
		if (ms_left(until) == 0) {
			*error = "roce transport: cannot reach the ring successor's set-up port " + succ_at + ": " +
				 strerror(e);
			return false;
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
	uint8_t buf[kRoceConnInfoLen];
	roce_conn_info_write(send_qp, buf);
	if (!io_all(sc.fd, buf, sizeof(buf), true, until)) {
		*error = "roce transport: cannot send to the ring successor " + succ_at;
		return false;
	}

	/* Predecessor: whoever connects first with a valid message. */
	Fd pc;
	for (;;) {
		struct pollfd p = {ls.fd, POLLIN, 0};
		int left = ms_left(until);
		if (left == 0 || poll(&p, 1, left) <= 0) {
			*error = "roce transport: no ring predecessor connected to " + listen_at + " within " +
				 std::to_string(cfg.setup_timeout_ms) + " ms";
			return false;
		}
		pc.fd = accept4(ls.fd, nullptr, nullptr, SOCK_CLOEXEC);
		if (pc.fd >= 0)
			break;
	}
	if (!io_all(pc.fd, buf, sizeof(buf), false, until) || !roce_conn_info_read(buf, pred_send)) {
		*error = "roce transport: no valid set-up message from the ring predecessor";
		return false;
	}
	if (!check_peer(cfg, *pred_send, static_cast<uint8_t>((cfg.rank + cfg.ranks - 1) % cfg.ranks), "predecessor",
			error))
		return false;
	roce_conn_info_write(recv_qp, buf);
	if (!io_all(pc.fd, buf, sizeof(buf), true, until)) {
		*error = "roce transport: cannot answer the ring predecessor";
		return false;
	}

	if (!io_all(sc.fd, buf, sizeof(buf), false, until) || !roce_conn_info_read(buf, succ_recv)) {
		*error = "roce transport: no valid answer from the ring successor " + succ_at;
		return false;
	}
	return check_peer(cfg, *succ_recv, static_cast<uint8_t>((cfg.rank + 1) % cfg.ranks), "successor", error);
}

} /* namespace ina */
