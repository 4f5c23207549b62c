#pragma once
// A holder's local expiry as the oracles compute it, never read from the runtime's belief: from the
// takes and renewals of a lease key and token that the lease store granted (its kStoreCall
// records), each giving confirmedUntil = its send time on the holder's monotonic clock + ttl - the
// lease policy's drift margin; a renewal counts only if it was sent before the lease had already
// expired locally. Renewals granted whose replies were lost still count, so this expiry is never
// earlier than the holder's own: judged against it, a correct holder is never accused.
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "properties/invariants_builtin.h"

namespace fencesim::properties {

class LocalExpiries {
 public:
  explicit LocalExpiries(LocalExpiryPolicy policy) : policy_(policy) {}

  // Feeds one history event, in history order; only the lease store's grants count.
  void add(const sim::HistoryEvent& e);

  struct Expiry {
    runtime::Nanoseconds monotonic_ns = 0;  // on the holder's monotonic clock
    std::uint64_t grant_index = 0;          // the grant that set it
  };
  // The local expiry of (key, token) at `node` from the grants fed so far, or nullopt if the
  // store never granted that token to that node.
  std::optional<Expiry> expiry(const sim::NameKey& key, runtime::Token token,
                               sim::NodeId node) const;

 private:
  struct Grant {
    runtime::Nanoseconds sent_monotonic_ns = 0;
    runtime::Nanoseconds ttl_ns = 0;
    sim::NodeId from = sim::kWorldNode;
    std::uint64_t index = 0;
  };
  runtime::Nanoseconds margin(runtime::Nanoseconds ttl_ns) const {
    return ttl_ns / 1'000'000 * 2 * policy_.drift_bound_ppm + policy_.drift_margin_min_ns;
  }

  LocalExpiryPolicy policy_;
  // By the recorded names, hashed: a grant of a key copies no bytes, and a lookup compares the
  // key's names by identity. Only ever looked up, never walked: its order reaches no verdict.
  using GrantKey = std::pair<sim::NameKey, runtime::Token>;
  struct GrantKeyHash {
    std::size_t operator()(const GrantKey& key) const noexcept {
      return std::hash<sim::NameKey>{}(key.first) ^ (key.second * 0x9E3779B97F4A7C15ULL);
    }
  };
  std::unordered_map<GrantKey, std::vector<Grant>, GrantKeyHash> grants_;
};

}  // namespace fencesim::properties
