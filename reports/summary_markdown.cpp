#include "reports/summary_markdown.h"
#include "reports/json_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace fencesim::reports {

using nlohmann::ordered_json;

namespace {

using Row = std::vector<std::string>;

// A field's text, whatever its type; "-" when missing or null (the summary may be an older one).
std::string text(const ordered_json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || object[key].is_null()) return "-";
  const ordered_json& value = object[key];
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return fmt::format("{:.1f}", value.get<double>());
  return json_text(value);
}

std::uint64_t count(const ordered_json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number_unsigned()) return 0;
  return object[key].get<std::uint64_t>();
}

const ordered_json& array(const ordered_json& object, const char* key) {
  static const ordered_json empty = ordered_json::array();
  if (!object.is_object() || !object.contains(key) || !object[key].is_array()) return empty;
  return object[key];
}

std::string joined(const ordered_json& names) {
  std::string out;
  for (const ordered_json& name : names) {
    if (!out.empty()) out += ", ";
    out += name.is_string() ? name.get<std::string>() : json_text(name);
  }
  return out.empty() ? "-" : out;
}

// One table; `rows` already made of cell text (markdown_cell or markdown_code). A table of more
// than kMarkdownRowsMax rows shows those and says how many more there are.
void table(std::string& out, const Row& header, const std::vector<Row>& rows,
           const std::string& more_what) {
  const auto line = [&](const Row& cells) {
    out += "|";
    for (const std::string& cell : cells) out += " " + (cell.empty() ? "-" : cell) + " |";
    out += "\n";
  };
  line(header);
  out += "|";
  for (std::size_t i = 0; i < header.size(); ++i) out += " --- |";
  out += "\n";
  for (std::size_t i = 0; i < rows.size() && i < kMarkdownRowsMax; ++i) line(rows[i]);
  if (rows.size() > kMarkdownRowsMax) {
    out += fmt::format("\n{} more {} are in summary.json and report.html.\n",
                       rows.size() - kMarkdownRowsMax, more_what);
  }
  out += "\n";
}

void totals_table(std::string& out, const ordered_json& summary) {
  const ordered_json& t = summary.contains("totals") ? summary["totals"] : ordered_json();
  table(out,
        {"runs", "passed", "failed", "nondeterministic", "harness errors", "groups", "new groups",
         "wall s", "seeds / s", "distinct histories", "distinct / CPU s"},
        {{text(t, "runs"), text(t, "passed"), text(t, "failed"), text(t, "nondeterministic"),
          text(t, "harness_errors"), text(t, "groups"), text(t, "new_groups"),
          text(t, "wall_seconds"), text(t, "seeds_per_second"), text(t, "distinct_histories"),
          text(t, "distinct_per_cpu_second")}},
        "");
}

std::string known_cell(const ordered_json& group) {
  if (!group.contains("known") || !group["known"].is_boolean()) return "**new**";
  return group["known"].get<bool>() ? "known" : "**new**";
}

std::string example_cell(const ordered_json& example) {
  const bool shrunk = example.contains("shrunk") && example["shrunk"] == true;
  const bool counted = example.contains("faults") && example["faults"].is_number();
  return markdown_cell(fmt::format("{} {} seed {}: {}", text(example, "scenario"),
                                   text(example, "strategy"), text(example, "seed"),
                                   !counted
                                       ? std::string("not shrunk")
                                       : fmt::format("{} fault(s), {}", text(example, "faults"),
                                                     shrunk ? "shrunk" : "not shrunk")));
}

void groups_section(std::string& out, const ordered_json& summary) {
  const ordered_json& groups = array(summary, "groups");
  out += "### Failure groups\n\n";
  if (groups.empty()) {
    out +=
        "No failures: every run passed its invariants, finished in its liveness budget and, "
        "where re-run, repeated its history hash.\n\n";
    return;
  }
  std::vector<Row> rows;
  for (const ordered_json& group : groups) {
    const ordered_json& example = group.contains("example") ? group["example"] : ordered_json();
    const ordered_json& first = group.contains("first") ? group["first"] : ordered_json();
    rows.push_back({known_cell(group), markdown_code(text(group, "signature")),
                    text(group, "count"), markdown_cell(joined(array(group, "scenarios"))),
                    markdown_cell(joined(array(group, "strategies"))),
                    markdown_cell(text(first, "seed")), example_cell(example),
                    markdown_code(text(example, "replay_command")),
                    markdown_code(text(example, "html"))});
  }
  table(out,
        {"new / known", "signature", "runs", "scenarios", "strategies", "first seed",
         "smallest example", "replay (in the output folder)", "timeline"},
        rows, "groups");
  const ordered_json& known = summary.contains("known") ? summary["known"] : ordered_json();
  if (known.is_object()) {
    out += markdown_cell(fmt::format("New or known against {} ({} known signatures).",
                                     joined(array(known, "sources")), text(known, "signatures")));
  } else {
    out += "No `--known` folder was given: every group counts as new.";
  }
  out += "\n\n";
}

