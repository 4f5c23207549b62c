#include "scenarios/mark_floor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace fencesim::scenarios {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

bool mark_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

}  // namespace

MarkFloor::MarkFloor(const char* text) : MarkFloor(parse_mark_floor(text)) {}
MarkFloor::MarkFloor(const std::string& text) : MarkFloor(parse_mark_floor(text)) {}
MarkFloor::MarkFloor(std::string mark, double least_rate) : name(std::move(mark)), rate(least_rate) {
  if (!(rate >= 0 && rate <= 1)) {
    throw std::invalid_argument(
        fmt::format("mark '{}': a floor is a share of runs in (0%, 100%], got {}", name, rate));
  }
}

std::uint64_t MarkFloor::runs_needed() const {
  if (rate <= 0) return kReachedAtAllRuns;
  // With the true rate at the floor, 3 / rate runs reach the mark about three times: few enough
  // runs that a sweep with a fraction of the scenario's share still judges it, and enough that a
  // mark at its floor is rarely missed by chance. Never fewer than a "reached at all" floor waits
  // for: a high floor (80%) judged over 4 runs would fail by chance.
  if (rate > 0.8) return kHighFloorRuns;
  return std::max(kReachedAtAllRuns,
                  static_cast<std::uint64_t>(std::ceil(3.0 / rate - 1e-9)));
}

bool MarkFloor::met_by(std::uint64_t reached, std::uint64_t runs) const {
  if (rate <= 0) return reached > 0;
  return runs > 0 && static_cast<double>(reached) >= rate * static_cast<double>(runs) - 1e-9;
}

std::string MarkFloor::floor_text() const {
  if (rate <= 0) return "reached at all";
  return fmt::format("{:g}%", rate * 100);
}

std::string MarkFloor::text() const {
  if (rate <= 0) return name;
  return fmt::format("{} >= {}", name, floor_text());
}

std::vector<std::string> mark_names(const std::vector<MarkFloor>& floors) {
  std::vector<std::string> names;
  names.reserve(floors.size());
  for (const MarkFloor& floor : floors) names.push_back(floor.name);
  return names;
}

MarkFloor parse_mark_floor(std::string_view text) {
  const std::string_view whole = trim(text);
  const std::size_t ge = whole.find(">=");
  const std::string_view name = trim(whole.substr(0, ge));
  if (name.empty()) {
    throw std::invalid_argument(fmt::format("mark '{}': a mark name is not empty", whole));
  }
  for (char c : name) {
    if (!mark_name_char(c)) {
      throw std::invalid_argument(fmt::format(
          "mark '{}': a mark name has letters, digits, '-', '_' and '.' only; a floor is written "
          "'name >= 2%'",
          whole));
    }
  }
  if (ge == std::string_view::npos) return MarkFloor(std::string(name), 0);
  std::string_view floor = trim(whole.substr(ge + 2));
  const auto bad = [&] {
    return std::invalid_argument(fmt::format(
        "mark '{}': the floor after '>=' is a share of runs such as '2%' or '0.5%'", whole));
  };
  if (floor.empty() || floor.back() != '%') throw bad();
  floor = trim(floor.substr(0, floor.size() - 1));
  double percent = 0;
  const auto [end, error] = std::from_chars(floor.data(), floor.data() + floor.size(), percent);
  if (error != std::errc() || end != floor.data() + floor.size()) throw bad();
  if (!(percent > 0 && percent <= 100)) {
    throw std::invalid_argument(
        fmt::format("mark '{}': a floor is more than 0% and at most 100%", whole));
  }
  return MarkFloor(std::string(name), percent / 100);
}

}  // namespace fencesim::scenarios
