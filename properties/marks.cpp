#include "properties/marks.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "properties/mark_rules.h"
#include "runtime/check.h"

namespace fencesim::properties {

struct MarkDetector::Rules {
  std::vector<std::unique_ptr<MarkRule>> rules;
  // Per event kind, the rules that read it, in the rules' order (the order of marks at an event).
  std::array<std::vector<MarkRule*>, static_cast<std::size_t>(sim::kLastWorldEventKind) + 1>
      by_kind;

  void sort_by_kind() {
    for (std::size_t kind = 0; kind < by_kind.size(); ++kind) {
      for (const std::unique_ptr<MarkRule>& rule : rules) {
        if (rule->reads() & kind_bit(static_cast<sim::WorldEventKind>(kind))) {
          by_kind[kind].push_back(rule.get());
        }
      }
    }
  }
};

MarkDetector::MarkDetector(const sim::World& world)
    : rules_(std::make_unique<Rules>(Rules{make_mark_rules(world), {}})) {
  rules_->sort_by_kind();
}

MarkDetector::MarkDetector(const sim::World& world, std::set<std::string> watched)
    : rules_(std::make_unique<Rules>()), watched_(std::move(watched)) {
  const std::vector<std::string> history = history_mark_names();
  for (std::unique_ptr<MarkRule>& rule : make_mark_rules(world)) {
    bool wanted = false;
    const std::vector<std::string_view> names = rule->names();
    if (names.empty()) {
      // The rule of a workload's own marks: wanted when a watched name is no history rule's.
      for (const std::string& name : *watched_) {
        if (!std::binary_search(history.begin(), history.end(), name)) wanted = true;
      }
    }
    for (const std::string_view name : names) {
      if (watched_->contains(std::string(name))) wanted = true;
    }
    if (wanted) rules_->rules.push_back(std::move(rule));
  }
  rules_->sort_by_kind();
}

MarkDetector::~MarkDetector() = default;

void MarkDetector::observe(const sim::HistoryEvent& e, std::vector<PlacedMark>& out) {
  const auto kind = static_cast<std::size_t>(e.world);
  check(kind < rules_->by_kind.size(), "a history event's kind is a WorldEventKind");
  const std::vector<MarkRule*>& readers = rules_->by_kind[kind];
  if (readers.empty()) return;
  // One reference captured, so the callback fits std::function's own storage: no allocation per
  // event.
  struct Placing {
    const MarkDetector& detector;
    const sim::HistoryEvent& event;
    std::vector<PlacedMark>& out;
  } placing{*this, e, out};
  const MarkRule::Reach reach = [&placing](std::string_view name) {
    if (placing.detector.watched_ && !placing.detector.watched_->contains(std::string(name))) {
      return;
    }
    placing.out.push_back(PlacedMark{std::string(name), placing.event.index});
  };
  for (MarkRule* rule : readers) rule->observe(e, reach);
}

std::vector<std::string> history_mark_names() {
  static const std::vector<std::string> names = mark_rule_names();
  return names;
}

std::vector<PlacedMark> place_marks(const sim::World& world) {
  MarkDetector detector(world);
  std::vector<PlacedMark> placed;
  for (const sim::HistoryEvent& e : world.history().events()) detector.observe(e, placed);
  return placed;
}

std::map<std::string, std::uint64_t> count_marks(const sim::World& world) {
  std::map<std::string, std::uint64_t> marks;
  for (const PlacedMark& mark : place_marks(world)) ++marks[mark.name];
  return marks;
}

std::map<std::string, std::int64_t> sum_figures(const sim::World& world) {
  std::map<std::string, std::int64_t> figures;
  for (const sim::HistoryEvent& e : world.history().events()) {
    if (e.world != sim::WorldEventKind::kMeasure) continue;
    const std::size_t space = e.detail.rfind(' ');
    check(space != std::string::npos, "a measure is 'name value'");
    const std::string value = e.detail.substr(space + 1);
    std::int64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    check(error == std::errc(), "a measure's value is an integer");
    check(end == value.data() + value.size(), "a measure's value is only an integer");
    figures[e.detail.substr(0, space)] += number;
  }
  return figures;
}

}  // namespace fencesim::properties
