/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Packet I/O for end hosts (worker and PS): one interface, several
 * implementations chosen at open time. Frames are whole Ethernet frames in
 * the layout of ina/wire.h; a transport that cannot carry raw frames (the UDP
 * socket) adds and strips the Ethernet/IPv4/UDP headers itself.
 *
 * A Transport is used by one thread at a time. send() and recv() never
 * allocate: frames are copied between the caller's buffers and the
 * transport's rings.
 */
#ifndef INA_TRANSPORT_H
#define INA_TRANSPORT_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ina {

/* A frame buffer owned by the caller. */
struct FrameBuf {
	uint8_t *data;
	uint32_t len;      /* bytes in the frame (set by recv, read by send) */
	uint32_t capacity; /* bytes available at data (recv) */
};

/* One classic BPF instruction, laid out as the kernel's struct sock_filter. */
struct BpfInsn {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};

struct TransportConfig {
	/* "auto" (af_xdp, then af_packet, then udp), "af_xdp", "af_packet",
	 * "udp", "dpdk", "rdma". */
	std::string kind = "auto";
	/* Kernel interface (af_xdp, af_packet, udp), RDMA device (rdma), or
	 * DPDK port name/PCI address (dpdk). */
	std::string device;
	/* Extra EAL arguments for the dpdk transport, space separated. */
	std::string eal_args;
	/* Local IPv4 address in host order; 0 = the interface's address. */
	uint32_t ip = 0;
	/* Local UDP port for the udp transport and the source port of frames. */
	uint16_t udp_port = 0;
	/* udp: send runs of frames to one destination as UDP GSO messages
	 * (UDP_SEGMENT), and take runs of one flow as UDP GRO messages on
	 * receive (UDP_GRO), cut back into frames. Off by default: a GSO message that reaches a socket
	 * on the same host or through a veth without XDP stays one packet up
	 * to the receiving socket, so SO_REUSEPORT steering (ina-ps --threads)
	 * and raw captures of that veth see the run, not its datagrams. Over a
	 * NIC, or a veth into switchd's AF_XDP ports, the datagrams are cut
	 * before they leave. */
	bool udp_gso = false;
	/* IPv4 multicast groups (host order) to receive, e.g. a job's
	 * 239.18.hi.lo. The udp transport joins them; the frame transports
	 * (af_xdp, af_packet, dpdk, rdma) receive the INA multicast frames of
	 * their interface anyway. */
	std::vector<uint32_t> groups;
	/* Fault injection applied on top of any transport (tests): each
	 * probability in [0, 1], per frame, on receive and on send. */
	double drop = 0.0;
	double duplicate = 0.0;
	double reorder = 0.0;
	uint64_t seed = 1;
	/* open_transport_queues() with queues > 1: a classic BPF program that
	 * picks the receive queue of each datagram (its return value, below
	 * the queue count), run with the packet data starting at the UDP
	 * payload (the INA header). Empty: the kernel's 4-tuple hash. */
	std::vector<BpfInsn> steer;
};

class Transport {
public:
	virtual ~Transport() = default;
	/* Sends up to n frames; returns how many were queued. */
	virtual uint32_t send(const FrameBuf *frames, uint32_t n) = 0;
	/* Receives up to n frames into the caller's buffers, waiting at most
	 * timeout_us microseconds (0: poll) for the first one; returns how many. */
	virtual uint32_t recv(FrameBuf *frames, uint32_t n, uint32_t timeout_us) = 0;
	/* "af_xdp", "af_packet", "udp", "dpdk", "rdma", with a "+faults" suffix
	 * when the fault shim wraps it. */
	virtual const char *name() const = 0;
	/* Frames lost on receive below the caller: the kernel's socket or
	 * ring was full, or a frame did not fit the caller's buffer. Where a
	 * transport cannot tell, 0. Safe to call from another thread. */
	virtual uint64_t rx_drops() const { return 0; }
	/* Local addresses, to fill the frames' source fields. */
	virtual uint32_t ip() const = 0;
	virtual void mac(uint8_t out[6]) const = 0;
	/* The largest whole frame (Ethernet header included, ina/wire.h
	 * layout) this transport sends and receives: the interface's MTU +
	 * 14, less where the transport's buffers hold less (AF_XDP's UMEM
	 * chunk). What sizes a job's fragments when nobody names them
	 * (docs/protocol.md, "Fragment size"). */
	virtual uint32_t max_frame() const = 0;
};

/* The most payload elements a frame of `max_frame` bytes carries, at most
 * INA_MAX_ELEMENTS; 0 if not even the headers fit. */
uint32_t frame_elements(uint32_t max_frame);

/* Opens the transport the config names. On failure returns nullptr and sets
 * *error to one line saying what is missing (no such interface, no RDMA
 * device, built without libibverbs, ...). */
std::unique_ptr<Transport> open_transport(const TransportConfig &cfg, std::string *error);

/* Opens up to `queues` transports of the config's kind that share its
 * address, each with its own receive queue, for one thread each; every one
 * may send. The udp transport opens `queues` sockets on one port
 * (SO_REUSEPORT) and steers datagrams between them with cfg.steer. The
 * others open one: their device queue is one, so callers spread the frames
 * over their threads themselves. Empty with *error on failure. */
std::vector<std::unique_ptr<Transport>> open_transport_queues(const TransportConfig &cfg, uint32_t queues,
							       std::string *error);

} /* namespace ina */

#endif /* INA_TRANSPORT_H */
