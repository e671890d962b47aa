/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Arguments of DPDK virtual devices that the programs complete before the
 * EAL sees them.
 *
 * memif: DPDK 22.11's memif PMD splits a frame longer than its buffer size
 * (bsize, 2048 bytes by default) over chained descriptors, and that path
 * delivers frames the sender never sent (measured: 5,462 frames of 3,158
 * bytes sent, 18,064 received). A memif vdev without its own bsize= gets
 * one that holds the largest frame in a single descriptor.
 */
#ifndef INA_VDEV_H
#define INA_VDEV_H

#include <cstdint>
#include <string>

namespace ina {

/* `vdev` ("net_memif0,role=client,socket=/x.sock") with ",bsize=B" added
 * when it is a memif vdev without bsize: B is the smallest power of two,
 * at least 2048, that holds `max_frame` bytes. Any other vdev is
 * returned unchanged. */
std::string complete_vdev_args(const std::string &vdev, uint32_t max_frame);

/* The same for every --vdev argument of an EAL command line, given as
 * whitespace-separated words ("--vdev X", "--vdev=X"). */
std::string complete_eal_vdevs(const std::string &eal_args, uint32_t max_frame);

} /* namespace ina */

#endif
