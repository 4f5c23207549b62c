#include "reports/junit.h"
#include "reports/json_text.h"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace fencesim::reports {

using nlohmann::ordered_json;

namespace {

// A CI's test view is for reading: a sweep where every seed fails lists the first few.
constexpr std::size_t kFailuresListed = 20;

std::string number(const ordered_json& value) {
  if (value.is_number_float()) return fmt::format("{:.3f}", value.get<double>());
  return json_text(value);
}

// One failure, as a few lines a person reads in a CI's test view: the command first.
std::string failure_text(const ordered_json& failure) {
  std::string text = failure["replay_command"].get<std::string>() + "\n";
  text +=
      fmt::format("  {} seed {}: {} {}: {}\n", failure["strategy"].get<std::string>(),
                  failure["seed"].get<std::uint64_t>(), failure["status"].get<std::string>(),
                  failure["invariant"].get<std::string>(), failure["message"].get<std::string>());
  if (failure["shrunk_replay_file"].is_string()) {
    text += fmt::format("  shrunk to {} of {} faults: fencesim replay {}\n",
                        number(failure["shrunk_faults"]), number(failure["original_faults"]),
                        failure["shrunk_replay_file"].get<std::string>());
  }
  if (failure["html"].is_string()) {
    text += fmt::format("  timeline: {}\n", failure["html"].get<std::string>());
  }
  return text;
}

std::string counts_text(const ordered_json& scenario) {
  std::string text =
      fmt::format("{} runs, {} failures, {} nondeterministic, {} determinism re-runs\n",
                  number(scenario["runs"]), number(scenario["failures"]),
                  number(scenario["nondeterministic"]), number(scenario["determinism_reruns"]));
  std::string marks;
  for (const auto& [name, count] : scenario["marks"].items()) {
    marks += fmt::format(" {}={}", name, number(count));
  }
  text += fmt::format("marks:{}\n", marks.empty() ? " none" : marks);
  for (const auto& mark : scenario["marks_never_reached"]) {
    text += fmt::format("mark never reached: {}\n", mark.get<std::string>());
  }
  for (const auto& [name, figure] : scenario["figures"].items()) {
    text += fmt::format("figure {}: total {} max {} over {} runs\n", name, number(figure["total"]),
                        number(figure["max"]), number(figure["runs_measured"]));
  }
  return text;
}

std::string property(std::string_view name, const std::string& value) {
  return fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(name),
                     xml_escape(value));
}

// The distinct failures among a scenario's (their groups, new ones first as in the summary),
// each with how many of the scenario's runs it failed: the lines a CI page shows first.
std::string groups_text(const ordered_json& summary, const std::vector<const ordered_json*>& mine) {
  std::map<std::string, std::uint64_t> here;
  for (const ordered_json* failure : mine) {
    if (failure->contains("group") && (*failure)["group"].is_string()) {
      ++here[(*failure)["group"].get<std::string>()];
    }
  }
  if (!summary.contains("groups") || here.empty()) return {};
  std::string text =
      fmt::format("{} distinct failure{} here:\n", here.size(), here.size() == 1 ? "" : "s");
  for (const ordered_json& group : summary["groups"]) {
    const auto count = here.find(group["id"].get<std::string>());
    if (count == here.end()) continue;
    text += fmt::format("  {} [{}] {} run{}: {}\n", group["known"] == true ? "known" : "NEW",
                        count->first, count->second, count->second == 1 ? "" : "s",
                        group["signature"].get<std::string>());
    text +=
        fmt::format("    smallest: {}\n", group["example"]["replay_command"].get<std::string>());
  }
  return text + "\n";
}

// Every claim of the sweep's scenarios (reports/claims.h) as a test case of a suite of its own: a
// missed floor or a fault kind that never acted is a failure, a floor with too few runs to judge
// is skipped, so a CI's test view shows "mark takeover-mid-step: 0 of 1,766 runs, floor 2%"
// beside the scenarios' failures.
struct ClaimCases {
  std::string xml;
  std::uint64_t tests = 0;
  std::uint64_t failures = 0;
  std::uint64_t skipped = 0;
};

ClaimCases claim_cases(const ordered_json& summary) {
  ClaimCases cases;
  for (const ordered_json& scenario : summary["scenarios"]) {
    if (!scenario.contains("claims")) continue;
    for (const ordered_json& claim : scenario["claims"]) {
      ++cases.tests;
      const std::string status = claim["status"].get<std::string>();
      const std::string message = claim["message"].get<std::string>();
      cases.xml += fmt::format(
          "    <testcase classname=\"fencesim.claims.{}\" name=\"{} {}\" time=\"0\">\n",
          xml_escape(scenario["name"].get<std::string>()),
          xml_escape(claim["kind"].get<std::string>()), xml_escape(claim["name"].get<std::string>()));
      if (status == "missed") {
        ++cases.failures;
        cases.xml += fmt::format(
            "      <failure message=\"{}\" type=\"unproven\">{}</failure>\n", xml_escape(message),
            xml_escape(message + "\nthe sweep did not test what this scenario claims: a mark "
                                 "under its floor, or a fault kind that could act and never did\n"));
      } else if (status == "not-enough-runs") {
        ++cases.skipped;
        cases.xml += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(message));
      } else {
        cases.xml += fmt::format("      <system-out>{}</system-out>\n", xml_escape(message));
      }
      cases.xml += "    </testcase>\n";
    }
  }
  return cases;
}

}  // namespace

