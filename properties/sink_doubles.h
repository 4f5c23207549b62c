#pragma once
// Broken sinks, to prove the harness bites: each brings back a bug the fence exists to prevent.
#include <map>
#include <set>

#include "runtime/sink.h"
#include "sim/scheduler.h"

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

// Checks the token and the idempotency key, then writes later, in a second step: the check and the
// write are not one atomic operation (a database doing "select, then update" without a lock). A
// request checked between the two sees the old high-water mark and the effect not yet applied, so a
// stale token's write can land after a newer one and an effect can be applied twice. The write
// lands `delay_ns` of true time after its check; the reply (sent at the check) says applied.
class NonAtomicSink final : public runtime::Sink {
 public:
  NonAtomicSink(std::string name, runtime::Observer& observer, sim::Scheduler& scheduler,
                std::int64_t delay_ns)
      : name_(std::move(name)), observer_(observer), scheduler_(scheduler), delay_ns_(delay_ns) {}
  const std::string& name() const override { return name_; }
  runtime::SinkReply write(const runtime::SinkWrite& write) override {
    const runtime::Token high_water = high_water_[write.scope_key];
    runtime::RuntimeEvent event{runtime::EventKind::kSinkRefused,
                                name_,
                                {},
                                write.scope_key,
                                write.token,
                                {},
                                write.idempotency_key,
                                static_cast<std::int64_t>(high_water)};
    if (write.token < high_water) {
      observer_.on_event(event);
      return runtime::SinkReply{runtime::SinkOutcome::kRefused, high_water};
    }
    if (applied_.contains({write.scope_key, write.idempotency_key})) {
      event.kind = runtime::EventKind::kSinkDeduplicated;
      observer_.on_event(event);
      return runtime::SinkReply{runtime::SinkOutcome::kDeduplicated, high_water};
    }
    // The check passed; the write itself happens later, whatever was checked or written meanwhile.
    scheduler_.at(scheduler_.now_ns() + delay_ns_, [this, write] {
      high_water_[write.scope_key] = write.token;
      applied_.emplace(write.scope_key, write.idempotency_key);
      observer_.on_event(runtime::RuntimeEvent{runtime::EventKind::kSinkApplied,
                                               name_,
                                               {},
                                               write.scope_key,
                                               write.token,
                                               {},
                                               write.idempotency_key,
                                               static_cast<std::int64_t>(write.token)});
    });
    return runtime::SinkReply{runtime::SinkOutcome::kApplied, write.token};
  }

 private:
  std::string name_;
  runtime::Observer& observer_;
  sim::Scheduler& scheduler_;
  std::int64_t delay_ns_;
  std::map<std::string, runtime::Token> high_water_;
  std::set<std::pair<std::string, std::string>> applied_;
};

}  // namespace fencesim::properties
