/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What a counter counts. Every counter list (the X-macros INA_PIPELINE_COUNTERS
 * in pipeline.h, INA_NR_COUNTERS in netreduce.h, switchd's in stats.h) gives
 * each counter its kind in the column after its name, so that whatever
 * reports drops (switchd's summaries, docs/switchd.md "Where every packet
 * went") finds every drop counter from the list itself, with no list of
 * names of its own to keep in step: a counter added without a kind does not
 * compile.
 */
#ifndef INA_COUNTER_KIND_H
#define INA_COUNTER_KIND_H

#include <cstdint>

namespace ina {

enum class CounterKind : uint8_t {
	kEvent, /* a path a packet took or a thing done: a sum */
	kDrop,  /* a packet, or a copy the switch meant to send, discarded: a sum */
	kGauge, /* a level now (a queue's depth), not a sum */
};

} /* namespace ina */

#endif /* INA_COUNTER_KIND_H */
