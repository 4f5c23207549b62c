// Triage in the sweep's reports: failures grouped by signature (one group per bug, new or known,
// first seed, smallest shrunk example), the groups first in summary.json, and summary.md checked
// against GitHub's table rules by a small parser of its own.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "reports/groups.h"
#include "reports/summary.h"
#include "reports/summary_markdown.h"

namespace fencesim::reports::triage_reports_test {
namespace {

using nlohmann::ordered_json;

RunRecord record(const std::string& scenario, const std::string& strategy, std::uint64_t seed,
                 const std::string& signature, std::uint64_t shrunk_faults) {
  RunRecord r;
  r.scenario = scenario;
  r.strategy = strategy;
  r.seed = seed;
  r.history_hash = "00000000000000aa";
  if (signature.empty()) {
    r.status = "pass";
    return r;
  }
  r.status = "violation";
  r.violations = 1;
  r.first_violation = RecordedViolation{signature.substr(0, signature.find(':')), "what failed"};
  r.signature = signature;
  FailureFiles files;
  const std::string base = "failures/" + scenario + "-" + strategy + "-" + std::to_string(seed);
  files.replay = base + ".replay.json";
  files.original_faults = 4;
  if (shrunk_faults > 0) {
    files.shrunk_replay = base + ".shrunk.replay.json";
    files.html = base + ".html";
    files.timeline = base + ".timeline.json";
    files.shrunk_faults = shrunk_faults;
  }
  r.failure = files;
  return r;
}

const std::string kSink = "sink-monotonicity: sink-accepted(sink)";
const std::string kEpochs = "per-key-epochs: store-lease-granted(store, t1)";

std::vector<RunRecord> two_bugs() {
  std::vector<RunRecord> records = {
      record("kleppmann-fencing", "pct", 2, kSink, 2),
      record("kleppmann-fencing", "random", 1, kSink, 0),  // past the draw limit: not shrunk
      record("kleppmann-fencing", "random", 3, kSink, 1),
      record("nightly-mix", "random", 1, kEpochs, 0),
      record("nightly-mix", "random", 2, "", 0),
      record("nightly-mix", "random", 4, kSink, 1),
  };
  sort_records(records);
  return records;
}

TEST(GroupsTest, OneGroupPerSignatureWithItsFirstSeedAndSmallestExample) {
  const std::vector<RunRecord> records = two_bugs();
  const std::vector<FailureGroup> groups = failure_groups(records, nullptr);
  ASSERT_EQ(groups.size(), 2u);
  const FailureGroup& sink = groups[0];  // the most frequent first
  EXPECT_EQ(sink.signature, kSink);
  EXPECT_EQ(sink.members.size(), 4u);
  EXPECT_EQ(sink.scenarios, (std::vector<std::string>{"kleppmann-fencing", "nightly-mix"}));
  EXPECT_EQ(sink.strategies, (std::vector<std::string>{"pct", "random"}));
  EXPECT_EQ(records[sink.first].seed, 1u);
  // Two failures shrank to one fault: the earlier seed is the example.
  ASSERT_TRUE(sink.example_shrunk);
  EXPECT_EQ(records[sink.example].seed, 3u);
  EXPECT_EQ(records[sink.example].scenario, "kleppmann-fencing");
  const FailureGroup& epochs = groups[1];
  EXPECT_EQ(epochs.members.size(), 1u);
  EXPECT_FALSE(epochs.example_shrunk);
  EXPECT_EQ(epochs.kind, "per-key-epochs");
}

TEST(GroupsTest, TwoSignaturesOfOneInvariantAreTwoGroups) {
  // One invariant broken at two different moments is two bugs until a person says otherwise: the
  // group is keyed by the whole signature, never by the invariant alone.
  const std::string sink_dedup = "sink-monotonicity: sink-deduplicated(sink)";
  const std::vector<RunRecord> records = {
      record("kleppmann-fencing", "random", 1, kSink, 0),
      record("kleppmann-fencing", "random", 2, sink_dedup, 0),
      record("nightly-mix", "random", 3, kSink, 0),
  };
  const std::vector<FailureGroup> groups = failure_groups(records, nullptr);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].signature, kSink);
  EXPECT_EQ(groups[0].members, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(groups[1].signature, sink_dedup);
  EXPECT_EQ(groups[1].members, (std::vector<std::size_t>{1}));
  EXPECT_EQ(groups[0].kind, groups[1].kind);
  EXPECT_NE(groups[0].id, groups[1].id);
}

TEST(GroupsTest, NewGroupsComeBeforeKnownOnes) {
  const std::vector<RunRecord> records = two_bugs();
  KnownSignatures known;
  known.add(KnownSignatures{{"last-night"}, {kSink}});
  const std::vector<FailureGroup> groups = failure_groups(records, &known);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].signature, kEpochs);
  EXPECT_FALSE(groups[0].known);
  EXPECT_EQ(groups[1].signature, kSink);
  EXPECT_TRUE(groups[1].known);
}

