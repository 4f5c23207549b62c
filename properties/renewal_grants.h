#pragma once
// The lease store's grants of renewals, read from its records (kStoreCall, op renew, outcome
// renewed), as the answers a confirmNow() may have had: strict-confirm asks whether a confirm had
// one, confirm-cancel-after-renewal asks which grant came first. Grants are kept per (lease key,
// token) in the store's order, not their send order: the network reorders, so an older renewal
// (the timer's, sent before the confirm began) may be granted after the confirm's.
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "properties/key_hash.h"
#include "sim/history.h"

namespace fencesim::properties {

class RenewalGrants {
 public:
  struct Grant {
    std::int64_t sent_ns = 0;
    sim::NodeId from = sim::kWorldNode;
    std::uint64_t index = 0;  // the store's record of the grant
  };

  // Keeps `e` if it records a granted renewal.
  void add(const sim::HistoryEvent& e);
  // The first grant, in the store's order, of a renewal of `token` of `key` sent from `node`
  // between `began_ns` and `returned_ns` (both included): what answered a confirm made there
  // then. Null when none did.
  const Grant* first_answer(const sim::NameKey& key, runtime::Token token, sim::NodeId node,
                            std::int64_t began_ns, std::int64_t returned_ns) const;

 private:
  // Only looked up: hashed.
  std::unordered_map<std::pair<sim::NameKey, runtime::Token>, std::vector<Grant>, KeyHash> grants_;
};

}  // namespace fencesim::properties
