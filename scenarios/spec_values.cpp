#include "scenarios/spec_values.h"

#include <fmt/format.h>

#include <algorithm>

#include "scenarios/one_line.h"

namespace fencesim::scenarios::spec {

namespace {

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date or time";
  }
}

}  // namespace

void SpecReader::fail(std::uint32_t line, std::string_view key, std::string_view what) const {
  // Every refusal quotes what it was given (a scenario name, a key, a value), which may hold a
  // newline: the whole message is escaped to one line here, whatever the caller quoted
  // (fuzz/corpus/spec/finding-workload-name-with-newline.toml).
  throw SpecError(one_line(fmt::format("{}:{}: {}: {}", source_, line, key, what)), line);
}

void SpecReader::note(std::uint32_t line, std::string_view key, std::string_view what) const {
  attempt([&] { fail(line, key, what); });
}

void SpecReader::keep(const SpecError& error) const {
  for (const std::string& each : error.all()) errors_.emplace_back(error.line(), each);
}

void SpecReader::throw_if_any() const {
  if (errors_.empty()) return;
  std::vector<std::pair<std::uint32_t, std::string>> sorted = errors_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> all;
  for (auto& [line, text] : sorted) {
    if (std::find(all.begin(), all.end(), text) == all.end()) all.push_back(std::move(text));
  }
  std::string what = all.front();
  if (all.size() > 1) {
    what += fmt::format(" (and {} more error{}: `fencesim check-spec {}` lists them all)",
                        all.size() - 1, all.size() == 2 ? "" : "s", source_);
  }
  throw SpecError(what, sorted.front().first, std::move(all));
}

void SpecReader::fail(const toml::node& at, std::string_view key, std::string_view what) const {
  fail(at.source().begin.line, key, what);
}

void SpecReader::only_keys(const toml::table& table, std::string_view prefix,
                           std::span<const std::string_view> known) const {
  for (const auto& [key, value] : table) {
    bool found = false;
    for (std::string_view name : known) found = found || key.str() == name;
    if (found) continue;
    std::string list;
    for (std::string_view name : known) list += (list.empty() ? "" : ", ") + std::string(name);
    note(key.source().begin.line, fmt::format("{}{}", prefix, key.str()),
         fmt::format("unknown key (known: {})", list));
  }
}

std::string SpecReader::string(const toml::node& node, std::string_view key) const {
  if (const auto* value = node.as_string()) return value->get();
  fail(node, key, fmt::format("must be a string, not {}", type_name(node)));
}

std::int64_t SpecReader::integer(const toml::node& node, std::string_view key, std::int64_t min,
                                 std::int64_t max) const {
  const auto* value = node.as_integer();
  if (value == nullptr) fail(node, key, fmt::format("must be an integer, not {}", type_name(node)));
  const std::int64_t out = value->get();
  if (out < min || out > max)
    fail(node, key, fmt::format("{} is not within {}..{}", out, min, max));
  return out;
}

double SpecReader::number(const toml::node& node, std::string_view key, double min,
                          double max) const {
  double out = 0;
  if (const auto* real = node.as_floating_point()) {
    out = real->get();
  } else if (const auto* whole = node.as_integer()) {
    out = static_cast<double>(whole->get());
  } else {
    fail(node, key, fmt::format("must be a number, not {}", type_name(node)));
  }
  if (!(out >= min && out <= max)) {
    fail(node, key, fmt::format("{} is not within {}..{}", out, min, max));
  }
  return out;
}

std::int64_t SpecReader::duration(const toml::node& node, std::string_view key,
                                  std::int64_t min) const {
  const auto* text = node.as_string();
  if (text == nullptr) {
    fail(node, key,
         fmt::format("must be a duration string such as \"5s\", not {}", type_name(node)));
  }
  std::int64_t out = 0;
  if (const std::string error = parse_duration(text->get(), out); !error.empty()) {
    fail(node, key, error);
  }
  if (out < min) {
    fail(node, key, fmt::format("'{}' is less than {}", text->get(), format_duration(min)));
  }
  return out;
}

std::pair<const toml::node*, const toml::node*> SpecReader::ends(const toml::node& node,
                                                                 std::string_view key) const {
  const auto* array = node.as_array();
  if (array == nullptr) return {&node, &node};
  if (array->size() != 2) fail(node, key, "a range must be [low, high]");
  return {array->get(0), array->get(1)};
}

Range SpecReader::duration_range(const toml::node& node, std::string_view key,
                                 std::int64_t min) const {
  const auto [low, high] = ends(node, key);
  const Range range{duration(*low, key, min), duration(*high, key, min)};
  if (range.low > range.high) fail(node, key, "a range must be [low, high] with low <= high");
  return range;
}

Range SpecReader::integer_range(const toml::node& node, std::string_view key, std::int64_t min,
                                std::int64_t max) const {
  const auto [low, high] = ends(node, key);
  const Range range{integer(*low, key, min, max), integer(*high, key, min, max)};
  if (range.low > range.high) fail(node, key, "a range must be [low, high] with low <= high");
  return range;
}

ProbabilityRange SpecReader::probability_range(const toml::node& node, std::string_view key) const {
  const auto [low, high] = ends(node, key);
  const ProbabilityRange range{number(*low, key, 0, 1), number(*high, key, 0, 1)};
  if (range.low > range.high) fail(node, key, "a range must be [low, high] with low <= high");
  return range;
}

}  // namespace fencesim::scenarios::spec