SweepManifest manifest_of(std::optional<KnownSignatures> known) {
  SweepManifest m;
  m.fencesim_version = "0.1.0";
  m.configuration.scenarios = {
      SweptScenario{"kleppmann-fencing", "the story", {"takeover-mid-step"}},
      SweptScenario{"nightly-mix", "the mix", {}}};
  m.configuration.seeds_first = 1;
  m.configuration.seeds_last = 4;
  m.configuration.strategies = {"pct", "random"};
  m.shard_indices = {0};
  m.known = std::move(known);
  return m;
}

TEST(GroupsTest, SummaryPutsTheGroupsFirstAndFoldsEveryFailureUnderOne) {
  KnownSignatures known;
  known.add(KnownSignatures{{"corpus"}, {kEpochs, "something fixed long ago"}});
  const ordered_json summary = sweep_summary(manifest_of(known), two_bugs(), {});
  // Right after what the file is: the groups, before the configuration and the counts.
  std::vector<std::string> keys;
  for (const auto& [key, value] : summary.items()) keys.push_back(key);
  ASSERT_GE(keys.size(), 5u);
  EXPECT_EQ(keys[3], "known");
  EXPECT_EQ(keys[4], "groups");
  EXPECT_EQ(summary["known"]["signatures"], 2);
  EXPECT_EQ(summary["totals"]["groups"], 2);
  EXPECT_EQ(summary["totals"]["new_groups"], 1);
  const ordered_json& groups = summary["groups"];
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0]["signature"], kSink);
  EXPECT_EQ(groups[0]["known"], false);
  EXPECT_EQ(groups[0]["count"], 4);
  EXPECT_EQ(groups[0]["first"]["seed"], 1);
  EXPECT_EQ(groups[0]["example"]["faults"], 1);
  EXPECT_EQ(groups[0]["example"]["replay_command"],
            "fencesim replay failures/kleppmann-fencing-random-3.shrunk.replay.json");
  EXPECT_EQ(groups[0]["example"]["html"], "failures/kleppmann-fencing-random-3.html");
  EXPECT_EQ(groups[1]["known"], true);
  EXPECT_EQ(groups[1]["example"]["shrunk"], false);
  EXPECT_EQ(groups[1]["example"]["replay_command"],
            "fencesim replay failures/nightly-mix-random-1.replay.json");
  // Every failure is in exactly one group, and says which.
  std::vector<int> seen(summary["failures"].size(), 0);
  for (const ordered_json& group : groups) {
    for (const ordered_json& index : group["failures"]) {
      ASSERT_LT(index.get<std::size_t>(), seen.size());
      ++seen[index.get<std::size_t>()];
      EXPECT_EQ(summary["failures"][index.get<std::size_t>()]["group"], group["id"]);
      EXPECT_EQ(summary["failures"][index.get<std::size_t>()]["signature"], group["signature"]);
    }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(seen.size()));
  // Without --known, nothing is judged: "known" is null, not false.
  const ordered_json plain = sweep_summary(manifest_of(std::nullopt), two_bugs(), {});
  EXPECT_TRUE(plain["known"].is_null());
  EXPECT_TRUE(plain["groups"][0]["known"].is_null());
}

// A table as GitHub's Markdown reads it: a header row, a delimiter row of as many cells, body rows
// of as many cells; a cell ends at a '|' not escaped by a backslash, even inside a code span.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::vector<std::string> split_row(const std::string& line) {
  EXPECT_TRUE(line.starts_with("|") && line.ends_with("|")) << line;
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      cell += line.substr(i, 2);
      ++i;
    } else if (line[i] == '|') {
      const auto first = cell.find_first_not_of(' ');
      const auto last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

bool is_delimiter_row(const std::string& line) {
  if (!line.starts_with("|")) return false;
  for (const std::string& cell : split_row(line)) {
    const std::string bare = cell.substr(cell.starts_with(":") ? 1 : 0);
    if (bare.empty() || bare.find_first_not_of("-:") != std::string::npos) return false;
  }
  return true;
}

std::vector<Table> parse_tables(const std::string& markdown) {
  std::vector<std::string> lines;
  std::string line;
  for (const char c : markdown) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  std::vector<Table> tables;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!lines[i].starts_with("|") || !is_delimiter_row(lines[i + 1])) {
      // A row-like line outside a table would render as text: there must be none.
      EXPECT_FALSE(lines[i].starts_with("|")) << "a table row without a table: " << lines[i];
      continue;
    }
    Table table;
    table.header = split_row(lines[i]);
    EXPECT_EQ(split_row(lines[i + 1]).size(), table.header.size()) << lines[i + 1];
    if (i > 0) {
      EXPECT_EQ(lines[i - 1], "") << "a table must follow a blank line";
    }
    std::size_t j = i + 2;
    for (; j < lines.size() && lines[j].starts_with("|"); ++j) {
      table.rows.push_back(split_row(lines[j]));
      EXPECT_EQ(table.rows.back().size(), table.header.size()) << lines[j];
    }
    tables.push_back(std::move(table));
    i = j - 1;
  }
  return tables;
}

