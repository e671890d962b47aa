/* SPDX-License-Identifier: BSD-3-Clause
 * Opening an RDMA device by name, shared by the rdma and roce transports. */
#ifndef INA_TRANSPORT_RDMA_DEVICE_H
#define INA_TRANSPORT_RDMA_DEVICE_H

#include <infiniband/verbs.h>

#include <string>

namespace ina {

/* Opens the device named `want` (empty: the first one) and sets *name to
 * its name. Null with *error = "no RDMA device found (...)", "no RDMA
 * device named X (found: a, b)" or "cannot open X: reason". */
struct ibv_context *open_rdma_device(const std::string &want, std::string *name, std::string *error);

} /* namespace ina */

#endif
