/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/key_hint.h"

#include <algorithm>

namespace ina {

namespace {

/* Keys that the switch and the PS once spelt differently for the same
 * thing; the old spelling is refused with the new one named. */
struct Rename {
	const char *old_name;
	const char *new_name;
};
constexpr Rename kRenames[] = {
	{"bits", "bit"},                  /* ina-ps [[workers]] bits */
	{"workers", "worker"},            /* ina-ps [[workers]] */
	{"key_file", "control_key_file"}, /* ina-ps [switch], [[goat.switch]] */
	{"job", "id"},                    /* ina-ps's job file: the job's id, as switchd's [[job]] id */
};

/* Levenshtein distance, cut off at `limit` + 1. */
size_t distance(const std::string &a, const std::string &b, size_t limit)
{
	if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit)
		return limit + 1;
	std::vector<size_t> row(b.size() + 1);
	for (size_t j = 0; j <= b.size(); j++)
		row[j] = j;
	for (size_t i = 1; i <= a.size(); i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= b.size(); j++) {
			const size_t up = row[j];
			row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
			diag = up;
		}
	}
	return row[b.size()];
}

} /* namespace */

std::string renamed_key(const std::string &old_name)
{
	for (const Rename &r : kRenames)
		if (old_name == r.old_name)
			return r.new_name;
	return "";
}

std::string unknown_key_message(const std::string &key, const std::vector<std::string> &known)
{
	const std::string renamed = renamed_key(key);
	if (!renamed.empty() && std::find(known.begin(), known.end(), renamed) != known.end())
		return "unknown key; renamed: use `" + renamed + "`";
	/* One typo per four letters, at most two: "elemnts", not "id" for "ip". */
	const size_t limit = std::min<size_t>(2, key.size() / 4);
	std::string best;
	size_t best_d = limit + 1;
	for (const std::string &k : known) {
		const size_t d = distance(key, k, limit);
		if (d < best_d) {
			best_d = d;
			best = k;
		}
	}
	if (best.empty())
		return "unknown key";
	return "unknown key; did you mean `" + best + "`?";
}

} /* namespace ina */
