// The sanitizer sweep bites: bugs planted in a scenario's step (scenarios/planted_bugs.cpp), run
// inside simulated fibers, are reported by a sweep of the `asan-sweep` build with the seeds that
// did them, as failures of those seeds (never a crash of the sweep), with the sanitizer's finding
// in the run's record and its whole report kept beside the failure. Only a sanitizer build can
// see the first two: elsewhere their tests say so and skip; the abort is seen by every build.
#include <gtest/gtest.h>

#include <set>

#include "cli/tests/sweep_fixture.h"

namespace fencesim::cli::testing::sanitizer_sweep_test {
namespace {

using nlohmann::json;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
// The sanitizers' own findings need their build; an abort kills a worker in any build, so its
// test runs everywhere (red team 32b: the planted abort made to never fire passed every test of
// the ci build, where all three were skipped).
constexpr std::string_view kNeedsSanitizer = "not a sanitizer build (use the asan-sweep preset)";

// Leaks are left to the fuzzers: a leak report at the end of a passing run would look like a bug.
const std::string kPlanted = "FENCESIM_TEST_PLANTED_BUGS=1 ASAN_OPTIONS=detect_leaks=0 ";

class SanitizerSweepTest : public BinaryTest {
 protected:

  // The seeds of 1..`last` whose own `fencesim run` fails: the truth the sweep must match.
  std::set<std::uint64_t> failing_seeds(const std::string& scenario, std::uint64_t last) const {
    std::set<std::uint64_t> seeds;
    for (std::uint64_t seed = 1; seed <= last; ++seed) {
      const Result run = fencesim(
          "run --scenario " + scenario + " --seed " + std::to_string(seed) + " --replay-out r.json",
          kPlanted);
      if (run.code != 0) seeds.insert(seed);
    }
    return seeds;
  }

  // Sweeps `scenario` over seeds 1..`last`; checks that exactly the failing seeds are reported,
  // each as a harness error whose detail starts with `finding`, and returns their records.
  void expect_reported(const std::string& scenario, std::uint64_t last, const std::string& finding,
                       bool report_kept) const {
    const std::set<std::uint64_t> expected = failing_seeds(scenario, last);
    ASSERT_FALSE(expected.empty()) << scenario << " planted nothing in seeds 1.." << last;
    ASSERT_LT(expected.size(), last) << scenario << " planted its bug in every seed";
    const std::string out = "out-" + scenario;
    const Result sweep =
        fencesim("sweep --scenario " + scenario + " --seeds 1.." + std::to_string(last) +
                     " --strategy random --jobs 1 --out " + out + " --draw-limit 0",
                 kPlanted);
    EXPECT_EQ(sweep.code, 5) << sweep.out << sweep.err;
    std::set<std::uint64_t> reported;
    for (const std::string& line : read_lines(dir_ / out / "runs.jsonl")) {
      const json run = json::parse(line);
      if (run["status"] == "pass") continue;
      const std::uint64_t seed = run["seed"].get<std::uint64_t>();
      reported.insert(seed);
      EXPECT_EQ(run["status"], "harness-error") << run.dump();
      const std::string detail = run["detail"].get<std::string>();
      EXPECT_EQ(detail.rfind(finding, 0), 0u) << detail;
      EXPECT_NE(detail.find("while running this seed"), std::string::npos) << detail;
      // The replay command of the seed is printed, as for any failure.
      EXPECT_NE(sweep.out.find("fencesim run --scenario " + scenario + " --seed " +
                               std::to_string(seed) + " --strategy random"),
                std::string::npos)
          << sweep.out;
      const std::string report =
          "failures/" + scenario + "-random-" + std::to_string(seed) + ".sanitizer.txt";
      EXPECT_EQ(fs::exists(dir_ / out / report), report_kept) << report;
    }
    EXPECT_EQ(reported, expected);
    // The workers' stderr files are gone once the sweep ends.
    EXPECT_FALSE(fs::exists(dir_ / out / "workers"));
  }
};

TEST_F(SanitizerSweepTest, HeapUseAfterFreeInAFiberIsReportedWithItsSeed) {
  if (!kSanitized) GTEST_SKIP() << kNeedsSanitizer;
  expect_reported("planted-use-after-free", 8,
                  "sanitizer: AddressSanitizer: heap-use-after-free at planted_bugs.cpp:", true);
}

TEST_F(SanitizerSweepTest, SignedOverflowInAFiberIsReportedWithItsSeed) {
  if (!kSanitized) GTEST_SKIP() << kNeedsSanitizer;
  expect_reported("planted-signed-overflow", 8,
                  "sanitizer: UndefinedBehaviorSanitizer: signed integer overflow: ", true);
}

TEST_F(SanitizerSweepTest, AbortInAFiberIsReportedWithItsSeed) {
  expect_reported("planted-abort-in-fiber", 8, "worker killed by signal 6 (Aborted)", false);
}

}  // namespace
}  // namespace fencesim::cli::testing::sanitizer_sweep_test
