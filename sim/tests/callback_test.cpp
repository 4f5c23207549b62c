// sim::Callback keeps small closures in place and large ones on the heap; either way it runs the
// closure, moves it without copying, and destroys it exactly once.
#include "sim/callback.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fencesim::sim::callback_test {
namespace {

// Counts the live copies of a closure's capture and the runs of the closure.
struct Probe {
  int* live;
  int* runs;
  Probe(int* l, int* r) : live(l), runs(r) { ++*live; }
  Probe(const Probe& other) : live(other.live), runs(other.runs) { ++*live; }
  Probe(Probe&& other) noexcept : live(other.live), runs(other.runs) { ++*live; }
  Probe& operator=(const Probe&) = delete;
  ~Probe() { --*live; }
};

TEST(CallbackTest, SmallAndLargeClosuresRunMoveAndDieOnce) {
  for (bool large : {false, true}) {
    int live = 0;
    int runs = 0;
    {
      Probe probe(&live, &runs);
      std::array<char, 200> ballast{};  // past the inline bytes: stored on the heap
      Callback callback;
      if (large) {
        callback = [probe, ballast] { *probe.runs += 1 + ballast[0]; };
      } else {
        callback = [probe] { ++*probe.runs; };
      }
      EXPECT_EQ(live, 2) << large;  // `probe` and the closure's copy
      Callback moved = std::move(callback);
      EXPECT_TRUE(callback == nullptr);
      EXPECT_FALSE(moved == nullptr);
      EXPECT_EQ(live, 2) << large;  // moving made no lasting copy
      moved();
      moved();
      EXPECT_EQ(runs, 2) << large;
      std::vector<Callback> queue;
      queue.push_back(std::move(moved));
      for (int i = 0; i < 40; ++i) queue.emplace_back([] {});  // regrowth relocates the first
      queue.front()();
      EXPECT_EQ(runs, 3) << large;
      EXPECT_EQ(live, 2) << large;
    }
    EXPECT_EQ(live, 0) << large;  // every copy destroyed, none twice
  }
}

TEST(CallbackTest, EmptyFunctionsStayEmpty) {
  std::function<void()> empty;
  Callback from_empty(empty);
  EXPECT_TRUE(from_empty == nullptr);
  Callback from_null(nullptr);
  EXPECT_TRUE(from_null == nullptr);
  int runs = 0;
  std::function<void()> full = [&runs] { ++runs; };
  Callback from_full(full);
  ASSERT_FALSE(from_full == nullptr);
  from_full();
  EXPECT_EQ(runs, 1);
}

TEST(CallbackTest, MoveAssignDestroysTheOldClosure) {
  auto first = std::make_shared<int>(1);
  auto second = std::make_shared<int>(2);
  Callback callback = [first] { (void)first; };
  EXPECT_EQ(first.use_count(), 2);
  callback = Callback([second] { (void)second; });
  EXPECT_EQ(first.use_count(), 1);
  EXPECT_EQ(second.use_count(), 2);
  callback = nullptr;
  EXPECT_EQ(second.use_count(), 1);
}

}  // namespace
}  // namespace fencesim::sim::callback_test
