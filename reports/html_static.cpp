#include "reports/html_static.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "reports/html_page.h"
#include "reports/json_text.h"

namespace fencesim::reports::html {

using nlohmann::ordered_json;

namespace {

// The SVG's geometry: a label column, then time from 0 to the run's end across kPlotWidth.
constexpr double kLabelWidth = 150;
constexpr double kPlotWidth = 900;
constexpr double kRowHeight = 26;

std::string text(const ordered_json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || object[key].is_null()) return "-";
  const ordered_json& value = object[key];
  return value.is_string() ? value.get<std::string>() : json_text(value);
}

const ordered_json& list(const ordered_json& object, const char* key) {
  static const ordered_json empty = ordered_json::array();
  if (!object.is_object() || !object.contains(key) || !object[key].is_array()) return empty;
  return object[key];
}

double number(const ordered_json& object, const char* key, double fallback) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return fallback;
  return object[key].get<double>();
}

// A node id, or -1 when the field is missing or not an integer (a hand-edited or damaged file).
std::int64_t id_of(const ordered_json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number_integer()) return -1;
  return object[key].get<std::int64_t>();
}

std::string table(const std::vector<std::string>& head,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table><thead><tr>";
  for (const std::string& cell : head) out += "<th>" + escape(cell) + "</th>";
  out += "</tr></thead><tbody>";
  for (const std::vector<std::string>& row : rows) {
    out += "<tr>";
    for (const std::string& cell : row) out += "<td>" + escape(cell) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

// Maps a virtual time to the SVG's x.
class Axis {
 public:
  explicit Axis(double end_ns) : end_ns_(std::max(end_ns, 1.0)) {}
  double x(double ns) const {
    return kLabelWidth + kPlotWidth * std::clamp(ns / end_ns_, 0.0, 1.0);
  }

 private:
  double end_ns_;
};

std::string seconds(double ns) { return fmt::format("{:.3f} s", ns / 1e9); }

// A bar on a node's row: [from, to) in time, at a sub-row (0 top, 1 middle, 2 bottom).
std::string bar(const Axis& axis, double row_y, int lane, double from, double to,
                const char* css_class, const std::string& title) {
  const double x = axis.x(from);
  const double width = std::max(2.0, axis.x(to) - x);
  return fmt::format(
      "<rect class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"6\"><title>{}</title>"
      "</rect>",
      css_class, x, row_y + 3 + 7 * lane, width, escape(title));
}

std::string tick(const Axis& axis, double row_y, double at, const char* css_class,
                 const std::string& title) {
  const double x = axis.x(at);
  return fmt::format(
      "<line class=\"{}\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"><title>{}</title>"
      "</line>",
      css_class, x, x, row_y + 1, row_y + kRowHeight - 1, escape(title));
}

std::string timeline_svg(const ordered_json& timeline) {
  const double end_ns = number(timeline, "end_ns", 1);
  const Axis axis(end_ns);
  std::map<std::int64_t, double> row_of;  // node id -> row's top
  const ordered_json& nodes = list(timeline, "nodes");
  for (const ordered_json& node : nodes) {
    row_of.emplace(id_of(node, "id"), 20 + kRowHeight * static_cast<double>(row_of.size()));
  }
  const double height = 30 + kRowHeight * static_cast<double>(row_of.size());
  std::string svg = fmt::format(
      "<svg class=\"static-timeline\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"timeline\">\n",
      kLabelWidth + kPlotWidth + 10, height, kLabelWidth + kPlotWidth + 10, height);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"12\">0 s</text><text x=\"{:.0f}\" y=\"12\" "
                     "text-anchor=\"end\">{}</text>\n",
                     kLabelWidth, kLabelWidth + kPlotWidth, escape(seconds(end_ns)));
  const auto row = [&](const ordered_json& item) -> const double* {
    const auto found = row_of.find(id_of(item, "node"));
    return found == row_of.end() ? nullptr : &found->second;
  };
  for (const ordered_json& node : nodes) {
    const double y = row_of.at(id_of(node, "id"));
    svg += fmt::format("<text x=\"4\" y=\"{:.1f}\">{} ({})</text>", y + 16,
                       escape(text(node, "name")), escape(text(node, "kind")));
    svg += fmt::format("<line class=\"row\" x1=\"{:.0f}\" x2=\"{:.0f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                       kLabelWidth, kLabelWidth + kPlotWidth, y + kRowHeight, y + kRowHeight);
  }
  for (const ordered_json& fault : list(timeline, "faults")) {
    if (const double* y = row(fault)) {
      svg += bar(axis, *y, 0, number(fault, "start_ns", 0), number(fault, "end_ns", end_ns),
                 "fault", text(fault, "description") + "; " + text(fault, "effect"));
      // Aimed at a deadline: the deadline drawn on the fault's row, so the fault reads against it.
      if (fault.contains("aim") && fault["aim"].is_object()) {
        const ordered_json& aim = fault["aim"];
        svg += tick(axis, *y, number(aim, "deadline_ns", 0), "deadline",
                    fmt::format("{} of {} at {}", text(aim, "aim"), text(aim, "lease"),
                                seconds(number(aim, "deadline_ns", 0))));
        if (aim.contains("until")) {
          svg += tick(axis, *y, number(aim, "until_deadline_ns", 0), "deadline",
                      fmt::format("{} of {} at {}", text(aim, "until"), text(aim, "lease"),
                                  seconds(number(aim, "until_deadline_ns", 0))));
        }
      }
    }
  }
  for (const ordered_json& missed : list(timeline, "missed_aims")) {
    if (const double* y = row(missed)) {
      svg += tick(axis, *y, number(missed, "t", 0), "deadline missed",
                  fmt::format("{}: not fired, {}", text(missed, "description"),
                              text(missed, "missed")));
    }
  }
  for (const ordered_json& belief : list(timeline, "beliefs")) {
    if (const double* y = row(belief)) {
      svg += bar(axis, *y, 1, number(belief, "taken_ns", 0), number(belief, "ended_ns", end_ns),
                 "belief",
                 fmt::format("{} believes it holds {} at token {}; ended {} ({})",
                             text(belief, "holder"), text(belief, "key"), text(belief, "token"),
                             text(belief, "end_kind"), text(belief, "end_detail")));
    }
  }
  for (const ordered_json& epoch : list(timeline, "epochs")) {
    if (const double* y = row(epoch)) {
      svg += bar(axis, *y, 1, number(epoch, "granted_ns", 0), number(epoch, "ended_ns", end_ns),
                 "epoch",
                 fmt::format("the store granted {} token {} to {}; ended {}", text(epoch, "key"),
                             text(epoch, "token"), text(epoch, "holder"), text(epoch, "end_kind")));
    }
  }
  for (const ordered_json& run : list(timeline, "step_runs")) {
    if (const double* y = row(run)) {
      svg += bar(axis, *y, 2, number(run, "started_ns", 0), number(run, "ended_ns", end_ns),
                 "step", fmt::format("step {} at token {}: {}", text(run, "step"),
                                     text(run, "token"), text(run, "outcome")));
    }
  }
  for (const ordered_json& write : list(timeline, "writes")) {
    if (const double* y = row(write)) {
      // Deduplicated is accepted too (by its idempotency key): only a refusal is drawn refused.
      svg += tick(axis, *y, number(write, "t", 0),
                  text(write, "outcome") == "refused" ? "write refused" : "write",
                  fmt::format("write to {} at token {}: {}", text(write, "sink"),
                              text(write, "token"), text(write, "outcome")));
    }
  }
  for (const ordered_json& mark : list(timeline, "marks")) {
    if (const double* y = row(mark)) {
      svg += tick(axis, *y, number(mark, "t", 0), "mark", "mark " + text(mark, "name"));
    }
  }
  for (const ordered_json& violation : list(timeline, "violations")) {
    for (const ordered_json& ref : list(violation, "refs")) {
      if (const double* y = row(ref)) {
        svg += tick(axis, *y, number(ref, "t", 0), "violation",
                    text(violation, "invariant") + ": " + text(violation, "message"));
      }
    }
  }
  return svg + "</svg>\n";
}

}  // namespace

std::string static_run(const ordered_json& timeline) {
  std::string out = "<section id=\"fs-static\" class=\"static\">\n";
  out += fmt::format("<h1>fencesim {} seed {}: {}</h1>\n", escape(text(timeline, "scenario")),
                     escape(text(timeline, "seed_text")), escape(text(timeline, "status")));
  out += "<p>" + escape(text(timeline, "detail")) + "</p>\n";
  out += "<p>Replay: <code>" + escape(text(timeline, "replay_command")) + "</code></p>\n";
  std::vector<std::vector<std::string>> violations;
  for (const ordered_json& violation : list(timeline, "violations")) {
    violations.push_back({text(violation, "invariant"), text(violation, "message")});
  }
  if (!violations.empty()) out += "<h2>Violations</h2>\n" + table({"invariant", "what"}, violations);
  out += "<h2>Timeline</h2>\n<p>Per node: faults (top), what a holder believed and what the "
         "store granted (middle), steps (bottom); ticks are writes, marks and violations. Hover "
         "for details.</p>\n";
  out += timeline_svg(timeline);
  std::vector<std::vector<std::string>> marks;
  if (timeline.contains("marks_count") && timeline["marks_count"].is_object()) {
    for (const auto& [name, count] : timeline["marks_count"].items()) {
      marks.push_back({name, json_text(count)});
    }
  }
  out += "<h2>Marks reached</h2>\n" + table({"mark", "times"}, marks);
  std::vector<std::vector<std::string>> plan;
  for (const ordered_json& fault : list(timeline, "plan")) plan.push_back({text(fault, "description")});
  out += "<h2>Fault plan</h2>\n" + table({"fault"}, plan);
  return out + "</section>\n";
}

std::string static_sweep(const ordered_json& summary) {
  std::string out = "<section id=\"fs-static\" class=\"static\">\n";
  const ordered_json totals = summary.contains("totals") ? summary["totals"] : ordered_json();
  const std::size_t groups = list(summary, "groups").size();
  const ordered_json claims = summary.contains("claims") ? summary["claims"] : ordered_json();
  const std::size_t unproven = list(claims, "unproven").size();
  out += fmt::format("<h1>fencesim sweep: {}</h1>\n",
                     groups > 0     ? fmt::format("{} distinct failure{}", groups,
                                                  groups == 1 ? "" : "s")
                     : unproven > 0 ? fmt::format("{} claim{} not proven", unproven,
                                                  unproven == 1 ? "" : "s")
                                    : std::string("passed"));
  if (summary.contains("interrupted") && summary["interrupted"].is_object()) {
    out += "<p class=\"bad\">Interrupted by " + escape(text(summary["interrupted"], "signal")) +
           ": only the runs made before it are here. Seeds not run: " +
           escape(text(summary["interrupted"], "seeds_not_run_text")) + ".</p>\n";
  }
  out += table({"runs", "passed", "failed", "nondeterministic", "harness errors", "wall s"},
               {{text(totals, "runs"), text(totals, "passed"), text(totals, "failed"),
                 text(totals, "nondeterministic"), text(totals, "harness_errors"),
                 text(totals, "wall_seconds")}});
  std::vector<std::vector<std::string>> group_rows;
  for (const ordered_json& group : list(summary, "groups")) {
    const ordered_json example = group.contains("example") ? group["example"] : ordered_json();
    const bool known = group.contains("known") && group["known"].is_boolean() &&
                       group["known"].get<bool>();
    group_rows.push_back({known ? "known" : "new", text(group, "signature"),
                          text(group, "count"), text(example, "replay_command"),
                          text(example, "html")});
  }
  out += "<h2>Failure groups</h2>\n";
  out += group_rows.empty()
             ? std::string("<p>No failures.</p>\n")
             : table({"new / known", "signature", "runs", "smallest example", "timeline"},
                     group_rows);
  std::vector<std::vector<std::string>> claim_rows;
  for (const char* key : {"unproven", "not_judged"}) {
    for (const ordered_json& claim : list(claims, key)) {
      claim_rows.push_back({key, text(claim, "scenario"), text(claim, "message")});
    }
  }
  out += "<h2>Claims</h2>\n";
  out += claim_rows.empty() ? fmt::format("<p>Every claim judged was proven ({} met).</p>\n",
                                          escape(text(claims, "met")))
                            : table({"verdict", "scenario", "what"}, claim_rows);
  std::vector<std::vector<std::string>> scenario_rows;
  for (const ordered_json& scenario : list(summary, "scenarios")) {
    std::string never;
    for (const ordered_json& mark : list(scenario, "marks_never_reached")) {
      never += (never.empty() ? "" : ", ") + (mark.is_string() ? mark.get<std::string>() : "-");
    }
    scenario_rows.push_back({text(scenario, "name"), text(scenario, "runs"),
                             text(scenario, "failures"), never.empty() ? "none" : never});
  }
  out += "<h2>Scenarios</h2>\n" +
         table({"scenario", "runs", "failures", "marks never reached"}, scenario_rows);
  return out + "</section>\n";
}

}  // namespace fencesim::reports::html
