/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/vdev.h"

#include <sstream>

namespace ina {

std::string complete_vdev_args(const std::string &vdev, uint32_t max_frame)
{
	if (vdev.rfind("net_memif", 0) != 0 && vdev.rfind("eth_memif", 0) != 0)
		return vdev;
	/* The keys: every ",key=" after the device name. */
	if (vdev.find(",bsize=") != std::string::npos)
		return vdev;
	uint32_t bsize = 2048;
	while (bsize < max_frame && bsize < 32768)
		bsize <<= 1;
	return vdev + ",bsize=" + std::to_string(bsize);
}

std::string complete_eal_vdevs(const std::string &eal_args, uint32_t max_frame)
{
	std::istringstream is(eal_args);
	std::string out;
	bool next_is_vdev = false;
	for (std::string w; is >> w;) {
		if (next_is_vdev)
			w = complete_vdev_args(w, max_frame);
		else if (w.rfind("--vdev=", 0) == 0)
			w = "--vdev=" + complete_vdev_args(w.substr(7), max_frame);
		next_is_vdev = w == "--vdev";
		out += out.empty() ? w : " " + w;
	}
	return out;
}

} /* namespace ina */
