// One runtime event as the trace, a failure's last events and a report's text name it
// (sim::describe): every field that is set is written, and a value that is not zero is written
// whatever its sign (red team 38c-18 dropped the negative ones).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/history.h"

namespace fencesim::sim::testing::history_describe_test {
namespace {

HistoryEvent runtime_event(std::int64_t value) {
  HistoryEvent e;
  e.index = 7;
  e.time_ns = 1'500'000'000;
  e.node = 1;
  e.world = WorldEventKind::kRuntime;
  e.runtime = RuntimeRecord(runtime::RuntimeEvent{runtime::EventKind::kLeaseRenewed, "instance-1",
                                                  runtime::LeaseKey{"tenant-1", "order-1"},
                                                  "tenant-1:order-1", 3, "charge", "why", value});
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

}  // namespace
}  // namespace fencesim::sim::testing::history_describe_test
