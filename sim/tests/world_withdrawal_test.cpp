// What the world records of a client's withdrawal (World::withdraw_at): when it began and what
// withdraw() gave back, in the words the withdrawal oracles read (an ExecutionError's code, "ok",
// or "error: " and what any other exception says). A withdrawal whose body fails with an error of
// its own must not read as "ok": the oracles would take a failed effect for one that ran.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/tests/one_step_world.h"

namespace fencesim::sim {
namespace {

using runtime::kSecond;

std::vector<std::string> returned(const World& world) {
  std::vector<std::string> outcomes;
  for (const HistoryEvent& e : world.history().events()) {
    if (e.world == WorldEventKind::kObserved && e.runtime.holder == "withdrawal-returned") {
      outcomes.emplace_back(e.detail.str());
    }
  }
  return outcomes;
}

TEST(WorldWithdrawal, WhatTheBodyThrewIsRecordedAsItsOutcome) {
  testing::OneStepWorld shape;
  shape.step_seconds = 1;
  bool scheduled = false;
  shape.in_step = [&scheduled](World& world) {
    if (scheduled) return;  // the step runs once, but a rerun must not withdraw twice
    scheduled = true;
    const runtime::LeaseKey tree{"tenant-1", "order-1"};
    // After the tree completed (about 1 s): each runs in a frame rebuilt from the checkpoint.
    world.withdraw_at(20 * kSecond, "instance-1", tree, "wait",
                      [](runtime::ExecutionContext&) { throw std::runtime_error("boom"); });
    world.withdraw_at(21 * kSecond, "instance-1", tree, "wait", [](runtime::ExecutionContext&) {});
  };
  const testing::RanWorld ran = testing::run_one_step_world(shape, {});
  EXPECT_EQ(returned(*ran.world), (std::vector<std::string>{"error: boom", "ok"}));
}

}  // namespace
}  // namespace fencesim::sim
