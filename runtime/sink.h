#pragma once
// An external system a step writes to, with the ADR's exactly-once contract: the token and the
// idempotency key are checked in one atomic operation. The high-water mark is keyed by scopeKey,
// never by a shared aggregate (tenant, sink): AnyInstance children hold leases of their own with
// independent epochs, and a shared mark would refuse healthy ones.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/observer.h"
#include "runtime/types.h"

namespace fencesim::runtime {

struct SinkWrite {
  std::string scope_key;
  Token token = kTokenNone;
  std::string idempotency_key;  // per step, never per attempt: a re-run must deduplicate
  std::string payload;
};

enum class SinkOutcome { kApplied, kDeduplicated, kRefused };
std::string_view to_string(SinkOutcome outcome);

struct SinkReply {
  SinkOutcome outcome;
  Token high_water = kTokenNone;  // the scope key's high-water token after the call
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual const std::string& name() const = 0;
  virtual SinkReply write(const SinkWrite& write) = 0;
};

struct SinkEffect {
  std::string scope_key;
  Token token;
  std::string idempotency_key;
  std::string payload;
};

class MemorySink final : public Sink {
 public:
  MemorySink(std::string name, Observer& observer);
  const std::string& name() const override { return name_; }
  SinkReply write(const SinkWrite& write) override;
  // The effects applied, in order.
  const std::vector<SinkEffect>& effects() const { return effects_; }

 private:
  std::string name_;
  Observer& observer_;
  std::map<std::string, Token> high_water_;                // by scope key
  std::set<std::pair<std::string, std::string>> applied_;  // (scope key, idempotency key)
  std::vector<SinkEffect> effects_;
};

}  // namespace fencesim::runtime
