/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NetReduce's connection information (ina/nr_codec.h).
 */
#include "ina/nr_codec.h"

#include <cstring>

namespace ina {

static const uint8_t kConnMagic[4] = {'N', 'R', 'Q', 'P'};

void roce_conn_info_write(const RoceConnInfo &c, uint8_t out[kRoceConnInfoLen])
{
	memset(out, 0, kRoceConnInfoLen);
	memcpy(out + offsetof(struct nr_conn_info, magic), kConnMagic, 4);
	out[offsetof(struct nr_conn_info, version)] = kRoceConnVersion;
	out[offsetof(struct nr_conn_info, rank)] = c.rank;
	ina_store16(out + offsetof(struct nr_conn_info, ring_id), c.ring_id);
	ina_store32(out + offsetof(struct nr_conn_info, qpn), c.qpn & ROCE_QPN_MASK);
	ina_store32(out + offsetof(struct nr_conn_info, psn), c.psn & ROCE_PSN_MASK);
	memcpy(out + offsetof(struct nr_conn_info, gid), c.gid, 16);
	ina_store16(out + offsetof(struct nr_conn_info, mtu), c.mtu);
	ina_store32(out + offsetof(struct nr_conn_info, msg_bytes), c.msg_bytes);
}

bool roce_conn_info_read(const uint8_t in[kRoceConnInfoLen], RoceConnInfo *out)
{
	if (memcmp(in + offsetof(struct nr_conn_info, magic), kConnMagic, 4) != 0 ||
	    in[offsetof(struct nr_conn_info, version)] != kRoceConnVersion)
		return false;
	RoceConnInfo c;
	c.rank = in[offsetof(struct nr_conn_info, rank)];
	c.ring_id = ina_load16(in + offsetof(struct nr_conn_info, ring_id));
	c.qpn = ina_load32(in + offsetof(struct nr_conn_info, qpn));
	c.psn = ina_load32(in + offsetof(struct nr_conn_info, psn));
	if (c.qpn > ROCE_QPN_MASK || c.psn > ROCE_PSN_MASK)
		return false;
	memcpy(c.gid, in + offsetof(struct nr_conn_info, gid), 16);
	c.mtu = ina_load16(in + offsetof(struct nr_conn_info, mtu));
	c.msg_bytes = ina_load32(in + offsetof(struct nr_conn_info, msg_bytes));
	*out = c;
	return true;
}

} /* namespace ina */
