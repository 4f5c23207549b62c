#include "scenarios/spec_durations.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

namespace fencesim::scenarios::spec {

namespace {

struct Unit {
  std::string_view name;
  std::int64_t ns;
};
constexpr std::array<Unit, 6> kUnits{{{"ns", 1},
                                      {"us", 1'000},
                                      {"ms", 1'000'000},
                                      {"s", 1'000'000'000},
                                      {"m", 60'000'000'000},
                                      {"h", 3'600'000'000'000}}};

}  // namespace

std::string parse_duration(std::string_view text, std::int64_t& out) {
  const std::string shown(text);
  std::string_view rest = text;
  const bool negative = rest.starts_with('-');
  if (negative) rest.remove_prefix(1);
  const std::size_t number_end = rest.find_first_not_of("0123456789.");
  const std::string_view number = rest.substr(0, number_end);
  const std::string_view unit_name =
      number_end == std::string_view::npos ? std::string_view{} : rest.substr(number_end);
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
  const bool well_formed = !whole.empty() && fraction.find('.') == std::string_view::npos &&
                           (dot == std::string_view::npos || !fraction.empty());
  if (!well_formed) {
    return fmt::format("'{}' is not a duration (a number and a unit: 250ms, 1.5s, 2m)", shown);
  }
  if (unit_name.empty()) {
    if (whole.find_first_not_of('0') == std::string_view::npos && fraction.empty()) {
      out = 0;
      return {};
    }
    return fmt::format("'{}' needs a unit (ns, us, ms, s, m, h)", shown);
  }
  const Unit* unit = nullptr;
  for (const Unit& candidate : kUnits) {
    if (candidate.name == unit_name) unit = &candidate;
  }
  if (unit == nullptr) {
    return fmt::format("'{}': unknown unit '{}' (known: ns, us, ms, s, m, h)", shown, unit_name);
  }
  // Exact integer arithmetic: 1.5s is 1'500'000'000 ns, not a float's approximation of it.
  std::int64_t value = 0;
  bool overflow = false;
  for (char digit : whole) {
    overflow = overflow || __builtin_mul_overflow(value, 10, &value) ||
               __builtin_add_overflow(value, digit - '0', &value);
  }
  overflow = overflow || __builtin_mul_overflow(value, unit->ns, &value);
  std::int64_t scale = unit->ns;
  for (char digit : fraction) {
    if (scale % 10 != 0) {
      return fmt::format("'{}' is finer than a nanosecond", shown);
    }
    scale /= 10;
    overflow = overflow || __builtin_add_overflow(value, (digit - '0') * scale, &value);
  }
  if (overflow) return fmt::format("'{}' is too long (more than 292 years)", shown);
  out = negative ? -value : value;
  return {};
}

std::string format_duration(std::int64_t ns) {
  constexpr std::int64_t kMs = 1'000'000;
  constexpr std::int64_t kSec = 1'000'000'000;
  if (ns % kSec == 0) return fmt::format("{}s", ns / kSec);
  if (std::llabs(ns) >= kSec) {
    std::string text = fmt::format("{:.3f}", static_cast<double>(ns) / 1e9);
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text + "s";
  }
  if (ns % kMs == 0) return fmt::format("{}ms", ns / kMs);
  return fmt::format("{}ns", ns);
}

}  // namespace fencesim::scenarios::spec
