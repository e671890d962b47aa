/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Kernel steering of the PS's datagrams to the thread that owns their
 * fragment (ina-ps --threads with the udp transport): a classic BPF program
 * for SO_ATTACH_REUSEPORT_CBPF that computes ps_shard() of each INA data
 * packet from its header, so every worker's copy of a fragment reaches the
 * same socket whatever its source address and port.
 */
#ifndef INA_PS_STEERING_H
#define INA_PS_STEERING_H

#include <string>
#include <vector>

#include "ina/ps.h"
#include "ina/transport.h"

namespace ina {

/* The program, run with the packet data starting at the INA header:
 * returns ps_shard(seq, ps_count of the packet's job, shards) for a data
 * packet and 0 (the thread that talks to the switch) for anything else.
 * Empty with *error if the jobs need more instructions than the kernel
 * takes (a few per job whose ps_count is not 1). */
std::vector<BpfInsn> ps_steering_program(const std::vector<PsJobConfig> &jobs, uint32_t shards,
					 std::string *error);

/* What the program returns for `ina_header` (the bytes from the INA header
 * on, `len` of them), run by a classic BPF interpreter that knows the
 * instructions ps_steering_program() uses; -1 for any other instruction.
 * The tests check the program with it against ps_shard(). */
int64_t ps_steering_run(const std::vector<BpfInsn> &prog, const uint8_t *ina_header, uint32_t len);

} /* namespace ina */

#endif /* INA_PS_STEERING_H */
