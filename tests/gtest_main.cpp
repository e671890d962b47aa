/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The main() of every GoogleTest binary in tests/. gtest's own main returns 0
 * when every test that ran called GTEST_SKIP, so meson would count a test
 * that checked nothing (no namespace, no RDMA device, no root) as passed.
 * This one returns 77, meson's SKIP, in that case, and prints the reasons;
 * otherwise it returns what RUN_ALL_TESTS() returned.
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace {

// The message of the first GTEST_SKIP of a skipped test (its reason).
std::string skip_reason(const testing::TestResult &r)
{
	for (int i = 0; i < r.total_part_count(); i++) {
		const testing::TestPartResult &p = r.GetTestPartResult(i);
		if (p.skipped())
			return p.message();
	}
	return "skipped without a reason";
}

} // namespace

int main(int argc, char **argv)
{
	testing::InitGoogleTest(&argc, argv);
	int rc = RUN_ALL_TESTS();
	const testing::UnitTest &u = *testing::UnitTest::GetInstance();
	// --gtest_list_tests and an empty filter run nothing: not a skip.
	if (rc != 0 || u.skipped_test_count() == 0 || u.skipped_test_count() != u.test_to_run_count())
		return rc;

	std::vector<std::string> reasons; // distinct, in order of first use
	std::set<std::string> seen;
	for (int s = 0; s < u.total_test_suite_count(); s++) {
		const testing::TestSuite &suite = *u.GetTestSuite(s);
		for (int t = 0; t < suite.total_test_count(); t++) {
			const testing::TestInfo &info = *suite.GetTestInfo(t);
			if (!info.should_run())
				continue;
			std::string why = skip_reason(*info.result());
			std::printf("skipped %s.%s: %s\n", suite.name(), info.name(), why.c_str());
			if (seen.insert(why).second)
				reasons.push_back(why);
		}
	}
	std::string all;
	for (const std::string &r : reasons)
		all += (all.empty() ? "" : "; ") + r;
	// The last line: what scripts/test.sh shows for a skipped test.
	const int n = u.skipped_test_count();
	std::printf("SKIP: %d test%s, all skipped: %s\n", n, n == 1 ? "" : "s", all.c_str());
	return 77;
}
