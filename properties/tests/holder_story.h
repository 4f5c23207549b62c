#pragma once
// Hand-made histories of one holder's own runtime events, for the oracles that judge the order of
// what a holder reports (remote-wait-ends-held, loss-after-its-cause): each test's Story adds its
// oracle's check to this one.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/invariants_builtin.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::testing {

inline const runtime::LeaseKey kHolderStoryTree{"tenant-1", "order-1"};

class HolderStory {
 public:
  static constexpr sim::NodeId kHolder = 2;
  // A runtime event of the holder at `at_s` seconds (true time and its clock); its history index.
  std::uint64_t at(std::int64_t at_s, runtime::EventKind kind, runtime::Token token,
                   std::string_view detail = {}, const runtime::LeaseKey& key = kHolderStoryTree,
                   std::string holder = "h") {
    sim::HistoryEvent e =
        next_event(events_, kHolder, sim::WorldEventKind::kRuntime, at_s * runtime::kSecond);
    e.runtime = runtime::RuntimeEvent{
        kind, std::move(holder), key, runtime::to_string(key), token, {}, std::string(detail), 0};
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  const Events& events() const { return events_; }

 private:
  Events events_;
};

}  // namespace fencesim::properties::testing