std::string junit_xml(const ordered_json& summary) {
  std::map<std::string, std::vector<const ordered_json*>> failures;
  for (const ordered_json& failure : summary["failures"]) {
    failures[failure["scenario"].get<std::string>()].push_back(&failure);
  }
  const ordered_json& totals = summary["totals"];
  std::uint64_t failing_cases = 0;
  for (const ordered_json& scenario : summary["scenarios"]) {
    if (failures.contains(scenario["name"].get<std::string>())) ++failing_cases;
  }
  const ClaimCases claims = claim_cases(summary);
  // An interrupted sweep did not run its plan: an error of its own, so that a CI's test view
  // never shows a sweep cut short by a cancel as a green one.
  const bool interrupted = summary.contains("interrupted") && summary["interrupted"].is_object();
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format(
      "<testsuites name=\"fencesim\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{}\">\n",
      summary["scenarios"].size() + claims.tests + (interrupted ? 1 : 0),
      failing_cases + claims.failures, interrupted ? 1 : 0, number(totals["wall_seconds"]));
  xml += fmt::format(
      "  <testsuite name=\"fencesim sweep\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
      "skipped=\"0\" time=\"{}\">\n",
      summary["scenarios"].size(), failing_cases, number(totals["wall_seconds"]));
  xml += "    <properties>\n";
  xml += property("fencesim_version", summary["fencesim_version"].get<std::string>());
  for (const char* key : {"runs", "passed", "failed", "nondeterministic", "harness_errors"}) {
    xml += property(key, number(totals[key]));
  }
  for (const char* key : {"groups", "new_groups"}) {
    if (totals.contains(key)) xml += property(key, number(totals[key]));
  }
  xml += property("shards", number(summary["shards"]["count"]));
  xml += "    </properties>\n";
  for (const ordered_json& scenario : summary["scenarios"]) {
    const std::string name = scenario["name"].get<std::string>();
    xml += fmt::format("    <testcase classname=\"fencesim\" name=\"{}\" time=\"{}\">\n",
                       xml_escape(name), number(scenario["wall_seconds"]));
    if (const auto found = failures.find(name); found != failures.end()) {
      const ordered_json& first = *found->second.front();
      const std::string message = fmt::format(
          "{} of {} runs failed; first: {}: {}", found->second.size(), number(scenario["runs"]),
          first["invariant"].get<std::string>(), first["message"].get<std::string>());
      std::string text = groups_text(summary, found->second);
      for (std::size_t i = 0; i < found->second.size() && i < kFailuresListed; ++i) {
        text += failure_text(*found->second[i]);
      }
      if (found->second.size() > kFailuresListed) {
        text += fmt::format("... and {} more (summary.json lists every failure)\n",
                            found->second.size() - kFailuresListed);
      }
      xml += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                         xml_escape(message), xml_escape(first["status"].get<std::string>()),
                         xml_escape(text));
    }
    xml += fmt::format("      <system-out>{}</system-out>\n", xml_escape(counts_text(scenario)));
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n";
  if (claims.tests > 0) {
    xml += fmt::format(
        "  <testsuite name=\"fencesim claims\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
        "skipped=\"{}\" time=\"0\">\n",
        claims.tests, claims.failures, claims.skipped);
    xml += claims.xml;
    xml += "  </testsuite>\n";
  }
  if (interrupted) {
    const ordered_json& what = summary["interrupted"];
    const std::string message = fmt::format(
        "interrupted by {}; seeds not run: {}", what["signal"].get<std::string>(),
        what["seeds_not_run_text"].get<std::string>());
    xml += "  <testsuite name=\"fencesim sweep completion\" tests=\"1\" failures=\"0\" "
           "errors=\"1\" skipped=\"0\" time=\"0\">\n";
    xml += "    <testcase classname=\"fencesim\" name=\"every planned seed ran\" time=\"0\">\n";
    xml += fmt::format("      <error message=\"{}\" type=\"interrupted\">{}</error>\n",
                       xml_escape(message),
                       xml_escape(message + "\ncontinue it: fencesim sweep --resume OUT\n"));
    xml += "    </testcase>\n  </testsuite>\n";
  }
  xml += "</testsuites>\n";
  return xml;
}

}  // namespace fencesim::reports
