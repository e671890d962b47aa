/* SPDX-License-Identifier: BSD-3-Clause */
#include <cstring>

#include "ina/pipeline.h"

namespace ina {

namespace {

struct CounterInfo {
	const char *name;
	const char *help;
};

constexpr CounterInfo kCounterInfo[] = {
#define INA_X(name, kind, help) {#name, help},
	INA_PIPELINE_COUNTERS(INA_X)
#undef INA_X
};

static_assert(sizeof(kCounterInfo) / sizeof(kCounterInfo[0]) == kCounterCount, "counter table");

} /* namespace */

const char *counter_name(Counter c)
{
	auto i = static_cast<size_t>(c);
	return i < kCounterCount ? kCounterInfo[i].name : nullptr;
}

const char *counter_help(Counter c)
{
	auto i = static_cast<size_t>(c);
	return i < kCounterCount ? kCounterInfo[i].help : nullptr;
}

bool counter_from_name(const char *name, Counter *out)
{
	for (size_t i = 0; i < kCounterCount; i++) {
		if (std::strcmp(kCounterInfo[i].name, name) == 0) {
			*out = static_cast<Counter>(i);
			return true;
		}
	}
	return false;
}

} /* namespace ina */
