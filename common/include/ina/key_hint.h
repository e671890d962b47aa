/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What an unknown key in a configuration file (ina-switchd's, ina-ps's)
 * most likely meant: a key renamed so that both formats say the same thing
 * the same way, or a close spelling of a known key. Both readers append it
 * to their "unknown key" error (config/README.md, docs/ps.md).
 */
#ifndef INA_KEY_HINT_H
#define INA_KEY_HINT_H

#include <string>
#include <vector>

namespace ina {

/* The new name of a key that was renamed ("bits" -> "bit"), or "". */
std::string renamed_key(const std::string &old_name);

/* "unknown key", followed by "; renamed: use `bit`" for a renamed key
 * that `known` holds, or "; did you mean `elements`?" for the known key
 * within a small edit distance of `key`. */
std::string unknown_key_message(const std::string &key, const std::vector<std::string> &known);

} /* namespace ina */

#endif
