// The last events a hung worker writes before it is killed (sim/last_events.h) name each kind, the
// runtime's and the world's alike, oldest first, and keep only the last kKept: a hang's report that
// prints nothing, or names the wrong kinds, would send whoever reads it the wrong way.
#include <gtest/gtest.h>

#include <string>

#include "sim/history.h"
#include "sim/last_events.h"

namespace fencesim::sim::last_events_test {
namespace {

using runtime::EventKind;

TEST(LastEvents, EachKindIsNamedOldestFirst) {
  last_events::clear();
  EXPECT_EQ(last_events::text(), "");
  last_events::note(WorldEventKind::kRuntime, EventKind::kTakeSent);
  last_events::note(WorldEventKind::kFaultApplied, EventKind::kTakeSent);
  last_events::note(WorldEventKind::kRuntime, EventKind::kLeaseTaken);
  last_events::note(kLastWorldEventKind, EventKind::kTakeSent);
  last_events::note(WorldEventKind::kRuntime, runtime::kLastEventKind);
  EXPECT_EQ(last_events::text(),
            "last events (oldest first): take-sent, fault-applied, lease-taken, fault-aimed, " +
                std::string(runtime::to_string(runtime::kLastEventKind)) + "\n");
  last_events::clear();
}

TEST(LastEvents, OnlyTheLastOnesAreKept) {
  last_events::clear();
  for (std::size_t i = 0; i < last_events::kKept; ++i) {
    last_events::note(WorldEventKind::kRuntime, EventKind::kRenewSent);
  }
  last_events::note(WorldEventKind::kRuntime, EventKind::kLeaseLost);
  const std::string text = last_events::text();
  std::size_t renewals = 0;
  for (std::size_t at = text.find("renew-sent"); at != std::string::npos;
       at = text.find("renew-sent", at + 1)) {
    ++renewals;
  }
  EXPECT_EQ(renewals, last_events::kKept - 1) << text;
  EXPECT_TRUE(text.ends_with(", lease-lost\n")) << text;
  last_events::clear();
}

}  // namespace
}  // namespace fencesim::sim::last_events_test