// A cell's text as it shows: a code span without its fence ("\|" still a pipe inside it), or
// text without its backslash escapes.
std::string shown(const std::string& cell) {
  std::string out;
  if (cell.starts_with("`")) {
    const std::size_t fence = cell.find_first_not_of('`');
    std::string body = cell.substr(fence, cell.size() - 2 * fence);
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (body[i] == '\\' && i + 1 < body.size() && body[i + 1] == '|') continue;
      out += body[i];
    }
    return out;
  }
  for (std::size_t i = 0; i < cell.size(); ++i) {
    if (cell[i] == '\\' && i + 1 < cell.size()) ++i;
    out += cell[i];
  }
  return out;
}

TEST(SummaryMarkdownTest, RendersAsMarkdownTables) {
  std::vector<RunRecord> records = two_bugs();
  // A hostile name and message: pipes, markup, a line break, backticks.
  records.push_back(record("nightly-mix", "random", 9, "exactly-once: a|b `c` *d*\nnext", 1));
  records.back().scenario = "nightly-mix";
  records.back().figures = {{"unchecked|overlap", 12}};
  sort_records(records);
  KnownSignatures known;
  known.add(KnownSignatures{{"night_1|old"}, {kEpochs}});
  const ordered_json summary = sweep_summary(manifest_of(known), records, {});
  const std::string markdown = summary_markdown(summary);
  EXPECT_TRUE(markdown.starts_with("## fencesim sweep: 3 distinct failures (2 new)\n")) << markdown;
  const std::vector<Table> tables = parse_tables(markdown);
  // groups, claims (kleppmann-fencing's declared mark, too few runs to judge), totals, scenarios,
  // figures
  ASSERT_EQ(tables.size(), 5u) << markdown;
  EXPECT_EQ(tables[1].header[0], "verdict");
  ASSERT_EQ(tables[1].rows.size(), 1u);
  EXPECT_EQ(tables[1].rows[0][0], "not enough runs");
  EXPECT_EQ(tables[1].rows[0][3], "takeover-mid-step");
  EXPECT_EQ(tables[2].header[0], "runs");
  EXPECT_EQ(tables[2].rows.at(0).at(0), "7");
  const Table& groups = tables[0];
  ASSERT_EQ(groups.rows.size(), 3u);
  EXPECT_EQ(groups.header[1], "signature");
  EXPECT_EQ(groups.rows[0][0], "**new**");
  EXPECT_EQ(shown(groups.rows[0][1]), kSink);
  EXPECT_EQ(groups.rows[0][2], "4");
  EXPECT_EQ(shown(groups.rows[0][7]),
            "fencesim replay failures/kleppmann-fencing-random-3.shrunk.replay.json");
  // The hostile signature shows as written, its line break as a space, in one cell.
  bool hostile = false;
  for (const auto& row : groups.rows) hostile |= shown(row[1]) == "exactly-once: a|b `c` *d* next";
  EXPECT_TRUE(hostile) << markdown;
  EXPECT_EQ(groups.rows[2][0], "known");
  EXPECT_NE(markdown.find("New or known against night\\_1\\|old (1 known signatures)."),
            std::string::npos)
      << markdown;
  const Table& scenarios = tables[3];
  ASSERT_EQ(scenarios.rows.size(), 2u);
  EXPECT_EQ(scenarios.header[4], "marks never reached");
  EXPECT_EQ(scenarios.rows[0][4], "takeover-mid-step");  // declared, never counted
  EXPECT_EQ(scenarios.rows[1][4], "none");
  // Each count in its own column, as the summary has it (red team 33c: the failures column showed
  // the nondeterministic count, 0, beside a scenario whose runs failed).
  EXPECT_EQ(scenarios.header[2], "failures");
  EXPECT_EQ(scenarios.header[3], "nondeterministic");
  int failing_scenarios = 0;
  for (std::size_t i = 0; i < scenarios.rows.size(); ++i) {
    const ordered_json& s = summary.at("scenarios").at(i);
    EXPECT_EQ(scenarios.rows[i][0], s.at("name").get<std::string>());
    EXPECT_EQ(scenarios.rows[i][2], s.at("failures").dump()) << markdown;
    EXPECT_EQ(scenarios.rows[i][3], s.at("nondeterministic").dump()) << markdown;
    if (s.at("failures").get<int>() > 0 && s.at("nondeterministic").get<int>() == 0) {
      ++failing_scenarios;
    }
  }
  EXPECT_GT(failing_scenarios, 0) << "the columns are told apart only by a scenario that failed";
  ASSERT_EQ(tables[4].rows.size(), 1u);
  EXPECT_EQ(shown(tables[4].rows[0][1]), "unchecked|overlap");
  EXPECT_EQ(tables[4].rows[0][3], "12");
}

