/* SPDX-License-Identifier: BSD-3-Clause
 * The XDP program of the af_xdp transport: INA frames (IPv4, no options, not
 * a fragment, UDP to INA_UDP_PORT) go to the AF_XDP socket of their receive
 * queue; everything else goes on to the kernel stack, so the interface keeps
 * working for ARP, ssh and the rest. Written as eBPF instructions here, so no
 * BPF compiler is needed at build time. */
#ifndef INA_TRANSPORT_XDP_FILTER_H
#define INA_TRANSPORT_XDP_FILTER_H

#include <linux/bpf.h>
#include <vector>

namespace ina {

/* The program, with `xsk_map_fd` (a BPF_MAP_TYPE_XSKMAP) as its map. */
std::vector<struct bpf_insn> xdp_ina_filter(int xsk_map_fd);

} /* namespace ina */

#endif