// The claims the sweep did not prove (reports/claims.h): a mark under its floor or a fault kind
// that never acted fails the sweep like a bug; floors with too few runs to judge are listed too.
void claims_section(std::string& out, const ordered_json& summary) {
  if (!summary.contains("claims") || !summary["claims"].is_object()) return;
  const ordered_json& claims = summary["claims"];
  const ordered_json& unproven = array(claims, "unproven");
  const ordered_json& not_judged = array(claims, "not_judged");
  out += "### Claims not proven\n\n";
  out += unproven.empty()
             ? fmt::format("Every claim judged was proven: {} met (each declared mark at its "
                           "floor, each fault kind acted where it could).\n\n",
                           text(claims, "met"))
             : fmt::format("**{} claim(s) not proven**: the sweep did not test what these "
                           "scenarios are about, and fails.\n\n",
                           unproven.size());
  std::vector<Row> rows;
  for (const ordered_json* list : {&unproven, &not_judged}) {
    for (const ordered_json& claim : *list) {
      rows.push_back({list == &unproven ? "**missed**" : "not enough runs",
                      markdown_cell(text(claim, "scenario")), markdown_cell(text(claim, "kind")),
                      markdown_cell(text(claim, "name")), markdown_cell(text(claim, "message"))});
    }
  }
  if (!rows.empty()) table(out, {"verdict", "scenario", "kind", "claim", "what"}, rows, "claims");
}

// A sweep stopped by a signal: these reports hold only what ran before it.
void interrupted_section(std::string& out, const ordered_json& summary) {
  if (!summary.contains("interrupted") || !summary["interrupted"].is_object()) return;
  const ordered_json& interrupted = summary["interrupted"];
  out += markdown_cell(fmt::format(
      "Interrupted by {}: these reports hold only the runs made before it. Seeds not run: {}.",
      text(interrupted, "signal"), text(interrupted, "seeds_not_run_text")));
  out += " Continue it with `fencesim sweep --resume OUT` (OUT: this folder).\n\n";
}

void scenarios_section(std::string& out, const ordered_json& summary) {
  std::vector<Row> rows;
  std::vector<Row> figures;
  std::uint64_t never_total = 0;
  for (const ordered_json& s : array(summary, "scenarios")) {
    const ordered_json& never = array(s, "marks_never_reached");
    never_total += never.size();
    rows.push_back({markdown_cell(text(s, "name")), text(s, "runs"), text(s, "failures"),
                    text(s, "nondeterministic"),
                    never.empty() ? "none" : markdown_cell(joined(never)),
                    text(s, "seeds_per_second"), text(s, "distinct_histories"),
                    text(s, "distinct_per_cpu_second")});
    if (!s.contains("figures") || !s["figures"].is_object()) continue;
    for (const auto& [name, figure] : s["figures"].items()) {
      figures.push_back({markdown_cell(text(s, "name")), markdown_cell(name),
                         text(figure, "runs_measured"), text(figure, "total"),
                         text(figure, "max")});
    }
  }
  out += "### Scenarios\n\n";
  out += never_total == 0
             ? "Every scenario reached every mark it declares.\n\n"
             : fmt::format("{} mark(s) never reached: the danger they name was not exercised.\n\n",
                           never_total);
  table(out,
        {"scenario", "runs", "failures", "nondeterministic", "marks never reached", "seeds / s",
         "distinct histories", "distinct / CPU s"},
        rows, "scenarios");
  out += "### Figures\n\n";
  if (figures.empty()) {
    out += "No workload measured a figure.\n\n";
    return;
  }
  table(out, {"scenario", "figure", "runs measured", "total", "max"}, figures, "figures");
}

}  // namespace

std::string markdown_cell(std::string_view raw) {
  std::string out;
  for (const char c : raw) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += ' ';
    } else if (std::string_view("\\|`*_[]<>#~!&").find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string markdown_code(std::string_view raw) {
  if (raw == "-" || raw.empty()) return "-";
  std::string body;
  std::size_t run = 0;
  std::size_t longest = 0;
  for (const char c : raw) {
    const auto u = static_cast<unsigned char>(c);
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (c == '|') {
      body += "\\|";
    } else {
      body += (u < 0x20 || u == 0x7f) ? ' ' : c;
    }
  }
  const std::string fence(longest + 1, '`');
  // A space inside the fence when the text starts or ends with a backtick (CommonMark strips one).
  const bool pad = body.front() == '`' || body.back() == '`';
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string summary_markdown(const ordered_json& summary) {
  const ordered_json& totals = summary.contains("totals") ? summary["totals"] : ordered_json();
  const std::uint64_t groups = array(summary, "groups").size();
  const std::uint64_t fresh = count(totals, "new_groups");
  const std::uint64_t unproven =
      summary.contains("claims") ? count(summary["claims"], "missed") : 0;
  std::string out = "## fencesim sweep: ";
  if (summary.contains("interrupted") && summary["interrupted"].is_object()) {
    out += "interrupted, ";
  }
  if (groups == 0 && unproven == 0) {
    out += "passed\n\n";
  } else if (groups == 0) {
    out += fmt::format("no failure, but {} claim{} not proven\n\n", unproven,
                       unproven == 1 ? "" : "s");
  } else {
    out += fmt::format("{} distinct failure{} ({} new)\n\n", groups, groups == 1 ? "" : "s", fresh);
  }
  interrupted_section(out, summary);
  // The groups first: the distinct bugs, which are new, and the smallest example of each.
  groups_section(out, summary);
  claims_section(out, summary);
  out += "### Totals\n\n";
  totals_table(out, summary);
  scenarios_section(out, summary);
  out +=
      markdown_cell(fmt::format("fencesim {}; open report.html in the output folder for every "
                                "run of each group and the failures' timelines.",
                                text(summary, "fencesim_version")));
  out += "\n";
  return out;
}

}  // namespace fencesim::reports
