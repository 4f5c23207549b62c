// A fault's description is what the history records as the fault is applied and what the reports
// and the timeline show a person debugging; the reports also find the plan's fault by it. Each
// part of it is pinned here: the kind and node, the peer, the length, the kind's amount, and when
// it comes (a mechanical mutant of session 43 that dropped "for N ms" from every fault changed
// every history and failed no test of sim/).
#include <gtest/gtest.h>

#include <string>

#include "runtime/types.h"
#include "sim/fault.h"

namespace fencesim::sim::fault_describe_test {
namespace {

using runtime::kMillisecond;
using runtime::kSecond;

Fault at(FaultKind kind, std::int64_t at_ns, std::int64_t duration_ns, std::int64_t amount = 0) {
  Fault fault{kind, "instance-1"};
  fault.at_ns = at_ns;
  fault.duration_ns = duration_ns;
  fault.amount = amount;
  return fault;
}

TEST(FaultDescribe, EachKindNamesItsLengthAndItsAmount) {
  EXPECT_EQ(describe(at(FaultKind::kStall, 1500 * kMillisecond, 31 * kSecond)),
            "stall instance-1 for 31000 ms at 1.500 s");
  EXPECT_EQ(describe(at(FaultKind::kClockDrift, 0, 0, -900)),
            "clock-drift instance-1 -900 ppm at 0.000 s");
  EXPECT_EQ(describe(at(FaultKind::kClockStep, 2 * kSecond, 0, -5 * kSecond)),
            "clock-step instance-1 wall step -5000 ms at 2.000 s");
  EXPECT_EQ(describe(at(FaultKind::kMigrate, kSecond, 40 * kSecond, 3 * kSecond)),
            "migrate instance-1 for 40000 ms wall step 3000 ms at 1.000 s");
  EXPECT_EQ(describe(at(FaultKind::kNetworkDelay, kSecond, 2 * kSecond, 250 * kMillisecond)),
            "network-delay instance-1 for 2000 ms +250 ms at 1.000 s");
  Fault drop = at(FaultKind::kNetworkDrop, kSecond, 3 * kSecond);
  drop.probability = 0.25;
  EXPECT_EQ(describe(drop), "network-drop instance-1 for 3000 ms p=0.25 at 1.000 s");
  Fault partition = at(FaultKind::kPartition, kSecond, 4 * kSecond);
  partition.peer = "lease-store";
  EXPECT_EQ(describe(partition), "partition instance-1 <-> lease-store for 4000 ms at 1.000 s");
  // A crash that never restarts has no length to name.
  EXPECT_EQ(describe(at(FaultKind::kCrash, 7 * kSecond, 0)), "crash instance-1 at 7.000 s");
}

TEST(FaultDescribe, ATriggeredFaultNamesItsEventItsAimAndUntilWhen) {
  Fault stop = at(FaultKind::kStop, 0, 35 * kSecond);
  stop.trigger = Trigger{runtime::EventKind::kWriteSent, 2, 50 * kMillisecond, "instance-2"};
  EXPECT_EQ(describe(stop), "stop instance-1 for 35000 ms after write-sent #2 at instance-2 + 50 ms");

  Fault aimed = at(FaultKind::kStall, 0, 0);
  aimed.trigger = Trigger{runtime::EventKind::kLeaseRenewed, 1, -5 * kMillisecond, ""};
  aimed.trigger->aim = Aim::kHolderExpiry;
  aimed.trigger->until = Aim::kStoreExpiry;
  aimed.trigger->until_delay_ns = kSecond;
  EXPECT_EQ(describe(aimed),
            "stall instance-1 until store-expiry + 1000 ms aimed at holder-expiry - 5 ms after "
            "lease-renewed #1 at instance-1");

  Fault in_flight = at(FaultKind::kStall, 0, 2 * kSecond);
  in_flight.trigger = Trigger{runtime::EventKind::kTakeSent, 1, 0, ""};
  in_flight.trigger->aim = Aim::kInFlight;
  in_flight.trigger->within_permille = 125;
  EXPECT_EQ(describe(in_flight),
            "stall instance-1 for 2000 ms aimed at in-flight (12.5% of the way) after take-sent "
            "#1 at instance-1");
}

}  // namespace
}  // namespace fencesim::sim::fault_describe_test
