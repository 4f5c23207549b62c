#include "cli/parse.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "reports/replay_file.h"

namespace fencesim::cli {

std::uint64_t parse_seed(std::string_view option, std::string_view text) {
  const bool digits_only =
      !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits_only) {
    throw UsageError(fmt::format("{}: '{}' is not an unsigned 64-bit integer", option, text));
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) {
    throw UsageError(fmt::format("{}: '{}' is out of range (0..{})", option, text,
                                 std::numeric_limits<std::uint64_t>::max()));
  }
  if (error != std::errc{} || end != text.data() + text.size()) {
    throw UsageError(fmt::format("{}: '{}' is not an unsigned 64-bit integer", option, text));
  }
  return value;
}

SeedRange parse_seed_range(std::string_view option, std::string_view text) {
  const auto dots = text.find("..");
  const bool single =
      !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (single) {
    const std::uint64_t seed = parse_seed(option, text);
    return SeedRange{seed, seed};
  }
  if (dots == std::string_view::npos) {
    throw UsageError(fmt::format("{}: expected A..B with A <= B, got '{}'", option, text));
  }
  const std::string_view first_text = text.substr(0, dots);
  const std::string_view last_text = text.substr(dots + 2);
  const bool well_formed = !first_text.empty() && !last_text.empty() &&
                           first_text.find_first_not_of("0123456789") == std::string_view::npos &&
                           last_text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!well_formed) {
    throw UsageError(fmt::format("{}: expected A..B with A <= B, got '{}'", option, text));
  }
  const SeedRange range{parse_seed(option, first_text), parse_seed(option, last_text)};
  if (range.first > range.last) {
    throw UsageError(fmt::format("{}: expected A..B with A <= B, got '{}'", option, text));
  }
  return range;
}

sim::Strategy parse_strategy(std::string_view option, std::string_view text) {
  if (const auto strategy = reports::strategy_from_name(text)) return *strategy;
  throw UsageError(fmt::format("{}: unknown strategy '{}' (expected random, pct or pct-dN)",
                               option, text));
}

void set_strategy(std::string_view option, std::string_view text,
                  properties::RunRequest& request) {
  if (text == "drawn") {
    reports::apply_strategy(reports::drawn_strategy(request.seed), request);
    return;
  }
  if (!reports::named_strategy(text)) {
    throw UsageError(fmt::format(
        "{}: unknown strategy '{}' (expected random, pct, pct-dN or drawn)", option, text));
  }
  reports::apply_strategy(text, request);
}

}  // namespace fencesim::cli
