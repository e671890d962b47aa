/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/cli.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "ina_build_config.h"

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

std::string version_line(const char *prog)
{
	return std::string(prog) + " " + INA_VERSION_STRING;
}

void add_standard_options(CLI::App &app, const char *prog)
{
	app.set_version_flag("--version", version_line(prog), "print the version and exit");
	app.option_defaults()->always_capture_default();
}

EalSplit split_eal_args(int argc, const char *const *argv)
{
	EalSplit s;
	for (int i = 1; i < argc; i++) {
		const std::string a = argv[i];
		if (!s.separated && a == "--") {
			s.separated = true;
			continue;
		}
		(s.separated ? s.own : s.eal).push_back(a);
	}
	if (!s.separated)
		s.own.swap(s.eal);
	return s;
}

std::string join_args(const std::vector<std::string> &args)
{
	std::string out;
	for (const std::string &a : args)
		out += (out.empty() ? "" : " ") + a;
	return out;
}

int refuse_old_spellings(const char *prog, const std::vector<std::string> &args,
			 const std::vector<OldSpelling> &old)
{
	for (const std::string &a : args)
		for (const OldSpelling &o : old) {
			const std::string n = o.name;
			if (a == n || a.rfind(n + "=", 0) == 0) {
				print_error(prog, n + " is no longer accepted: " + o.hint);
				return kExitUsage;
			}
		}
	return -1;
}

bool parse_size(const std::string &text, uint64_t *bytes)
{
	std::string t = text;
	for (const char *unit : {"iB", "B"})
		if (t.size() > std::string(unit).size() && t.compare(t.size() - std::string(unit).size(),
								   std::string::npos, unit) == 0) {
			t.resize(t.size() - std::string(unit).size());
			break;
		}
	double mult = 1;
	if (!t.empty()) {
		switch (std::toupper(static_cast<unsigned char>(t.back()))) {
		case 'K': mult = 1024.0; break;
		case 'M': mult = 1024.0 * 1024; break;
		case 'G': mult = 1024.0 * 1024 * 1024; break;
		default: break;
		}
		if (mult > 1)
			t.pop_back();
	}
	if (t.empty() || t.find_first_not_of("0123456789.") != std::string::npos)
		return false;
	char *end = nullptr;
	const double v = std::strtod(t.c_str(), &end) * mult;
	if (!end || *end || !std::isfinite(v) || v < 0 || v >= 0x1p63 || v != std::floor(v))
		return false;
	*bytes = static_cast<uint64_t>(v);
	return true;
}

CLI::Validator size_bytes(uint64_t lo, uint64_t hi)
{
	const std::string range = "[" + std::to_string(lo) + " - " + std::to_string(hi) + "] bytes";
	return CLI::Validator(
		[lo, hi, range](std::string &text) -> std::string {
			uint64_t v;
			if (!parse_size(text, &v))
				return "'" + text + "' is not a size (bytes, or with K, M, G: 64K, 1M, 1.5G)";
			if (v < lo || v > hi)
				return "size " + text + " not in range " + range;
			text = std::to_string(v);
			return std::string();
		},
		"SIZE");
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
