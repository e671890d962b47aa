/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The shared command-line helpers (ina/cli.h): sizes, the EAL split, old
 * spellings, and --version / defaults through a real CLI11 parse.
 */
#include <gtest/gtest.h>

#include "ina/cli.h"
#include "ina_build_config.h"

namespace {

TEST(ParseSize, SuffixesAreBinary)
{
	uint64_t b = 0;
	EXPECT_TRUE(ina::parse_size("4096", &b));
	EXPECT_EQ(b, 4096u);
	EXPECT_TRUE(ina::parse_size("64K", &b));
	EXPECT_EQ(b, 64u << 10);
	EXPECT_TRUE(ina::parse_size("1M", &b));
	EXPECT_EQ(b, 1u << 20);
	EXPECT_TRUE(ina::parse_size("1.5G", &b));
	EXPECT_EQ(b, 3ull << 29);
	EXPECT_TRUE(ina::parse_size("4MiB", &b));
	EXPECT_EQ(b, 4u << 20);
	EXPECT_TRUE(ina::parse_size("2m", &b));
	EXPECT_EQ(b, 2u << 20);
	EXPECT_TRUE(ina::parse_size("100B", &b));
	EXPECT_EQ(b, 100u);
}

TEST(ParseSize, RefusesWhatIsNotASize)
{
	uint64_t b = 7;
	for (const char *t : {"", "-1", "1e6", "nan", "1X", "M", "0.5", "1.5", "10000000000G", "1 M"})
		EXPECT_FALSE(ina::parse_size(t, &b)) << t;
	EXPECT_EQ(b, 7u);
}

TEST(EalSplit, BeforeAndAfterTheSeparator)
{
	const char *argv[] = {"prog", "-l", "1", "--", "--job", "x", "--", "y"};
	ina::EalSplit s = ina::split_eal_args(8, argv);
	EXPECT_TRUE(s.separated);
	EXPECT_EQ(s.eal, (std::vector<std::string>{"-l", "1"}));
	EXPECT_EQ(s.own, (std::vector<std::string>{"--job", "x", "--", "y"}));
	EXPECT_EQ(ina::join_args(s.eal), "-l 1");
	const char *own_only[] = {"prog", "--job", "x"};
	s = ina::split_eal_args(3, own_only);
	EXPECT_FALSE(s.separated);
	EXPECT_TRUE(s.eal.empty());
	EXPECT_EQ(s.own.size(), 2u);
}

TEST(OldSpellings, RefusedWithTheirHint)
{
	const std::vector<ina::OldSpelling> old = {{"--drop", "use --host-drop P"}};
	EXPECT_EQ(ina::refuse_old_spellings("t", {"--host-drop", "0.1"}, old), -1);
	EXPECT_EQ(ina::refuse_old_spellings("t", {"--drops"}, old), -1);
	testing::internal::CaptureStderr();
	EXPECT_EQ(ina::refuse_old_spellings("t", {"--drop=0.1"}, old), ina::kExitUsage);
	EXPECT_EQ(testing::internal::GetCapturedStderr(),
		  "t: error: --drop is no longer accepted: use --host-drop P\n");
}

TEST(StandardOptions, VersionAndDefaults)
{
	CLI::App app{"test", "t"};
	ina::add_standard_options(app, "t");
	uint32_t n = 42;
	uint64_t size = 1 << 20;
	app.add_option("--n", n, "a number");
	app.add_option("--size", size, "a size")->transform(ina::size_bytes(1, 1 << 30));
	const std::string help = app.help();
	EXPECT_NE(help.find("=42"), std::string::npos) << help;
	testing::internal::CaptureStdout();
	const char *version[] = {"t", "--version"};
	EXPECT_EQ(ina::parse_cli("t", app, 2, version), 0);
	EXPECT_EQ(testing::internal::GetCapturedStdout(), std::string("t ") + INA_VERSION_STRING + "\n");
	CLI::App app2{"test", "t"};
	ina::add_standard_options(app2, "t");
	app2.add_option("--size", size, "a size")->transform(ina::size_bytes(1, 1 << 30));
	const char *sized[] = {"t", "--size", "64K"};
	EXPECT_EQ(ina::parse_cli("t", app2, 3, sized), -1);
	EXPECT_EQ(size, 64u << 10);
}

} /* namespace */
