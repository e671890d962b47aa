/* SPDX-License-Identifier: BSD-3-Clause
 * The connection set-up of the roce ring, without verbs: the TCP exchange of
 * RoceConnInfo with both ring neighbours. Tested on loopback without a
 * device. */
#ifndef INA_TRANSPORT_ROCE_SETUP_H
#define INA_TRANSPORT_ROCE_SETUP_H

#include <string>

#include "ina/roce_msg.h"
#include "ina/roce_ring.h"

namespace ina {

/* Listens on cfg.listen_ip:listen_port, connects to the successor and sends
 * it `send_qp` (the QP that sends to it), accepts the predecessor, reads its
 * send QP into *pred_send and answers with `recv_qp`, then reads the
 * successor's receive QP into *succ_recv. Each peer is checked: ring, rank
 * (successor rank + 1, predecessor rank - 1 mod ranks), MTU and message
 * size. Everything within cfg.setup_timeout_ms; false with one line. */
bool roce_exchange(const RoceRingConfig &cfg, const RoceConnInfo &send_qp, const RoceConnInfo &recv_qp,
		   RoceConnInfo *succ_recv, RoceConnInfo *pred_send, std::string *error);

} /* namespace ina */

#endif
