/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What every program does with its command line and with a failure nobody
 * expected, so that they all behave alike: an error is one line on stderr,
 * "PROG: error: ...", never a second line and never an abort.
 */
#ifndef INA_CLI_H
#define INA_CLI_H

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ina {

/* Exit code of a command-line or input error. */
constexpr int kExitUsage = 2;

/* Prints "PROG: error: MESSAGE" as one line (newlines in MESSAGE become
 * "; ") on stderr. */
void print_error(const char *prog, const std::string &message);

/* Parses argv (argv[0] is the program) with `app`. Returns -1 to go on, or
 * the exit code: 0 after --help / --version (printed on stdout),
 * kExitUsage after one error line. An option `app` does not know is named
 * as unknown, before any other complaint such as a missing required one. */
int parse_cli(const char *prog, CLI::App &app, int argc, const char *const *argv);

/* The same for arguments already split off, in CLI11's reversed order
 * (the last argument first). */
int parse_cli(const char *prog, CLI::App &app, std::vector<std::string> reversed_args);

/* CLI::Range for a floating-point option that also refuses NaN and the
 * infinities (CLI::Range lets NaN through). */
CLI::Validator finite_range(double lo, double hi);

/* Runs body(); an exception that escapes it (out of memory, a library's
 * own) becomes one error line and exit code 1 instead of an abort. */
int run_main(const char *prog, const std::function<int()> &body);

} /* namespace ina */

#endif
