#pragma once
// A small executable model of the store-side rules of ADR-0023, written from the ADR and the
// stores' contract (runtime/lease_repository.h), sharing no code with runtime/: a lease table with
// per-key epochs, expiry by the store's own clock, conditional renew and release; checkpoints
// judged by the key's current epoch; token-checking sinks with a high-water token per scope key
// and idempotency. Fed every request the stores and sinks handled, in the order they handled them
// (sim::StoreCall events), it says what each should have answered; the reference-model invariant
// reports every request whose recorded reply differs.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "properties/key_hash.h"
#include "sim/store_record.h"

namespace fencesim::properties {

class ReferenceStores {
 public:
  // Applies `call` to the model and compares the model's verdict with the recorded reply. Returns
  // what differs, in words, or nullopt when they agree. A request the store failed (threw) is not
  // judged and does not change the model.
  std::optional<std::string> handle(const sim::StoreCall& call);

 private:
  struct ModelLease {
    std::string holder;
    runtime::Token epoch = runtime::kTokenNone;
    std::int64_t expires_at_ns = 0;
    bool released = false;
    bool live_at(std::int64_t now_ns) const { return !released && now_ns < expires_at_ns; }
  };
  struct ModelCheckpoint {
    std::set<std::string> steps;
    bool tree = false;
    bool cancelled = false;  // a client's cancel was recorded (#360)
  };

  std::optional<std::string> take(const sim::StoreCall& call);
  std::optional<std::string> renew(const sim::StoreCall& call);
  std::optional<std::string> release(const sim::StoreCall& call);
  std::optional<std::string> read(const sim::StoreCall& call);
  std::optional<std::string> commit(const sim::StoreCall& call);
  std::optional<std::string> load(const sim::StoreCall& call);
  std::optional<std::string> cancel(const sim::StoreCall& call);
  std::optional<std::string> write(const sim::StoreCall& call);

  // Per store name, then per key (two lease stores never share a table).
  // Only looked up: hashed (KeyHash).
  std::unordered_map<std::pair<std::string, sim::NameKey>, ModelLease, KeyHash> leases_;
  std::unordered_map<std::pair<std::string, sim::NameKey>, ModelCheckpoint, KeyHash> checkpoints_;
  std::map<std::pair<std::string, std::string>, runtime::Token> high_water_;  // (sink, scope key)
  std::set<std::tuple<std::string, std::string, std::string>> applied_;  // + idempotency key
};

}  // namespace fencesim::properties
