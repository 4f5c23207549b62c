// One runtime event as the trace, a failure's last events and a report's text name it
// (sim::describe): every field that is set is written, and a value that is not zero is written
// whatever its sign (red team 38c-18 dropped the negative ones).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/history.h"

namespace fencesim::sim::testing::history_describe_test {
namespace {

HistoryEvent runtime_event(std::int64_t value, std::string scope_key = "tenant-1:order-1") {
  HistoryEvent e;
  e.index = 7;
  e.time_ns = 1'500'000'000;
  e.node = 1;
  e.world = WorldEventKind::kRuntime;
  e.runtime = RuntimeRecord(runtime::RuntimeEvent{runtime::EventKind::kLeaseRenewed, "instance-1",
                                                  runtime::LeaseKey{"tenant-1", "order-1"},
                                                  std::move(scope_key), 3, "charge", "why", value});
  return e;
}

TEST(HistoryDescribe, ARuntimeEventNamesEveryFieldItHolds) {
  const std::vector<std::string> nodes{"world", "instance-1"};
  const std::string text = describe(runtime_event(42), nodes);
  for (const char* part : {"#7 t=1.500000s instance-1", "holder=instance-1",
                           "key=tenant-1:order-1", "token=3", "step=charge", "detail=why",
                           "value=42"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << " in " << text;
  }
  const std::string negative = describe(runtime_event(-250), nodes);
  EXPECT_NE(negative.find(" value=-250"), std::string::npos) << negative;
  EXPECT_EQ(describe(runtime_event(0), nodes).find("value="), std::string::npos);
}

// An event names its tree once: by its scope key when it has one, else by the key's two parts (a
// store's or a take's events carry no scope key); never both, never neither (red team 39a-09
// swapped the two: a take's line named no tree).
TEST(HistoryDescribe, AnEventNamesItsTreeByTheScopeKeyOrElseByTheKeysParts) {
  const std::vector<std::string> nodes{"world", "instance-1"};
  const std::string scoped = describe(runtime_event(0), nodes);
  EXPECT_NE(scoped.find(" key=tenant-1:order-1 "), std::string::npos) << scoped;
  EXPECT_EQ(scoped.find("(tenant-1, order-1)"), std::string::npos) << scoped;
  const std::string unscoped = describe(runtime_event(0, ""), nodes);
  EXPECT_NE(unscoped.find(" key=(tenant-1, order-1) "), std::string::npos) << unscoped;
}

}  // namespace
}  // namespace fencesim::sim::testing::history_describe_test