// Without --known nothing is known yet: every group of summary.md is new (red team 33c: a group
// whose "known" is null rendered "known", and a CI comment said nothing new had broken).
TEST(SummaryMarkdownTest, WithoutKnownEveryGroupIsNew) {
  const std::string markdown =
      summary_markdown(sweep_summary(manifest_of(std::nullopt), two_bugs(), {}));
  const std::vector<Table> tables = parse_tables(markdown);
  ASSERT_FALSE(tables.empty()) << markdown;
  ASSERT_EQ(tables[0].header[1], "signature") << markdown;
  ASSERT_EQ(tables[0].rows.size(), 2u) << markdown;
  for (const auto& row : tables[0].rows) EXPECT_EQ(row[0], "**new**") << markdown;
}

std::string hostile_markdown() {
  std::vector<RunRecord> records = two_bugs();
  records.push_back(record("nightly-mix", "random", 9, "exactly-once: a|b `c` *d*\nnext", 1));
  sort_records(records);
  return summary_markdown(sweep_summary(manifest_of(std::nullopt), records, {}));
}

// GitHub's own renderer, where it is installed (Debian's cmark-gfm): the same tables, the hostile
// signature in one code cell. The parser above checks the same rules everywhere else.
TEST(SummaryMarkdownTest, GitHubsRendererDrawsTheTables) {
  if (std::system("command -v cmark-gfm >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "cmark-gfm not installed: the table rules are checked by the parser above";
  }
  const std::string path = ::testing::TempDir() + "fencesim-summary.md";
  std::ofstream(path, std::ios::binary) << hostile_markdown();
  FILE* pipe = popen(("cmark-gfm -e table '" + path + "'").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string html;
  char buffer[4096];
  for (std::size_t n = 0; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    html.append(buffer, n);
  ASSERT_EQ(pclose(pipe), 0);
  std::size_t tables = 0;
  for (std::size_t at = html.find("<table>"); at != std::string::npos;
       at = html.find("<table>", at + 1)) {
    ++tables;
  }
  // groups, claims, totals, scenarios (no figures in this sweep)
  EXPECT_EQ(tables, 4u) << html;
  EXPECT_NE(html.find("<td><code>exactly-once: a|b `c` *d* next</code></td>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<td><strong>new</strong></td>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<em>"), std::string::npos) << "markup leaked out of a cell: " << html;
}

TEST(SummaryMarkdownTest, APassingSweepSaysSoAndStillHasItsTables) {
  std::vector<RunRecord> records = {record("kleppmann-fencing", "random", 1, "", 0)};
  const std::string markdown =
      summary_markdown(sweep_summary(manifest_of(std::nullopt), records, {}));
  EXPECT_TRUE(markdown.starts_with("## fencesim sweep: passed\n")) << markdown;
  EXPECT_NE(markdown.find("No failures"), std::string::npos);
  // claims (a declared mark with too few runs to judge), totals, scenarios
  EXPECT_EQ(parse_tables(markdown).size(), 3u) << markdown;
}

// The parser above is not one that accepts anything: a row with a pipe left unescaped is caught.
TEST(SummaryMarkdownTest, TheTableCheckCanFail) {
  std::vector<Table> tables;
  EXPECT_NONFATAL_FAILURE(tables = parse_tables("\n| a | b |\n| --- | --- |\n| x | y|z |\n"),
                          "| x | y|z |");
  EXPECT_EQ(markdown_cell("a|b\nc"), "a\\|b c");
  EXPECT_EQ(markdown_code("a|b"), "`a\\|b`");
  EXPECT_EQ(markdown_code("`x`"), "`` `x` ``");
}

}  // namespace
}  // namespace fencesim::reports::triage_reports_test
