/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What every program does with its command line and with a failure nobody
 * expected, so that they all behave alike: an error is one line on stderr,
 * "PROG: error: ...", never a second line and never an abort.
 */
#ifndef INA_CLI_H
#define INA_CLI_H

#include <cstdint>
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

/* What every program adds first: --version, printing "PROG VERSION" (the
 * project's version from meson), and every option added after it showing
 * its default in --help. */
void add_standard_options(CLI::App &app, const char *prog);

/* "PROG VERSION" as --version prints it. */
std::string version_line(const char *prog);

/* DPDK's convention (docs/cli.md): EAL arguments before "--", the
 * program's own after it. Without "--" every argument is the program's
 * own. argv[0] is in neither. */
struct EalSplit {
	std::vector<std::string> eal;
	std::vector<std::string> own;
	bool separated = false; /* "--" was given */
};
EalSplit split_eal_args(int argc, const char *const *argv);

/* The EAL arguments as one space-separated string (TransportConfig). */
std::string join_args(const std::vector<std::string> &args);

/* A spelling that is no longer accepted, and what replaced it. */
struct OldSpelling {
	const char *name; /* "--drop": matches "--drop" and "--drop=..." */
	const char *hint; /* "use --host-drop P (the host fault shim)" */
};

/* kExitUsage after "PROG: error: NAME is no longer accepted: HINT" if one
 * of args is an old spelling, else -1. */
int refuse_old_spellings(const char *prog, const std::vector<std::string> &args,
			 const std::vector<OldSpelling> &old);

/* Sizes on every command line: bytes by default, K / M / G for KiB, MiB,
 * GiB (an optional trailing B or iB is accepted: 64M, 64MiB, 1.5G, 4096).
 * False on anything else or a size beyond 2^63. */
bool parse_size(const std::string &text, uint64_t *bytes);

/* CLI11 transform for a size option (parse_size) between lo and hi bytes:
 * the text is replaced by the byte count. */
CLI::Validator size_bytes(uint64_t lo, uint64_t hi);

/* Runs body(); an exception that escapes it (out of memory, a library's
 * own) becomes one error line and exit code 1 instead of an abort. */
int run_main(const char *prog, const std::function<int()> &body);

} /* namespace ina */

#endif
