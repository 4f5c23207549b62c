// The unchecked system's index of grants and releases (LeaseChanges) gives every call the overlap a
// walk of the whole history gives, however the history grows between calls: a key's changes kept
// whole and in order, other keys' and other kinds' events left out.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/unchecked_system.h"

namespace fencesim::scenarios::lease_changes_test {
namespace {

using runtime::EventKind;

const std::vector<runtime::LeaseKey>& keys() {
  // Two keys that share a tenant and a long prefix, and one of another tenant.
  static const std::vector<runtime::LeaseKey> all{
      {"tenant", std::string(300, 'x') + "a"},
      {"tenant", std::string(300, 'x') + "b"},
      {"other", "a"},
  };
  return all;
}

sim::HistoryEvent event(std::int64_t time_ns, sim::WorldEventKind world, EventKind kind,
                        const runtime::LeaseKey& key, runtime::Token token) {
  sim::HistoryEvent e;
  e.time_ns = time_ns;
  e.world = world;
  e.runtime.kind = kind;
  e.runtime.key = sim::NameKey(key);
  e.runtime.token = token;
  return e;
}

// A history of grants, releases and look-alikes (the same kinds as world events, other runtime
// events), times never decreasing.
std::vector<sim::HistoryEvent> draw_history() {
  const auto count = *rc::gen::inRange<int>(0, 80);
  std::vector<sim::HistoryEvent> events;
  std::int64_t now = 0;
  for (int i = 0; i < count; ++i) {
    now += *rc::gen::inRange<std::int64_t>(0, 5);
    const auto& key = keys()[*rc::gen::inRange<std::size_t>(0, keys().size())];
    const auto token = *rc::gen::inRange<runtime::Token>(1, 6);
    const auto kind = *rc::gen::element(EventKind::kStoreLeaseGranted, EventKind::kStoreLeaseReleased,
                                        EventKind::kLeaseReleased);
    const auto world = *rc::gen::element(sim::WorldEventKind::kRuntime, sim::WorldEventKind::kRuntime,
                                         sim::WorldEventKind::kIntent);
    events.push_back(event(now, world, kind, key, token));
  }
  return events;
}

RC_GTEST_PROP(LeaseChanges, GivesTheWholeWalksOverlapAsTheHistoryGrows, ()) {
  const std::vector<sim::HistoryEvent> all = draw_history();
  LeaseChanges changes;
  std::vector<sim::HistoryEvent> grown;
  std::size_t next = 0;
  while (next < all.size()) {
    // The history grows by a few events between two calls, as a run's does.
    const auto step = *rc::gen::inRange<std::size_t>(1, 10);
    for (std::size_t i = 0; i < step && next < all.size(); ++i) grown.push_back(all[next++]);
    changes.catch_up(grown);
    const std::int64_t last = grown.back().time_ns;
    const auto from = *rc::gen::inRange<std::int64_t>(0, last + 2);
    const auto to = from + *rc::gen::inRange<std::int64_t>(0, 40);
    const auto token = *rc::gen::inRange<runtime::Token>(0, 6);
    for (const runtime::LeaseKey& key : keys()) {
      RC_ASSERT(overlap_with_later_holders(changes.of(key), token, from, to) ==
                overlap_with_later_holders(grown, key, token, from, to));
    }
  }
}

TEST(LeaseChanges, CountsALaterEpochsTenureUntilItsRelease) {
  const runtime::LeaseKey& key = keys()[0];
  const runtime::LeaseKey& neighbour = keys()[1];
  std::vector<sim::HistoryEvent> events{
      event(10, sim::WorldEventKind::kRuntime, EventKind::kStoreLeaseGranted, key, 1),
      event(20, sim::WorldEventKind::kRuntime, EventKind::kStoreLeaseGranted, key, 2),
      event(25, sim::WorldEventKind::kRuntime, EventKind::kStoreLeaseGranted, neighbour, 7),
      event(30, sim::WorldEventKind::kRuntime, EventKind::kStoreLeaseReleased, key, 2),
      event(35, sim::WorldEventKind::kRuntime, EventKind::kStoreLeaseReleased, neighbour, 7),
  };
  LeaseChanges changes;
  changes.catch_up(events);
  // Token 1's call over [15, 40]: token 2 held the key from 20 to 30.
  EXPECT_EQ(overlap_with_later_holders(changes.of(key), 1, 15, 40), 10);
  // Token 2's own call overlapped nobody; the neighbour's tenure is not the key's.
  EXPECT_EQ(overlap_with_later_holders(changes.of(key), 2, 15, 40), 0);
  EXPECT_EQ(overlap_with_later_holders(changes.of(neighbour), 1, 0, 40), 10);
  EXPECT_TRUE(changes.of(keys()[2]).empty());
}

}  // namespace
}  // namespace fencesim::scenarios::lease_changes_test
