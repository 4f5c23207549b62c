// A store's process that crashes while paused loses what its pause left unread: the requests that
// reached it and waited for it to read them die with it, as a real process's unread socket buffer
// does, and the process that comes back is not paused. Before, the restarted store handled the
// dead process's requests at the old pause's planned end (a renewal granted by a process that
// never received it), and recorded a resume of a pause that had ended with its process.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/tests/one_step_world.h"

namespace fencesim::sim::store_crash_test {
namespace {

using runtime::kSecond;

const std::vector<std::string> kNames = {"world", "lease-store", "instance-1"};

// The store stopped from 9.9 s to 11.4 s (the instance's renewal near 10 s waits unread for it)
// and crashed at 10.5 s for 300 ms.
std::unique_ptr<World> crashed_while_paused() {
  Fault stop{FaultKind::kStop, "lease-store"};
  stop.at_ns = 9 * kSecond + 900'000'000;
  stop.duration_ns = 1'500'000'000;
  Fault crash{FaultKind::kCrash, "lease-store"};
  crash.at_ns = 10 * kSecond + 500'000'000;
  crash.duration_ns = 300'000'000;
  return testing::run_one_step_world({}, {stop, crash}).world;
}

TEST(StoreCrash, TheRequestsAPauseLeftUnreadDieWithTheStoresProcess) {
  const auto world = crashed_while_paused();
  bool renewal_lost = false;
  for (const HistoryEvent& e : world->history().events()) {
    // Nothing the dead process received is handled by the next one: the renewal sent at 10.04 s
    // is lost, and the instance's next renewal (near 22 s) is the store's next call.
    if (e.world == WorldEventKind::kStoreCall) {
      EXPECT_FALSE(e.time_ns > 10 * kSecond && e.time_ns < 20 * kSecond)
          << "the restarted store handled a request its dead process received: "
          << describe(e, kNames);
    }
    if (e.world == WorldEventKind::kMessageLost && e.detail.find("renew") != std::string::npos &&
        e.detail.find("its reader crashed") != std::string::npos) {
      renewal_lost = true;
    }
  }
  EXPECT_TRUE(renewal_lost) << "the renewal the crashed store never read is not reported lost";
}

TEST(StoreCrash, TheProcessThatComesBackIsNotPaused) {
  const auto world = crashed_while_paused();
  const std::vector<std::int64_t> resumed = testing::times_of(*world, WorldEventKind::kNodeResumed);
  EXPECT_TRUE(resumed.empty()) << "a pause that ended with its process resumed the next one at "
                               << resumed.front();
  // The stop's effect ends with the crash, not at its planned end.
  bool stop_ended_at_crash = false;
  for (const HistoryEvent& e : world->history().events()) {
    if (e.world == WorldEventKind::kFaultEnded && e.detail.starts_with("stop")) {
      stop_ended_at_crash = e.time_ns == 10 * kSecond + 500'000'000;
    }
  }
  EXPECT_TRUE(stop_ended_at_crash);
}

}  // namespace
}  // namespace fencesim::sim::store_crash_test
