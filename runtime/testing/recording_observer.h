#pragma once
// Keeps every runtime event, for tests that assert on what the runtime reported.
#include <algorithm>
#include <vector>

#include "runtime/observer.h"

namespace fencesim::runtime::testing {

class RecordingObserver final : public Observer {
 public:
  void on_event(const RuntimeEvent& event) override { events_.push_back(event); }
  const std::vector<RuntimeEvent>& events() const { return events_; }
  std::size_t count(EventKind kind) const {
    return static_cast<std::size_t>(std::count_if(
        events_.begin(), events_.end(), [&](const RuntimeEvent& e) { return e.kind == kind; }));
  }
  std::size_t count(EventKind kind, const std::string& holder) const {
    return static_cast<std::size_t>(
        std::count_if(events_.begin(), events_.end(),
                      [&](const RuntimeEvent& e) { return e.kind == kind && e.holder == holder; }));
  }
  // The last event of `kind` by `holder` (empty holder: anyone), or null.
  const RuntimeEvent* last(EventKind kind, const std::string& holder = {}) const {
    for (auto it = events_.rbegin(); it != events_.rend(); ++it) {
      if (it->kind == kind && (holder.empty() || it->holder == holder)) return &*it;
    }
    return nullptr;
  }
  void clear() { events_.clear(); }

 private:
  std::vector<RuntimeEvent> events_;
};

}  // namespace fencesim::runtime::testing
