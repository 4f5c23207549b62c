#pragma once
// The built-in invariants, one class each; their statements use the ADR's words.
#include "properties/invariant.h"

namespace fencesim::properties {

class SinkMonotonicity final : public Invariant {
 public:
  std::string_view name() const override { return "sink-monotonicity"; }
  std::string_view statement() const override {
    return "per sink and scope key, once a write with token t is accepted, no write with a lower token is accepted";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class ExactlyOnce final : public Invariant {
 public:
  std::string_view name() const override { return "exactly-once"; }
  std::string_view statement() const override {
    return "per scope key and idempotency key at most one effect; exactly one once its tree completed";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

class PerKeyEpochs final : public Invariant {
 public:
  std::string_view name() const override { return "per-key-epochs"; }
  std::string_view statement() const override {
    return "takes of a key are granted tokens 1, 2, 3, ... with no gap or reuse; renewals keep the token; one holder per (key, token)";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

}  // namespace fencesim::properties
