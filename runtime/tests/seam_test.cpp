// The seam of runtime/env.h, checked on the source: outside runtime/real/, the runtime reaches
// time, threads and randomness only through Env, and runtime/ (but its real/ and testing/ folders)
// knows nothing of sim/.
//
// The forbidden names below are spelled with brackets ("sleep[_]for"), so that this file, whose own
// lines are scanned too, does not match itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>
#include "tests/paths.h"

namespace fencesim::runtime::seam_test {
namespace {

namespace fs = std::filesystem;

// Drops '[' and ']': "sleep[_]for" reads as the forbidden name without being it.
std::string unbracket(std::string_view spelled) {
  std::string out;
  for (const char c : spelled) {
    if (c != '[' && c != ']') out += c;
  }
  return out;
}

struct Rule {
  std::string what;
  std::string needle;  // a plain substring every match contains: skips the regex on most lines
  std::regex pattern;
};

// `what` and `needle` are spelled with brackets, as the pattern is.
Rule rule(std::string_view what, std::string_view needle, const char* pattern) {
  return Rule{unbracket(what), unbracket(needle), std::regex(pattern)};
}

const std::vector<Rule>& time_thread_random_rules() {
  static const std::vector<Rule> rules = {
      rule("steady[_]clock::now", "steady[_]clock", R"(steady[_]clock\s*::\s*now\b)"),
      rule("system[_]clock::now", "system[_]clock", R"(system[_]clock\s*::\s*now\b)"),
      rule("high[_]resolution[_]clock::now", "high[_]resolution[_]clock",
           R"(high[_]resolution[_]clock\s*::\s*now\b)"),
      rule("sleep[_]for", "sleep[_]for", R"(\bsleep[_]for\b)"),
      rule("sleep[_]until", "sleep[_]until", R"(\bsleep[_]until\b)"),
      rule("std::[t]hread", "[t]hread", R"(\bstd\s*::\s*[t]hread\b)"),
      rule("std::this[_]thread", "this[_]thread", R"(\bstd\s*::\s*this[_]thread\b)"),
      rule("[r]and(", "[r]and", R"((^|[^\w:.>]|std::)[r]and\s*\()"),
      rule("s[r]and(", "s[r]and", R"(\bs[r]and\s*\()"),
      rule("random[_]device", "random[_]device", R"(\brandom[_]device\b)"),
      rule("wait[_]for(", "wait[_]for", R"(\bwait[_]for\s*\()"),
      rule("wait[_]until(", "wait[_]until", R"(\bwait[_]until\s*\()"),
      rule("[t]ime(nullptr)", "[t]ime", R"((^|[^\w:.>]|std::)[t]ime\s*\(\s*(nullptr|NULL|0)\s*\))"),
      rule("gettime[o]fday", "gettime[o]fday", R"(\bgettime[o]fday\b)"),
      rule("clock[_]gettime", "clock[_]gettime", R"(\bclock[_]gettime\b)"),
  };
  return rules;
}

const std::vector<Rule>& sim_include_rules() {
  static const std::vector<Rule> rules = {
      rule("an include from sim/", "[s]im/", R"(^\s*#\s*include\s*[<"](\.\./)*(fencesim/)?[s]im/)"),
  };
  return rules;
}

bool only_a_line_comment(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  return first != std::string::npos && line.compare(first, 2, "//") == 0;
}

// Every line of `source` that matches a rule, as "label:line: what: text". Lines that are only a
// `//` comment are ignored.
std::vector<std::string> scan(std::string_view source, const std::string& label,
                              const std::vector<Rule>& rules) {
  std::vector<std::string> findings;
  std::istringstream lines{std::string(source)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (only_a_line_comment(line)) continue;
    for (const Rule& rule : rules) {
      if (line.find(rule.needle) != std::string::npos && std::regex_search(line, rule.pattern)) {
        findings.push_back(label + ":" + std::to_string(number) + ": " + rule.what + ": " + line);
      }
    }
  }
  return findings;
}

std::vector<std::string> scan_time_thread_random(std::string_view source,
                                                 const std::string& label = "input") {
  return scan(source, label, time_thread_random_rules());
}

const fs::path kRuntimeDir = fs::path(fencesim::testing::source_dir()) / "runtime";

// Every .h and .cpp under runtime/, sorted, but those under the top-level folders in `skip`.
std::vector<fs::path> runtime_sources(const std::vector<std::string>& skip) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(kRuntimeDir)) {
    if (!entry.is_regular_file()) continue;
    const fs::path& path = entry.path();
    if (path.extension() != ".h" && path.extension() != ".cpp") continue;
    const std::string top = path.lexically_relative(kRuntimeDir).begin()->string();
    if (std::find(skip.begin(), skip.end(), top) != skip.end()) continue;
    files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> scan_tree(const std::vector<std::string>& skip,
                                   const std::vector<Rule>& rules) {
  std::vector<std::string> findings;
  for (const fs::path& path : runtime_sources(skip)) {
    const std::string label = "runtime/" + path.lexically_relative(kRuntimeDir).generic_string();
    for (std::string& finding : scan(read_file(path), label, rules)) {
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}

std::string joined(const std::vector<std::string>& findings) {
  std::string out;
  for (const std::string& finding : findings) out += finding + "\n";
  return out;
}

TEST(Seam, RuntimeReachesNoRealTimeThreadsOrUnseededRandomness) {
  const std::vector<fs::path> files = runtime_sources({"real"});
  ASSERT_GT(files.size(), 10u) << "the runtime's sources were not found under " << kRuntimeDir;
  const std::vector<std::string> findings = scan_tree({"real"}, time_thread_random_rules());
  EXPECT_TRUE(findings.empty())
      << "Outside runtime/real/, time, threads and randomness go through Env (runtime/env.h):\n"
      << joined(findings);
}

TEST(Seam, RuntimeIncludesNothingFromSim) {
  const std::vector<std::string> findings = scan_tree({"real", "testing"}, sim_include_rules());
  EXPECT_TRUE(findings.empty()) << "runtime/ knows nothing of sim/:\n" << joined(findings);
}

TEST(Seam, TheScannerBites) {
  // Each line holds a forbidden call (spelled with brackets, so this file does not match itself).
  const std::vector<std::string_view> forbidden = {
      "auto t = std::chrono::steady[_]clock::now();",
      "auto t = std::chrono::system[_]clock::now();",
      "auto t = std::chrono::high[_]resolution[_]clock::now();",
      "  std::this[_]thread::sleep[_]for(1s);",
      "boost::this_fiber::sleep[_]until(deadline);",
      "std::[t]hread worker([] {});",
      "auto id = std::this[_]thread::get_id();",
      "int r = [r]and();",
      "int r = std::[r]and() % 6;",
      "s[r]and(42);",
      "std::random[_]device device;",
      "cv.wait[_]for(lock, 1s);",
      "cv.wait[_]until(lock, deadline);",
      "auto now = [t]ime(nullptr);",
      "auto now = std::[t]ime(NULL);",
      "gettime[o]fday(&tv, nullptr);",
      "clock[_]gettime(CLOCK_MONOTONIC, &ts);",
      "x = 1; std::[r]and(); // a trailing comment does not hide it",
  };
  for (const std::string_view spelled : forbidden) {
    const std::string line = unbracket(spelled);
    const std::vector<std::string> findings =
        scan_time_thread_random("int ok = 1;\n" + line + "\n", "probe.cpp");
    ASSERT_FALSE(findings.empty()) << line;
    for (const std::string& finding : findings) {
      EXPECT_EQ(finding.rfind("probe.cpp:2: ", 0), 0u) << finding;
    }
  }

  // Names that merely contain a forbidden one, and comment-only lines, pass.
  const std::vector<std::string_view> allowed = {
      "std::uint64_t r = env.random_u64();",
      // Split so that a grep over runtime/ for the forbidden call does not flag this test.
      "operand(x); grand(y); my_rand(z); obj.ra"
      "nd(w); ptr->ra"
      "nd(v);",
      "time_.wait[_]for_generation(generation);",
      "Nanoseconds uptime(0); runtime(nullptr); clock.time(nullptr);",
      "// std::this[_]thread::sleep[_]for(1s) would be a bug here",
      "   // auto t = std::chrono::steady[_]clock::now();",
      "env.sleep(kSecond);",
      "#include \"runtime/env.h\"",
  };
  for (const std::string_view spelled : allowed) {
    const std::string line = unbracket(spelled);
    EXPECT_EQ(joined(scan_time_thread_random(line)), "") << line;
  }

  // The include rule bites too.
  EXPECT_EQ(scan("#include \"sim/scheduler.h\"\n", "probe.h", sim_include_rules()).size(), 1u);
  EXPECT_EQ(scan("#  include <sim/world.h>\n", "probe.h", sim_include_rules()).size(), 1u);
  EXPECT_EQ(scan("#include \"runtime/simple.h\"\n", "probe.h", sim_include_rules()).size(), 0u);
}

}  // namespace
}  // namespace fencesim::runtime::seam_test
