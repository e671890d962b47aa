/* SPDX-License-Identifier: BSD-3-Clause
 * Openers for the transports whose library was not found at build time. */
#include "ina/roce_ring.h"
#include "transports.h"

namespace ina {

#ifndef INA_TRANSPORT_HAVE_XDP
std::unique_ptr<Transport> open_af_xdp(const TransportConfig &, std::string *error)
{
	*error = "af_xdp transport not built (libxdp/libbpf not found at build time)";
	return nullptr;
}
#endif

#ifndef INA_TRANSPORT_HAVE_DPDK
std::unique_ptr<Transport> open_dpdk(const TransportConfig &, std::string *error)
{
	*error = "dpdk transport not built (libdpdk not found at build time)";
	return nullptr;
}
#endif

#ifndef INA_TRANSPORT_HAVE_RDMA
std::unique_ptr<Transport> open_rdma(const TransportConfig &, std::string *error)
{
	*error = "rdma transport not built (libibverbs not found at build time)";
	return nullptr;
}

std::unique_ptr<RoceRing> open_roce_ring(const RoceRingConfig &cfg, std::string *error)
{
	if (roce_ring_check(cfg, error))
		*error = "roce transport not built (libibverbs not found at build time)";
	return nullptr;
}
#endif

} /* namespace ina */
