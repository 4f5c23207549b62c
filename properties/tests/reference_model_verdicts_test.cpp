// The reference model (properties/reference_model.h) says, for every request a store or sink
// handled, whether the recorded reply is the one the ADR's store rules give; the reference-model
// invariant reports each that is not. Each way a reply can be wrong is its own branch of the model,
// with its own message: tools/quiet-oracles.py --sites (round 25c) made each message a no-op in
// turn and found most reached by no test, the scenarios' stores being faithful. So each branch is
// fed here a history whose replies are right up to one wrong reply of that kind: the model must
// agree with every right one and name the wrong one. A model that lets a wrong verdict through
// judges every store of every run as faithful, and no sweep can tell.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "properties/invariants_builtin.h"
#include "properties/reference_model.h"
#include "properties/tests/story_event.h"
#include "properties/tests/world_of.h"

namespace fencesim::properties::reference_model_verdicts_test {
namespace {

using sim::StoreCall;
using sim::StoreOp;

constexpr std::int64_t kTtl = 30'000'000'000;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};

StoreCall lease_call(StoreOp op, const std::string& holder, runtime::Token token,
                     std::int64_t now_ns, const std::string& outcome) {
  StoreCall call;
  call.op = op;
  call.store = "lease-store";
  call.holder = holder;
  call.key = kTree;
  call.token = token;
  call.ttl_ns = kTtl;
  call.store_wall_ns = now_ns;
  call.outcome = outcome;
  return call;
}

// A take the store answered, naming `lease` in its reply.
StoreCall take(const std::string& holder, std::int64_t now_ns, const std::string& outcome,
               std::optional<runtime::Lease> lease) {
  StoreCall call = lease_call(StoreOp::kTake, holder, runtime::kTokenNone, now_ns, outcome);
  call.lease = std::move(lease);
  return call;
}

runtime::Lease lease(const std::string& holder, runtime::Token token, std::int64_t expires_ns) {
  return runtime::Lease{kTree, holder, token, expires_ns, false};
}

// The model after "a" took epoch 1 at store time 0 (until kTtl).
std::unique_ptr<ReferenceStores> taken_by_a() {
  auto model = std::make_unique<ReferenceStores>();
  EXPECT_FALSE(model->handle(take("a", 0, "taken", lease("a", 1, kTtl))))
      << "a faithful first take";
  return model;
}

TEST(ReferenceModelVerdicts, ARefusedTakeMustNameTheLiveLease) {
  auto model = taken_by_a();
  EXPECT_FALSE(model->handle(take("b", 1000, "held", lease("a", 1, kTtl))));
  EXPECT_TRUE(model->handle(take("b", 1000, "held", lease("a", 2, kTtl))))
      << "refused by epoch 1, the reply names epoch 2";
  EXPECT_TRUE(model->handle(take("b", 1000, "held", std::nullopt))) << "no lease named";
}

TEST(ReferenceModelVerdicts, ATakeOfAKeyWithNoLiveLeaseMustBeGranted) {
  ReferenceStores model;
  EXPECT_TRUE(model.handle(take("a", 0, "held", lease("b", 1, kTtl)))) << "never taken";
  auto after = taken_by_a();
  EXPECT_TRUE(after->handle(take("b", kTtl, "held", lease("a", 1, kTtl))))
      << "epoch 1 expired at the store's kTtl";
}

TEST(ReferenceModelVerdicts, AGrantMustNameTheNextEpochItsHolderAndItsExpiry) {
  const std::int64_t now = kTtl + 5;  // epoch 1 expired: the next take is epoch 2's
  const runtime::Lease right = lease("b", 2, now + kTtl);
  EXPECT_FALSE(taken_by_a()->handle(take("b", now, "taken", right)));
  runtime::Lease wrong = right;
  wrong.token = 1;
  EXPECT_TRUE(taken_by_a()->handle(take("b", now, "taken", wrong))) << "epoch 1 again";
  wrong = right;
  wrong.holder = "a";
  EXPECT_TRUE(taken_by_a()->handle(take("b", now, "taken", wrong))) << "another holder";
  wrong = right;
  wrong.expires_at_ns = now + kTtl + 1;
  EXPECT_TRUE(taken_by_a()->handle(take("b", now, "taken", wrong))) << "another expiry";
  wrong = right;
  wrong.released = true;
  EXPECT_TRUE(taken_by_a()->handle(take("b", now, "taken", wrong))) << "born released";
  EXPECT_TRUE(taken_by_a()->handle(take("b", now, "taken", std::nullopt))) << "no lease";
}

// A renewal the store answered "renewed", its reply extending the lease as a grant would: only
// whether it should have been granted can differ.
StoreCall renewed(const std::string& holder, runtime::Token token, std::int64_t now_ns) {
  StoreCall call = lease_call(StoreOp::kRenew, holder, token, now_ns, "renewed");
  call.lease = lease(holder, token, now_ns + kTtl);
  return call;
}

TEST(ReferenceModelVerdicts, ARenewalIsGrantedOnlyToTheLiveEpochsHolder) {
  EXPECT_FALSE(taken_by_a()->handle(renewed("a", 1, 1000)));
  EXPECT_TRUE(taken_by_a()->handle(lease_call(StoreOp::kRenew, "a", 1, 1000, "stale")))
      << "the live epoch's holder must be renewed";
  EXPECT_TRUE(taken_by_a()->handle(renewed("b", 1, 1000))) << "another holder";
  EXPECT_TRUE(taken_by_a()->handle(renewed("a", 2, 1000))) << "another token";
  EXPECT_TRUE(taken_by_a()->handle(renewed("a", 1, kTtl))) << "expired at the store's now";
  EXPECT_TRUE(ReferenceStores().handle(renewed("a", 1, 0))) << "a key never taken";
  auto released = taken_by_a();
  EXPECT_FALSE(released->handle(lease_call(StoreOp::kRelease, "a", 1, 500, "released")));
  EXPECT_TRUE(released->handle(renewed("a", 1, 1000))) << "given back";
}

TEST(ReferenceModelVerdicts, ARenewalMustExtendToTheStoresNowPlusTtl) {
  StoreCall renew = lease_call(StoreOp::kRenew, "a", 1, 1000, "renewed");
  renew.lease = lease("a", 1, 1000 + kTtl);
  EXPECT_FALSE(taken_by_a()->handle(renew));
  renew.lease = lease("a", 1, kTtl);
  EXPECT_TRUE(taken_by_a()->handle(renew)) << "the old expiry";
  renew.lease = lease("a", 2, 1000 + kTtl);
  EXPECT_TRUE(taken_by_a()->handle(renew)) << "another token";
  renew.lease.reset();
  EXPECT_TRUE(taken_by_a()->handle(renew)) << "no lease in the reply";
}

TEST(ReferenceModelVerdicts, AReleaseIsGrantedOnlyToTheLiveEpochsHolder) {
  EXPECT_TRUE(taken_by_a()->handle(lease_call(StoreOp::kRelease, "a", 1, 1000, "refused")))
      << "its holder's release must be granted";
  EXPECT_TRUE(taken_by_a()->handle(lease_call(StoreOp::kRelease, "b", 1, 1000, "released")))
      << "another holder";
  auto model = taken_by_a();
  EXPECT_FALSE(model->handle(lease_call(StoreOp::kRelease, "a", 1, 1000, "released")));
  EXPECT_TRUE(model->handle(lease_call(StoreOp::kRelease, "a", 1, 2000, "released")))
      << "released twice";
}

StoreCall commit(StoreOp op, runtime::Token token, const std::string& outcome,
                 runtime::Token reply_token) {
  StoreCall call = lease_call(op, "a", token, 1000, outcome);
  call.argument = op == StoreOp::kCommitStep ? "charge" : "";
  call.reply_token = reply_token;
  return call;
}

TEST(ReferenceModelVerdicts, ACheckpointCommitsOnlyUnderTheCurrentEpoch) {
  EXPECT_FALSE(taken_by_a()->handle(commit(StoreOp::kCommitStep, 1, "committed", 1)));
  EXPECT_TRUE(taken_by_a()->handle(commit(StoreOp::kCommitStep, 1, "refused", 1)))
      << "the current epoch refused";
  EXPECT_TRUE(taken_by_a()->handle(commit(StoreOp::kCommitStep, 2, "committed", 1)))
      << "a token that is not the epoch";
  EXPECT_TRUE(taken_by_a()->handle(commit(StoreOp::kCommitStep, 1, "committed", 2)))
      << "judged against another epoch";
  // A refusal names the epoch it was judged against too (red team 40c-31: only a commit's reply
  // token was read).
  EXPECT_FALSE(taken_by_a()->handle(commit(StoreOp::kCommitStep, 2, "refused", 1)))
      << "a faithful refusal of a token that is not the epoch";
  EXPECT_TRUE(taken_by_a()->handle(commit(StoreOp::kCommitStep, 2, "refused", 3)))
      << "a refusal judged against another epoch";
}

StoreCall cancel(const std::string& outcome) {
  StoreCall call = lease_call(StoreOp::kCancel, "client", runtime::kTokenNone, 1000, outcome);
  return call;
}

TEST(ReferenceModelVerdicts, ACancelIsRecordedOnceAndNeverAfterTheCompletion) {
  auto model = taken_by_a();
  EXPECT_TRUE(model->handle(cancel("already-recorded"))) << "the first cancel is recorded";
  EXPECT_TRUE(model->handle(cancel("recorded"))) << "recorded twice";
  EXPECT_FALSE(model->handle(cancel("already-recorded")));
  EXPECT_FALSE(model->handle(commit(StoreOp::kCommitTree, 1, "cancelled", 1)));
  EXPECT_TRUE(model->handle(commit(StoreOp::kCommitTree, 1, "committed", 1)))
      << "a cancelled tree completed";
  auto completed = taken_by_a();
  EXPECT_FALSE(completed->handle(commit(StoreOp::kCommitTree, 1, "committed", 1)));
  EXPECT_TRUE(completed->handle(cancel("recorded"))) << "a cancel after the completion";
}

TEST(ReferenceModelVerdicts, ALoadMustSayWhetherTheCancelWasRecordedAndTheTreeCompleted) {
  StoreCall load = lease_call(StoreOp::kLoad, "a", runtime::kTokenNone, 1000, "ok");
  auto model = taken_by_a();
  EXPECT_FALSE(model->handle(load));
  load.cancelled = true;
  EXPECT_TRUE(model->handle(load)) << "no cancel was recorded";
  load.cancelled = false;
  load.tree_completed = true;
  EXPECT_TRUE(model->handle(load)) << "the tree never completed";
  EXPECT_FALSE(model->handle(cancel("recorded")));
  load.tree_completed = false;
  EXPECT_TRUE(model->handle(load)) << "the cancel was recorded";
}

StoreCall write(runtime::Token token, const std::string& idempotency_key,
                const std::string& outcome, runtime::Token reply_token) {
  StoreCall call;
  call.op = StoreOp::kWrite;
  call.store = "payments";
  call.token = token;
  call.scope_key = "tenant-1:order-1";
  call.argument = idempotency_key;
  call.outcome = outcome;
  call.reply_token = reply_token;
  return call;
}

TEST(ReferenceModelVerdicts, ASinkRefusesBelowTheHighWaterTokenAndAppliesOncePerKey) {
  ReferenceStores model;
  EXPECT_FALSE(model.handle(write(2, "charge", "applied", 2)));
  EXPECT_TRUE(model.handle(write(2, "charge", "applied", 2))) << "applied twice";
  EXPECT_TRUE(model.handle(write(1, "ship", "applied", 2))) << "below the high-water token";
  EXPECT_TRUE(model.handle(write(3, "ship", "applied", 2))) << "the mark was raised to 3";
  EXPECT_FALSE(model.handle(write(3, "notify", "applied", 3)));
}

// Through the invariant's check of a world: each wrong reply reported at its own request.
TEST(ReferenceModelVerdicts, TheInvariantReportsEachWrongReplyAtItsRequest) {
  Events events;
  const auto add = [&](StoreCall call) {
    sim::HistoryEvent e = testing::next_event(events, 1, sim::WorldEventKind::kStoreCall,
                                              static_cast<std::int64_t>(events.size()));
    e.store = std::make_shared<const StoreCall>(std::move(call));
    events.push_back(e);
    return events.back().index;
  };
  add(take("a", 0, "taken", lease("a", 1, kTtl)));
  const auto wrong_take = add(take("b", 1000, "held", lease("a", 2, kTtl)));
  add(lease_call(StoreOp::kRenew, "a", 1, 2000, "stale"));  // a renewal refused wrongly
  // A read changes nothing at the store, and its reply is judged all the same: one that names an
  // epoch never granted is a store lying to whoever reads it (red team 37a-10 skipped the reads).
  StoreCall read = lease_call(StoreOp::kRead, "", runtime::kTokenNone, 3000, "ok");
  read.lease = lease("a", 1, kTtl);
  add(read);  // right
  read.lease = lease("a", 3, kTtl);
  const auto wrong_read = add(read);
  const std::vector<Violation> found = testing::judged_in_world(ReferenceModel{}, events);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].events, std::vector<std::uint64_t>{wrong_take});
  EXPECT_EQ(found[1].events, std::vector<std::uint64_t>{2u});
  EXPECT_EQ(found[2].events, std::vector<std::uint64_t>{wrong_read});
  for (const Violation& v : found) EXPECT_EQ(v.invariant, ReferenceModel{}.name());
}

}  // namespace
}  // namespace fencesim::properties::reference_model_verdicts_test
