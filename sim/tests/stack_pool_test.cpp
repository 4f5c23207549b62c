// The stack pool's accounting (red-team round 28c): a stack returned counts as returned whether it
// is kept for reuse or unmapped because the free list is full.
#include "sim/stack_pool.h"

#include <gtest/gtest.h>

namespace fencesim::sim {
namespace {

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
