/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/cli.h"

#include <cmath>
#include <cstdio>
#include <new>

namespace ina {

namespace {

/* CLI11 fails on the first problem it meets, and it checks required
 * options before leftovers: `--frob` alone would be reported as "--job is
 * required". With extras allowed, the leftovers are known either way and
 * are reported first. */
int report(const char *prog, const CLI::App &app, const CLI::ParseError *e)
{
	const std::vector<std::string> extra = app.remaining();
	if (!extra.empty()) {
		const std::string &a = extra.front();
		print_error(prog, (a.size() > 1 && a[0] == '-' ? "unknown option '" : "unexpected argument '") +
					  a + "' (see --help)");
		return kExitUsage;
	}
	if (e) {
		print_error(prog, e->what());
		return kExitUsage;
	}
	return -1;
}

template <typename Parse>
int parse_with(const char *prog, CLI::App &app, Parse parse)
{
	app.allow_extras();
	try {
		parse();
	} catch (const CLI::ParseError &e) {
		if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
			return app.exit(e); /* --help, --version: printed on stdout */
		return report(prog, app, &e);
	}
	return report(prog, app, nullptr);
}

} /* namespace */

void print_error(const char *prog, const std::string &message)
{
	std::string line = message;
	for (size_t p; (p = line.find_first_of("\r\n")) != std::string::npos;)
		line.replace(p, 1, p + 1 < line.size() ? "; " : "");
	while (!line.empty() && line.back() == ' ')
		line.pop_back();
	std::fprintf(stderr, "%s: error: %s\n", prog, line.c_str());
}

int parse_cli(const char *prog, CLI::App &app, int argc, const char *const *argv)
{
	return parse_with(prog, app, [&] { app.parse(argc, argv); });
}

int parse_cli(const char *prog, CLI::App &app, std::vector<std::string> reversed_args)
{
	return parse_with(prog, app, [&] { app.parse(reversed_args); });
}

CLI::Validator finite_range(double lo, double hi)
{
	const std::string range = "[" + CLI::detail::to_string(lo) + " - " + CLI::detail::to_string(hi) + "]";
	return CLI::Validator(
		[lo, hi, range](std::string &text) -> std::string {
			double v;
			if (!CLI::detail::lexical_cast(text, v))
				return "'" + text + "' is not a number";
			if (!std::isfinite(v) || v < lo || v > hi)
				return "value " + text + " not in range " + range;
			return std::string();
		},
		"FLOAT in " + range);
}

int run_main(const char *prog, const std::function<int()> &body)
{
	try {
		return body();
	} catch (const std::bad_alloc &) {
		print_error(prog, "out of memory");
	} catch (const std::exception &e) {
		print_error(prog, e.what());
	} catch (...) {
		print_error(prog, "unexpected failure");
	}
	return 1;
}

} /* namespace ina */
