/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The one way the programs read a configuration, job or topology file:
 * a regular file below a size limit, read once. A FIFO would block the
 * reader, /dev/zero never ends and a directory is not a file; each is
 * refused with one line before anything is allocated for it.
 */
#ifndef INA_INPUT_FILE_H
#define INA_INPUT_FILE_H

#include <cstddef>
#include <string>

namespace ina {

/* Far above any real configuration, job description or lab topology. */
constexpr size_t kMaxInputFileBytes = 1u << 20;

/* Reads the whole of `path` into *text. False with *error = "PATH: reason"
 * (missing, not a regular file, over max_bytes, unreadable). */
bool read_input_file(const std::string &path, std::string *text, std::string *error,
		     size_t max_bytes = kMaxInputFileBytes);

} /* namespace ina */

#endif
