// The stack pool's accounting (red-team round 28c): a stack returned counts as returned whether it
// is kept for reuse or unmapped because the free list is full.
#include "sim/stack_pool.h"

#include <gtest/gtest.h>

#include <cstddef>

#include "sim/scheduler.h"

namespace fencesim::sim {
namespace {

// Touches `depth` frames of 4 KiB each, so that the stack really holds them.
std::size_t deep(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  frame[sizeof frame - 1] = frame[0];
  if (depth == 0) return sizeof frame;
  return sizeof frame + deep(depth - 1) + static_cast<std::size_t>(frame[sizeof frame - 1] & 0);
}

// A fiber of a world has the pool's default stack, 256 KiB: room for a step body 128 KiB deep
// (hostile names of 700 bytes through fmt, an error walked through its causes, an exception
// unwinding through the runtime). A smaller default (red team 34a: 64 KiB) passed every test and
// sweep of the day, and would end any deeper body's worker with SIGSEGV on its guard page. (Half
// the stack, so that the sanitizers' larger frames still fit.)
TEST(StackPool, AWorldsFibersHaveRoomForABody128KiBDeep) {
  Scheduler world({.seed = 1});
  std::size_t used = 0;
  world.spawn(1, "deep", [&] { used = deep(31); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(used, 32u * 4096u);
}

// Below each stack lies a guard page no fiber may touch: a fiber that overflows its stack faults
// there at once (its worker dies with SIGSEGV, a failure of its seed) instead of writing over
// whatever mapping lies below (red team 36a-53 left the page writable: nothing else noticed).
TEST(StackPool, TheGuardPageUnderAStackFaults) {
  StackPool pool;
  boost::context::stack_context stack = pool.allocate();
  volatile char* const lowest = static_cast<char*>(stack.sp) - stack.size;
  lowest[0] = 1;  // the stack's own lowest byte is writable
  EXPECT_DEATH({ lowest[-1] = 1; }, "");
  pool.deallocate(stack);
}

TEST(StackPool, AStackUnmappedPastTheFreeLimitIsNoLongerOutstanding) {
  StackPool pool(StackPool::kDefaultStackSize, /*max_free=*/1);
  boost::context::stack_context a = pool.allocate();
  boost::context::stack_context b = pool.allocate();
  EXPECT_NE(a.sp, b.sp);
  EXPECT_EQ(pool.outstanding(), 2u);
  pool.deallocate(a);  // kept for reuse
  pool.deallocate(b);  // past the limit: unmapped
  EXPECT_EQ(pool.outstanding(), 0u);
  EXPECT_EQ(pool.free_stacks(), 1u);
  // The kept stack is the one handed out next: no new mapping.
  boost::context::stack_context c = pool.allocate();
  EXPECT_EQ(pool.mapped_total(), 2u);
  EXPECT_EQ(pool.outstanding(), 1u);
  pool.deallocate(c);
  EXPECT_EQ(pool.outstanding(), 0u);
}

}  // namespace
}  // namespace fencesim::sim
