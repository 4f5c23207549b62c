// Every report writer survives any byte string in the names it reports: a run whose tenant, tree,
// step and mark names hold every byte 0x00-0xFF (invalid UTF-8 and NUL included) gives a runs.jsonl
// line, a summary.json, a junit.xml, a run page, a sweep page and a Perfetto trace that are all
// well-formed UTF-8, parse again, and keep what UTF-8 can carry.
#include <gtest/gtest.h>

#include "properties/run.h"
#include "reports/json_text.h"
#include "reports/junit.h"
#include "reports/markup_escape.h"
#include "reports/perfetto.h"
#include "reports/run_record.h"
#include "reports/summary.h"
#include "reports/timeline.h"
#include "scenarios/workload.h"

namespace fencesim::reports::hostile_bytes_test {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string every_byte() {
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes += static_cast<char>(b);
  return bytes;
}

// Whether `text` is well-formed UTF-8 (RFC 3629), checked apart from the escape under test.
bool well_formed_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= text.size()) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

// Characters XML 1.0 cannot carry: control characters other than tab, newline, carriage return.
bool has_xml_forbidden_control(std::string_view text) {
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 && c != '\t' && c != '\n' && c != '\r') return true;
  }
  return false;
}

// The ASCII bytes survive a JSON round trip as they were, NUL and control characters included.
void expect_json_keeps_ascii(const std::string& text, const std::string& needle_holder) {
  ASSERT_TRUE(well_formed_utf8(text));
  const json back = json::parse(text);  // throws on anything that is not JSON
  const std::string dumped = back.dump();  // strict: valid UTF-8 throughout now
  EXPECT_NE(dumped.find("\\u0000\\u0001\\u0002"), std::string::npos) << needle_holder;
}

TEST(HostileBytes, JsonTextReplacesInvalidUtf8AndKeepsTheRest) {
  const ordered_json value{{every_byte(), every_byte()}};
  EXPECT_THROW((void)value.dump(), json::type_error);  // the crash this guards against
  const std::string text = json_text(value);
  ASSERT_TRUE(well_formed_utf8(text));
  const json back = json::parse(text);
  const std::string key = back.begin().key();
  // 0x00-0x7F as they were; then one U+FFFD per byte that starts no UTF-8 sequence.
  EXPECT_EQ(key.substr(0, 0x80), every_byte().substr(0, 0x80));
  EXPECT_NE(key.find("\xEF\xBF\xBD"), std::string::npos);
  EXPECT_EQ(back.begin().value().get<std::string>(), key);
}

TEST(HostileBytes, XmlEscapeGivesWellFormedUtf8WithoutForbiddenCharacters) {
  const std::string escaped = xml_escape(every_byte() + "\xEF\xBF\xBF" + "\xED\xA0\x80" + "é🧾");
  EXPECT_TRUE(well_formed_utf8(escaped));
  EXPECT_FALSE(has_xml_forbidden_control(escaped));
  EXPECT_EQ(escaped.find('<'), std::string::npos);
  EXPECT_EQ(escaped.find("\xEF\xBF\xBF"), std::string::npos);  // U+FFFF is no XML character
  EXPECT_NE(escaped.find("é🧾"), std::string::npos);           // what is well formed stays
  EXPECT_NE(escaped.find("\t\n"), std::string::npos);
}

// A sweep summary whose scenario, description, marks, failure message, signature and failure files
// hold every byte, made as a sweep makes it.
ordered_json hostile_summary() {
  const std::string bytes = every_byte();
  SweepManifest manifest;
  manifest.fencesim_version = "0.1.0";
  // Marks named by no parser (every byte): reports must still escape them.
  manifest.configuration.scenarios = {SweptScenario{
      bytes, bytes, {scenarios::MarkFloor(bytes, 0), scenarios::MarkFloor("never " + bytes, 0)}}};
  manifest.configuration.seeds_first = 1;
  manifest.configuration.seeds_last = 2;
  manifest.configuration.strategies = {"random"};
  manifest.shard_indices = {0};
  manifest.completed = true;
  RunRecord failing;
  failing.scenario = bytes;
  failing.strategy = "random";
  failing.seed = 1;
  failing.status = "violation";
  failing.history_hash = "00000000000000aa";
  failing.marks = {{bytes, 1}};
  failing.figures = {{bytes, 7}};
  failing.violations = 1;
  failing.first_violation = RecordedViolation{"own-workflow", "violation in " + bytes};
  failing.signature = "own-workflow: " + bytes;
  FailureFiles files;
  files.replay = "failures/" + bytes + ".replay.json";
  files.shrunk_replay = "failures/" + bytes + ".shrunk.replay.json";
  files.html = "failures/" + bytes + ".html";
  files.shrink_removed = {bytes};
  failing.failure = files;
  RunRecord passing = failing;
  passing.seed = 2;
  passing.status = "pass";
  passing.violations = 0;
  passing.first_violation.reset();
  passing.signature.clear();
  passing.failure.reset();
  return sweep_summary(manifest, {failing, passing}, {});
}

