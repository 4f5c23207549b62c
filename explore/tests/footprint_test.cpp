// The reduction's independence relation (explore/footprint.h) on its own: two steps commute only
// when neither touched everything and they share no object. A relation that says "commute" too
// often makes the reduced search skip orders and still say "complete"; the explorer's tests see
// that only through the worlds they happen to build.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "explore/footprint.h"

namespace fencesim::explore::footprint_test {
namespace {

Footprint of(std::initializer_list<std::uint32_t> objects) {
  Footprint footprint;
  for (const std::uint32_t object : objects) footprint.add(object);
  return footprint;
}

TEST(Footprint, StepsOfDisjointObjectsCommute) {
  EXPECT_TRUE(independent(of({1, 4}), of({2, 3, 5})));
  EXPECT_TRUE(independent(of({}), of({2})));
}

TEST(Footprint, AnyObjectInCommonIsAConflictWhereverItIs) {
  // First, last and middle of either list, and the network's draw, which is an object like a node.
  EXPECT_FALSE(independent(of({1, 4}), of({1, 9})));
  EXPECT_FALSE(independent(of({1, 4, 9}), of({2, 9})));
  EXPECT_FALSE(independent(of({2, 5, 7}), of({1, 5, 8})));
  EXPECT_FALSE(independent(of({3, sim::kTouchNetworkRng}), of({sim::kTouchNetworkRng, 6})));
  // Both ways round.
  EXPECT_FALSE(independent(of({2, 9}), of({1, 4, 9})));
}

TEST(Footprint, AStepThatTouchedEverythingCommutesWithNothing) {
  const Footprint all = of({sim::kTouchAll});
  EXPECT_TRUE(all.touches_all());
  EXPECT_FALSE(independent(all, of({7})));
  EXPECT_FALSE(independent(of({7}), all));
  EXPECT_FALSE(independent(all, of({})));  // even a step that touched nothing else
  EXPECT_FALSE(independent(of({}), all));
  EXPECT_FALSE(independent(all, all));
  // Everything is not an object among others: it does not appear in the list.
  EXPECT_TRUE(of({3, sim::kTouchAll}).objects() == std::vector<std::uint32_t>{3});
}

TEST(Footprint, ObjectsAreKeptSortedAndOnce) {
  const Footprint footprint = of({9, 2, 9, 5, 2});
  EXPECT_EQ(footprint.objects(), (std::vector<std::uint32_t>{2, 5, 9}));
  EXPECT_FALSE(footprint.touches_all());
}

}  // namespace
}  // namespace fencesim::explore::footprint_test
