// How often each fault of a plan fired (reports::count_fired), as a replay file records it and as
// `fencesim replay` reports a trigger no longer reached ("fired N times in the recording"). A fault
// that fires again and again (a trigger on every occurrence) counts every firing; faults alike in
// words share the firings in plan order, the first of them one, the last the rest.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "reports/replay_history.h"
#include "sim/fault.h"
#include "sim/history.h"

namespace fencesim::reports::count_fired_test {
namespace {

void applied(sim::History& history, const sim::Fault& fault) {
  sim::HistoryEvent event;
  event.world = sim::WorldEventKind::kFaultApplied;
  event.detail = sim::describe(fault);
  history.record(std::move(event));
}

sim::Fault stall_at(std::int64_t at_ns) {
  sim::Fault fault{sim::FaultKind::kStall, "instance-1"};
  fault.at_ns = at_ns;
  fault.duration_ns = runtime::kSecond;
  return fault;
}

TEST(CountFired, AFaultThatFiresThreeTimesCountsThree) {
  const sim::Fault stall = stall_at(0);
  const sim::Fault other = stall_at(runtime::kSecond);
  sim::History history;
  for (int i = 0; i < 3; ++i) applied(history, stall);
  EXPECT_EQ(count_fired(history, sim::FaultPlan{{stall, other}}),
            (std::vector<std::uint64_t>{3, 0}));
}

TEST(CountFired, FaultsAlikeInWordsShareTheirFiringsInPlanOrder) {
  const sim::Fault stall = stall_at(0);
  sim::History history;
  for (int i = 0; i < 3; ++i) applied(history, stall);
  EXPECT_EQ(count_fired(history, sim::FaultPlan{{stall, stall}}),
            (std::vector<std::uint64_t>{1, 2}));
}

}  // namespace
}  // namespace fencesim::reports::count_fired_test
