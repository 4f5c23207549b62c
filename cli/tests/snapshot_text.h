#pragma once
// What a snapshot keeps of a command's output: every byte, except the figures that measure the
// machine rather than the run (wall and CPU time, and the rates made of them). A snapshot must be
// the same on every machine and every run of one commit; anything else in the output is the
// harness's behaviour and stays, so a change to it shows as a difference.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace fencesim::cli::testing::snapshot {

inline constexpr std::string_view kMasked = "<measured>";

// JSON keys whose values are measurements of the machine (objects under them are masked whole).
inline bool measured_key(std::string_view key) {
  static const std::set<std::string, std::less<>> keys = {
      "wall_seconds", "cpu_seconds", "seeds_per_second", "distinct_per_cpu_second",
      "mark_hits_per_cpu_second", "virtual_per_wall", "used_seconds", "task_seconds"};
  return keys.contains(key);
}

inline void mask_json(nlohmann::json& value) {
  if (value.is_object()) {
    for (auto& [key, child] : value.items()) {
      if (measured_key(key)) {
        child = std::string(kMasked);
      } else {
        mask_json(child);
      }
    }
  } else if (value.is_array()) {
    for (auto& child : value) mask_json(child);
  }
}

// A table column whose cells are measured (markdown and HTML tables share the headers).
inline bool measured_column(std::string_view header) {
  for (std::string_view needle : {"wall s", "/ s", "CPU s", "per CPU"}) {
    if (header.find(needle) != std::string_view::npos) return true;
  }
  return false;
}

inline std::vector<std::string> split_cells(std::string_view row) {
  std::vector<std::string> cells;
  std::size_t from = row.find('|') + 1;
  for (std::size_t bar = row.find('|', from); bar != std::string_view::npos;
       bar = row.find('|', from)) {
    cells.emplace_back(row.substr(from, bar - from));
    from = bar + 1;
  }
  return cells;
}

// Markdown tables: the cells of measured columns, found by the table's header row.
inline std::string mask_markdown_tables(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  std::vector<bool> masked;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("|")) {
      masked.clear();
    } else if (masked.empty()) {
      for (const std::string& cell : split_cells(line)) masked.push_back(measured_column(cell));
    } else if (!line.starts_with("| ---")) {
      std::vector<std::string> cells = split_cells(line);
      line = "|";
      for (std::size_t i = 0; i < cells.size(); ++i) {
        line += i < masked.size() && masked[i] ? " " + std::string(kMasked) + " " : cells[i];
        line += "|";
      }
    }
    out += line;
    out += '\n';
  }
  return out;
}

// HTML tables written on one line (<thead> then <tbody>): the <td>s of measured columns.
inline std::string mask_html_tables(const std::string& text) {
  static const std::regex header(R"(<th>([^<]*)</th>)");
  static const std::regex cell(R"(<td[^>]*>.*?</td>)");
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const std::size_t body = line.find("<tbody>");
    if (line.find("<thead>") != std::string::npos && body != std::string::npos) {
      std::vector<bool> masked;
      const std::string head = line.substr(0, body);
      for (auto it = std::sregex_iterator(head.begin(), head.end(), header);
           it != std::sregex_iterator(); ++it) {
        masked.push_back(measured_column((*it)[1].str()));
      }
      // Each <tr> of the body starts its columns again.
      std::string rebuilt = head;
      std::string_view rest = std::string_view(line).substr(body);
      while (!rest.empty()) {
        std::size_t next = rest.find("<tr>", 1);
        if (next == std::string_view::npos) next = rest.size();
        const std::string part(rest.substr(0, next));
        std::size_t column = 0;
        std::size_t done = 0;
        for (auto it = std::sregex_iterator(part.begin(), part.end(), cell);
             it != std::sregex_iterator(); ++it, ++column) {
          const auto at = static_cast<std::size_t>(it->position());
          rebuilt += part.substr(done, at - done);
          rebuilt += column < masked.size() && masked[column]
                         ? "<td>" + std::string(kMasked) + "</td>"
                         : it->str();
          done = at + static_cast<std::size_t>(it->length());
        }
        rebuilt += part.substr(done);
        rest.remove_prefix(next);
      }
      line = rebuilt;
    }
    out += line;
    out += '\n';
  }
  return out;
}

