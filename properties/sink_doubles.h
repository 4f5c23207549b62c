#pragma once
// Broken sinks, to prove the harness bites: each brings back a bug the fence exists to prevent.
#include <map>
#include <set>

#include "runtime/sink.h"

namespace fencesim::properties {

// Checks idempotency keys but never tokens: a stale holder's write lands after the takeover.
class StaleAcceptingSink final : public runtime::Sink {
 public:
  StaleAcceptingSink(std::string name, runtime::Observer& observer)
      : name_(std::move(name)), observer_(observer) {}
  const std::string& name() const override { return name_; }
  runtime::SinkReply write(const runtime::SinkWrite& write) override {
    runtime::Token& high_water = high_water_[write.scope_key];
    high_water = std::max(high_water, write.token);
    runtime::RuntimeEvent event{runtime::EventKind::kSinkApplied,
                                name_,
                                {},
                                write.scope_key,
                                write.token,
                                {},
                                write.idempotency_key,
                                static_cast<std::int64_t>(high_water)};
    if (!applied_.emplace(write.scope_key, write.idempotency_key).second) {
      event.kind = runtime::EventKind::kSinkDeduplicated;
      observer_.on_event(event);
      return runtime::SinkReply{runtime::SinkOutcome::kDeduplicated, high_water};
    }
    observer_.on_event(event);
    return runtime::SinkReply{runtime::SinkOutcome::kApplied, high_water};
  }

 private:
  std::string name_;
  runtime::Observer& observer_;
  std::map<std::string, runtime::Token> high_water_;
  std::set<std::pair<std::string, std::string>> applied_;
};

}  // namespace fencesim::properties
