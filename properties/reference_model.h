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
#include <unordered_set>

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
  // Texts are the recorded names (sim/name.h): a lookup or a grant copies no bytes.
  struct ModelLease {
    sim::Name holder;
    runtime::Token epoch = runtime::kTokenNone;
    std::int64_t expires_at_ns = 0;
    bool released = false;
    bool live_at(std::int64_t now_ns) const { return !released && now_ns < expires_at_ns; }
  };
  struct ModelCheckpoint {
    std::set<sim::Name> steps;
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
  std::unordered_map<std::pair<sim::Name, sim::NameKey>, ModelLease, KeyHash> leases_;
  std::unordered_map<std::pair<sim::Name, sim::NameKey>, ModelCheckpoint, KeyHash> checkpoints_;
  // (sink, scope key)
  std::unordered_map<std::pair<sim::Name, sim::Name>, runtime::Token, KeyHash> high_water_;
  // + idempotency key
  std::unordered_set<std::tuple<sim::Name, sim::Name, sim::Name>, KeyHash> applied_;
};

}  // namespace fencesim::properties
