// Where a history keeps its store calls (History::keep_store_call): side by side for a history
// that keeps its events, every call intact and where it was put however many follow; one
// allocation each, freed with its event, for a history that keeps none.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/history.h"

namespace fencesim::sim::store_call_storage_test {
namespace {

StoreCall call_number(int i) {
  StoreCall call;
  call.op = StoreOp::kWrite;
  call.token = static_cast<runtime::Token>(i);
  call.payload = "payload " + std::to_string(i) + std::string(40, 'x');
  call.outcome = "applied";
  return call;
}

TEST(StoreCallStorage, CallsStayIntactWhereTheyWerePutAsMoreFollow) {
  History history;
  std::vector<std::shared_ptr<const StoreCall>> kept;
  std::vector<const StoreCall*> where;
  for (int i = 0; i < 1000; ++i) {  // several chunks' worth
    kept.push_back(history.keep_store_call(call_number(i)));
    where.push_back(kept.back().get());
  }
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(kept[static_cast<std::size_t>(i)].get(), where[static_cast<std::size_t>(i)]);
    EXPECT_EQ(kept[static_cast<std::size_t>(i)]->token, static_cast<runtime::Token>(i));
    EXPECT_EQ(kept[static_cast<std::size_t>(i)]->payload, call_number(i).payload);
  }
}

TEST(StoreCallStorage, ACallOutlivesItsHistoryWhileAnEventHoldsIt) {
  std::shared_ptr<const StoreCall> copied_out;
  {
    History history;
    for (int i = 0; i < 300; ++i) {
      auto call = history.keep_store_call(call_number(i));
      if (i == 299) copied_out = call;
    }
  }
  EXPECT_EQ(copied_out->token, 299u);
  EXPECT_EQ(copied_out->payload, call_number(299).payload);
}

TEST(StoreCallStorage, AHistoryThatKeepsNoEventsFreesEachCallWithItsEvent) {
  History history;
  history.set_keep_events(false);
  std::weak_ptr<const StoreCall> watched;
  {
    const std::shared_ptr<const StoreCall> call = history.keep_store_call(call_number(1));
    watched = call;
  }
  EXPECT_TRUE(watched.expired()) << "a hashed-only run kept its store call after its event went";
}

}  // namespace
}  // namespace fencesim::sim::store_call_storage_test