// Text output (a command's stdout, a report): the measured figures it prints, by their words.
inline std::string mask_text(std::string text) {
  static const std::vector<std::pair<std::regex, std::string>> rules = [] {
    std::vector<std::pair<std::regex, std::string>> r;
    const std::string m(kMasked);
    r.emplace_back(R"(wall seconds: [0-9.]+)", "wall seconds: " + m);
    r.emplace_back(R"([0-9]+x virtual/wall)", m + "x virtual/wall");
    // Right-aligned figures: the padding goes with them (its width is the figure's).
    r.emplace_back(R"( *[0-9.]+ (distinct )?per CPU-second)", " " + m + " $1per CPU-second");
    r.emplace_back(R"(\([0-9.]+ CPU s\))", "(" + m + " CPU s)");
    // The time a sweep took to write its reports, at the end of its line.
    r.emplace_back(R"(\(([0-9]+\.)?[0-9]+s\)\n)", "(" + m + ")\n");
    // explore's search lines: "949 schedules      0.51 s  0 violations".
    r.emplace_back(R"(schedules +[0-9.]+ s )", "schedules " + m + " s ");
    // JUnit's times, and the same measurements inside JSON embedded in a page.
    r.emplace_back(R"#(time="[0-9.]+")#", "time=\"" + m + "\"");
    r.emplace_back(
        R"#("(wall_seconds|cpu_seconds|seeds_per_second|distinct_per_cpu_second|virtual_per_wall|)#"
        R"#(used_seconds|task_seconds)":[0-9.eE+-]+)#",
        "\"$1\":\"" + m + "\"");
    r.emplace_back(R"#("mark_hits_per_cpu_second":\{[^}]*\})#",
                   "\"mark_hits_per_cpu_second\":\"" + m + "\"");
    // fencesim bench: the allocator and the load it ran under, the switches' costs, the runs'
    // times and rates and each goal's verdict on them (the runs' counts, events and virtual
    // seconds are the run's own facts, kept).
    r.emplace_back(R"((mimalloc [0-9.]+|the C library's malloc); load average [^\n]*)",
                   m + "; load average " + m);
    r.emplace_back(R"(load average after: [^\n]*)", "load average after: " + m);
    r.emplace_back(R"((rounds\):|random walk|PCT) [0-9.]+ ns \(before the runs [0-9.]+, )"
                   R"(after [0-9.]+\))",
                   "$1 " + m + " ns (before the runs " + m + ", after " + m + ")");
    r.emplace_back(R"(= [0-9.]+x round_robin)", "= " + m + "x round_robin");
    r.emplace_back(R"(goal (<=|>=) ([0-9.]+x?)\): (met|MISSED))", "goal $1 $2): " + m);
    r.emplace_back(R"(virtual s in [0-9.]+ s wall \([0-9.]+ s CPU\))",
                   "virtual s in " + m + " s wall (" + m + " s CPU)");
    r.emplace_back(R"(virtual/wall [0-9]+x \(CPU basis [0-9]+x;)",
                   "virtual/wall " + m + "x (CPU basis " + m + "x;");
    r.emplace_back(R"(history events/s [0-9]+ \(CPU basis [0-9]+;)",
                   "history events/s " + m + " (CPU basis " + m + ";");
    r.emplace_back(R"(wall per history event [0-9]+ ns = [0-9.]+x)",
                   "wall per history event " + m + " ns = " + m + "x");
    r.emplace_back(R"(wall per history event / random walk's: [0-9.]+x)",
                   "wall per history event / random walk's: " + m + "x");
    return r;
  }();
  for (const auto& [pattern, replacement] : rules) {
    text = std::regex_replace(text, pattern, replacement);
  }
  return mask_html_tables(mask_markdown_tables(text));
}

// A file as a snapshot keeps it: JSON (and JSON lines) parsed, masked by key and printed one
// value a line, so that a difference names its field; anything else as text.
inline std::string normalize_file(std::string_view name, const std::string& text) {
  if (name.ends_with(".jsonl")) {
    std::istringstream in(text);
    std::string out;
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      nlohmann::json value = nlohmann::json::parse(line);
      mask_json(value);
      out += value.dump(1) + "\n";
    }
    return out;
  }
  if (name.ends_with(".json")) {
    nlohmann::json value = nlohmann::json::parse(text);
    mask_json(value);
    return value.dump(1) + "\n";
  }
  return mask_text(text);
}

// How a kept snapshot and a new one differ: the number of lines that differ (line by line, a
// line missing at either end counted as differing) and the first, named by the command or file
// it is under.
struct Difference {
  std::size_t lines = 0;
  std::string first;
};

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline Difference compare(const std::string& kept, const std::string& now) {
  const std::vector<std::string> want = lines_of(kept);
  const std::vector<std::string> got = lines_of(now);
  Difference difference;
  std::string section;
  for (std::size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    const std::string w = i < want.size() ? want[i] : "<end>";
    const std::string g = i < got.size() ? got[i] : "<end>";
    if (g.starts_with("$ fencesim") || g.starts_with("=== file")) section = g;
    if (w == g) continue;
    if (difference.lines++ == 0) {
      difference.first = "line " + std::to_string(i + 1) + " (under '" + section + "'):\n  kept: " +
                         w.substr(0, 300) + "\n  now:  " + g.substr(0, 300);
    }
  }
  return difference;
}

}  // namespace fencesim::cli::testing::snapshot