TEST(HostileBytes, JunitXmlIsWellFormedWhateverTheNames) {
  const std::string xml = junit_xml(hostile_summary());
  EXPECT_TRUE(well_formed_utf8(xml));
  EXPECT_FALSE(has_xml_forbidden_control(xml));
  EXPECT_NE(xml.find("violation in"), std::string::npos);
}

TEST(HostileBytes, SweepPageIsWellFormedWhateverTheNames) {
  const std::string html = render_sweep_html(hostile_summary(), {});
  EXPECT_TRUE(well_formed_utf8(html));
  EXPECT_EQ(html.find('\0'), std::string::npos);
  EXPECT_NE(html.find("violation in"), std::string::npos);
}

// A real run whose names hold every byte: the tenant, the execution id, the step, and a mark.
struct HostileRun {
  properties::RunReport report;
  ordered_json timeline;
  ordered_json trace;
};

HostileRun hostile_run() {
  scenarios::ScenarioRegistry registry;
  scenarios::Scenario scenario;
  scenario.name = "hostile-bytes";
  scenario.description = "every byte in every name";
  scenario.build = [](sim::World& world) {
    world.add_lease_store();
    world.add_sink("ledger");
    world.add_instance("instance-1");
    const std::string bytes = every_byte();
    runtime::Workflow workflow{"w", {scenarios::write_step(world, bytes, runtime::kSecond,
                                                           "ledger", bytes)}};
    workflow.items.push_back(runtime::StepItem{
        "mark " + bytes, [&world, bytes](runtime::ExecutionContext& ctx) { world.mark(ctx, bytes); }});
    world.workflows().add(std::move(workflow));
    world.submit(runtime::LeaseKey{bytes, bytes}, "w");
  };
  registry.add(std::move(scenario));
  HostileRun run;
  properties::RunRequest request;
  request.scenario = "hostile-bytes";
  request.seed = 1;
  run.report = properties::run_scenario(
      registry, request, [&](const sim::World& world, const properties::RunReport& report) {
        run.timeline = timeline_json(world, report, {});
        run.trace = perfetto_trace(world, report);
      });
  return run;
}

const HostileRun& the_hostile_run() {
  static const HostileRun run = hostile_run();
  return run;
}

TEST(HostileBytes, TheRunItselfPassesWithEveryByteInItsNames) {
  const HostileRun& run = the_hostile_run();
  EXPECT_EQ(run.report.status, properties::RunStatus::kPass) << run.report.detail;
  ASSERT_FALSE(run.report.marks.empty());
  EXPECT_EQ(run.report.marks.begin()->first, every_byte());
}

TEST(HostileBytes, RunsJsonlLineSurvivesAndReadsBack) {
  const RunRecord record = make_run_record(the_hostile_run().report);
  const std::string line = json_text(to_json(record));
  expect_json_keeps_ascii(line, "runs.jsonl");
  const RunRecord back = run_record_from_json(json::parse(line), "runs.jsonl:1");
  EXPECT_EQ(back.marks.size(), record.marks.size());
}

TEST(HostileBytes, SummaryJsonSurvives) {
  expect_json_keeps_ascii(json_text(hostile_summary(), 2), "summary.json");
}

TEST(HostileBytes, TimelineAndRunPageSurvive) {
  const HostileRun& run = the_hostile_run();
  expect_json_keeps_ascii(json_text(run.timeline), "timeline");
  const std::string html = render_run_html(run.timeline);
  EXPECT_TRUE(well_formed_utf8(html));
  EXPECT_EQ(html.find('\0'), std::string::npos);
}

TEST(HostileBytes, PerfettoTraceSurvives) {
  expect_json_keeps_ascii(json_text(the_hostile_run().trace), "perfetto");
}

}  // namespace
}  // namespace fencesim::reports::hostile_bytes_test
