#include "reports/interruption.h"

#include <fmt/format.h>

#include <csignal>

#include "reports/json_reader.h"

namespace fencesim::reports {

using nlohmann::json;
using nlohmann::ordered_json;

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return fmt::format("signal {}", signal);
}

std::string describe_seed_spans(const std::vector<SeedSpan>& spans) {
  if (spans.empty()) return "none";
  std::string text;
  for (const SeedSpan& span : spans) {
    if (!text.empty()) text += ", ";
    if (!span.last) {
      text += fmt::format("{}..", span.first);
    } else if (*span.last == span.first) {
      text += fmt::format("{}", span.first);
      continue;
    } else {
      text += fmt::format("{}..{}", span.first, *span.last);
    }
    if (span.every > 1) text += fmt::format(" every {}", span.every);
  }
  return text;
}

std::vector<SeedSpan> seed_spans(const std::vector<std::uint64_t>& seeds, std::uint64_t step) {
  std::vector<SeedSpan> spans;
  for (const std::uint64_t seed : seeds) {
    if (!spans.empty() && *spans.back().last + step == seed) {
      spans.back().last = seed;
    } else {
      spans.push_back(SeedSpan{seed, seed, step});
    }
  }
  return spans;
}

ordered_json to_json(const Interruption& interruption) {
  ordered_json spans = ordered_json::array();
  for (const SeedSpan& span : interruption.seeds_not_run) {
    spans.push_back(ordered_json{{"first", span.first},
                                 {"last", span.last ? ordered_json(*span.last) : ordered_json()},
                                 {"every", span.every}});
  }
  return ordered_json{
      {"signal", interruption.signal},
      {"seeds_not_run", spans},
      {"seeds_not_run_text", describe_seed_spans(interruption.seeds_not_run)},
      {"budget_left_ms", interruption.budget_left_ms ? ordered_json(*interruption.budget_left_ms)
                                                     : ordered_json()}};
}

Interruption interruption_from_json(const JsonReader& reader, const json& object) {
  reader.expect_object(object, "interrupted");
  Interruption interruption;
  interruption.signal = reader.string(object, "signal");
  for (const json& span : reader.array(object, "seeds_not_run")) {
    reader.expect_object(span, "each of 'seeds_not_run'");
    SeedSpan read{reader.unsigned_integer(span, "first"), std::nullopt, 1};
    if (span.contains("every")) read.every = reader.unsigned_integer(span, "every");
    if (read.every == 0) reader.fail("a span of 'seeds_not_run' has 'every' 0");
    if (!reader.is_null(span, "last")) {
      read.last = reader.unsigned_integer(span, "last");
      if (*read.last < read.first) reader.fail("a span of 'seeds_not_run' ends before it begins");
    }
    interruption.seeds_not_run.push_back(read);
  }
  if (!reader.is_null(object, "budget_left_ms")) {
    interruption.budget_left_ms = reader.unsigned_integer(object, "budget_left_ms");
  }
  return interruption;
}

}  // namespace fencesim::reports
