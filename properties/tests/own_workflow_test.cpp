// The own-workflow oracle: on hand-made histories (the nightly-mix seed 14 situation, two children
// on one key, a tree completed without its steps, a parent ahead of its child) and on a world where
// a root is named like another tree's AnyInstance child under the old child key (parent id + "/" +
// path): the runtime either keeps the two trees apart, and the oracle is silent, or puts them on one
// lease, and the oracle says so.
#include <gtest/gtest.h>

#include <set>

#include "properties/invariants_builtin.h"
#include "scenarios/workload.h"
#include "sim/world.h"

namespace fencesim::properties::own_workflow_test {
namespace {

using runtime::ChildPlacement;
using runtime::kSecond;
using sim::StoreCall;
using sim::StoreOp;

const runtime::LeaseKey kParent{"tenant-1", "order-1"};
const runtime::LeaseKey kTwin{"tenant-1", "order-1/children/invoice"};  // a root's id

runtime::WorkflowRegistry registry() {
  auto nothing = [](runtime::ExecutionContext&) {};
  runtime::WorkflowRegistry r;
  r.add({"remote",
         {runtime::StepItem{"charge", nothing},
          runtime::GroupItem{"sub", {{"check", ChildPlacement::kParentInstance, "branch"}}},
          runtime::StepItem{"settle", nothing}}});
  r.add({"branch", {runtime::StepItem{"prepare", nothing}}});
  r.add({"order",
         {runtime::StepItem{"reserve", nothing},
          runtime::GroupItem{"children", {{"invoice", ChildPlacement::kAnyInstance, "remote"}}},
          runtime::StepItem{"ship", nothing}}});
  r.add({"two",
         {runtime::GroupItem{"a",
                             {{"b/c", ChildPlacement::kAnyInstance, "branch"},
                              {"d", ChildPlacement::kAnyInstance, "branch"}}}}});
  return r;
}

class History {
 public:
  std::uint64_t call(StoreCall c) {
    sim::HistoryEvent e;
    e.index = events_.size();
    e.node = 1;
    e.world = sim::WorldEventKind::kStoreCall;
    e.store = std::make_shared<const StoreCall>(std::move(c));
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  std::uint64_t place(const runtime::LeaseKey& key, const std::string& workflow,
                      std::optional<runtime::LeaseKey> parent = std::nullopt) {
    StoreCall c;
    c.op = StoreOp::kPlace;
    c.key = key;
    c.argument = workflow;
    c.parent = std::move(parent);
    c.outcome = "ok";
    return call(c);
  }
  std::uint64_t step(const runtime::LeaseKey& key, const std::string& path,
                     std::string outcome = "committed") {
    StoreCall c;
    c.op = StoreOp::kCommitStep;
    c.key = key;
    c.token = 1;
    c.argument = path;
    c.outcome = std::move(outcome);
    return call(c);
  }
  std::uint64_t complete(const runtime::LeaseKey& key) {
    StoreCall c;
    c.op = StoreOp::kCommitTree;
    c.key = key;
    c.token = 1;
    c.outcome = "committed";
    return call(c);
  }
  const Events& events() const { return events_; }

 private:
  Events events_;
};

std::vector<Violation> judged(const History& h, const runtime::WorkflowRegistry& r) {
  std::vector<Violation> found;
  check_own_workflow(h.events(), workflow_shapes_of(r), found);
  return found;
}

std::string text(const std::vector<Violation>& found) {
  std::string out;
  for (const Violation& v : found) out += v.invariant + ": " + v.message + "\n";
  return out;
}

bool says(const std::vector<Violation>& found, std::string_view words) {
  for (const Violation& v : found) {
    if (v.message.find(words) != std::string::npos) return true;
  }
  return false;
}

// The parent runs its whole tree and its child runs its own: nothing to say.
void healthy_child(History& h, const runtime::LeaseKey& child) {
  h.step(child, "charge");
  h.step(child, "sub/check/prepare");
  h.step(child, "settle");
  h.complete(child);
}

TEST(OwnWorkflow, AHealthyTreeWithItsChildPasses) {
  const auto r = registry();
  const runtime::LeaseKey child{"tenant-1", "@child:order-1:children%2Finvoice"};
  History h;
  h.place(kParent, "order");
  h.step(kParent, "reserve");
  h.place(child, "remote", kParent);
  healthy_child(h, child);
  h.step(kParent, "ship");
  h.complete(kParent);
  // A path spelled with each name encoded is the same step.
  h.place(kTwin, "remote");
  h.step(kTwin, "charge");
  h.step(kTwin, "sub/check/prepare");
  h.step(kTwin, "settle", "refused");
  h.step(kTwin, "settle");
  h.complete(kTwin);
  EXPECT_TRUE(judged(h, r).empty()) << text(judged(h, r));
}

TEST(OwnWorkflow, ARootOnItsTwinsChildKeyIsCaught) {
  // Nightly-mix seed 14: a root whose execution id is its twin's child key (parent id + "/" +
  // path) arrives first; the child's placement lands on the root's key, the root's steps run
  // there, the tree completes and the parent goes on as if its child had run.
  const auto r = registry();
  History h;
  h.place(kTwin, "order");
  h.place(kParent, "order");
  h.step(kTwin, "reserve");
  h.step(kParent, "reserve");
  h.place(kTwin, "remote", kParent);
  h.step(kTwin, "ship");
  h.complete(kTwin);
  h.step(kParent, "ship");
  h.complete(kParent);
  const auto found = judged(h, r);
  EXPECT_TRUE(says(found, "two trees were placed on one lease key")) << text(found);
  EXPECT_TRUE(says(found, "step 'reserve' ran and was checkpointed under")) << text(found);
  EXPECT_TRUE(says(found, "its step 'charge' was never checkpointed")) << text(found);
  for (const Violation& v : found) EXPECT_EQ(v.invariant, "own-workflow");
}

TEST(OwnWorkflow, TwoChildrenOnOneKeyAreCaughtWhenTheParentCompletes) {
  const auto r = registry();
  const runtime::LeaseKey shared{"tenant-1", "order-1/a/b/c"};
  History h;
  h.place(kParent, "two");
  h.place(shared, "branch", kParent);
  h.place(shared, "branch", kParent);  // "a" + "b/c" and "a/b" + "c" spelled alike
  h.step(shared, "prepare");
  h.complete(shared);
  h.complete(kParent);
  const auto found = judged(h, r);
  EXPECT_TRUE(says(found, "defines 2 AnyInstance children, but it placed them on 1 lease key"))
      << text(found);
}

TEST(OwnWorkflow, ATreeCompletedWithoutItsStepsOrBeforeItsChildIsCaught) {
  const auto r = registry();
  const runtime::LeaseKey child{"tenant-1", "child-of-order-1"};
  History h;
  h.place(kParent, "order");
  h.step(kParent, "reserve");
  h.place(child, "remote", kParent);
  h.step(child, "charge");
  h.complete(kParent);  // before the child, and without "ship"
  const auto found = judged(h, r);
  EXPECT_TRUE(says(found, "its step 'ship' was never checkpointed")) << text(found);
  EXPECT_TRUE(says(found, "completed before its child")) << text(found);
  // The child never completed: the run ended before it could, which says nothing of its steps.
  EXPECT_FALSE(says(found, "its step 'settle'")) << text(found);
}

// A parent waits for its AnyInstance child: a child that completes only after its parent did was
// not waited for, though the history ends with both complete (a runtime whose remote-children wait
// returned before the child finished: the parent went on, shipped and completed, and the child ran
// on after it). (Red team 35a-45: the oracle counted a child complete at any time as waited for.)
TEST(OwnWorkflow, AChildThatCompletesOnlyAfterItsParentWasNotWaitedFor) {
  const auto r = registry();
  const runtime::LeaseKey child{"tenant-1", "@child:order-1:children%2Finvoice"};
  History h;
  h.place(kParent, "order");
  h.step(kParent, "reserve");
  const auto placed = h.place(child, "remote", kParent);
  h.step(child, "charge");
  h.step(kParent, "ship");
  const auto done = h.complete(kParent);  // the child still runs
  h.step(child, "sub/check/prepare");
  h.step(child, "settle");
  h.complete(child);
  const auto found = judged(h, r);
  ASSERT_EQ(found.size(), 1u) << text(found);
  EXPECT_TRUE(says(found, "completed before its child")) << text(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{placed, done}));
}

// Only a committed checkpoint is one: a tree that completes with a step the store only refused
// completed without it (a refused commit wrote nothing under the key).
TEST(OwnWorkflow, AStepTheStoreOnlyRefusedWasNeverCheckpointed) {
  const auto r = registry();
  History h;
  const auto placed = h.place(kTwin, "remote");
  h.step(kTwin, "charge");
  h.step(kTwin, "sub/check/prepare");
  h.step(kTwin, "settle", "refused");
  const auto completed = h.complete(kTwin);
  const auto found = judged(h, r);
  ASSERT_EQ(found.size(), 1u) << text(found);
  EXPECT_TRUE(says(found, "its step 'settle' was never checkpointed")) << text(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{placed, completed}));
}

// A step of another workflow sent under a key is caught whether or not the store took it: a
// refused commit still says the holder ran a step its tree does not have (red team 36b-26 judged
// committed checkpoints alone, and a foreign step whose commit was refused went unseen).
TEST(OwnWorkflow, AForeignStepIsCaughtEvenWhenTheStoreRefusedItsCheckpoint) {
  const auto r = registry();
  History h;
  h.place(kTwin, "remote");
  h.step(kTwin, "charge");
  h.step(kTwin, "reserve", "refused");  // order's step, not remote's
  h.step(kTwin, "sub/check/prepare");
  h.step(kTwin, "settle");
  h.complete(kTwin);
  const auto found = judged(h, r);
  EXPECT_TRUE(says(found, "step 'reserve' ran")) << text(found);
}

// Two trees of one workflow are still two trees: a key placed as the child of two parents (or as a
// root and a child) shares one lease between them, and one of them never runs.
TEST(OwnWorkflow, OneKeyPlacedAsTheChildOfTwoParentsIsCaught) {
  const auto r = registry();
  const runtime::LeaseKey other{"tenant-1", "order-2"};
  const runtime::LeaseKey shared{"tenant-1", "invoice-1"};
  History h;
  h.place(kParent, "order");
  h.place(other, "order");
  const auto first = h.place(shared, "remote", kParent);
  const auto second = h.place(shared, "remote", other);
  const auto found = judged(h, r);
  ASSERT_EQ(found.size(), 1u) << text(found);
  EXPECT_TRUE(says(found, "two trees were placed on one lease key")) << text(found);
  EXPECT_TRUE(says(found, "child of (tenant-1, order-2)")) << text(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{first, second}));
}

// A real world: the parent's AnyInstance child and a root named by the old child key (parent id +
// "/" + path) arrive together, the root first.
sim::World& twin_world(std::unique_ptr<sim::World>& world) {
  sim::WorldOptions options;
  options.seed = 14;
  world = std::make_unique<sim::World>(options);
  world->add_lease_store();
  world->add_sink("ledger");
  world->add_instance("instance-1");
  world->add_instance("instance-2");
  sim::World& w = *world;
  w.workflows().add({"remote",
                     {scenarios::write_step(w, "charge", kSecond, "ledger", "child charge"),
                      scenarios::work_step("settle", kSecond)}});
  w.workflows().add(
      {"order",
       {scenarios::work_step("reserve", kSecond),
        runtime::GroupItem{"children", {{"invoice", ChildPlacement::kAnyInstance, "remote"}}},
        scenarios::work_step("ship", kSecond)}});
  w.submit(kTwin, "order", 0);
  w.submit(kParent, "order", kSecond);
  return w;
}

TEST(OwnWorkflow, ARootNamedLikeAChildKeyIsKeptApartOrCaught) {
  std::unique_ptr<sim::World> holder;
  sim::World& world = twin_world(holder);
  world.run();
  // What the history says the child was placed as: its key is the runtime's choice.
  std::optional<runtime::LeaseKey> child;
  for (const sim::HistoryEvent& e : world.history().events()) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store && e.store->op == StoreOp::kPlace &&
        e.store->parent == kParent) {
      child = e.store->key;
    }
  }
  ASSERT_TRUE(child.has_value());
  std::vector<Violation> found;
  OwnWorkflow{}.check(world, found);
  if (*child == kTwin) {
    // The old child key: the root took the child's lease and the child never ran its workflow.
    EXPECT_TRUE(says(found, "two trees were placed on one lease key")) << text(found);
    EXPECT_TRUE(says(found, "step 'reserve' ran and was checkpointed under")) << text(found);
  } else {
    // Kept apart: the oracle is silent, and the child ran its own steps under its own key.
    EXPECT_TRUE(found.empty()) << text(found);
    bool charged = false;
    for (const sim::HistoryEvent& e : world.history().events()) {
      charged |= e.world == sim::WorldEventKind::kStoreCall && e.store &&
                 e.store->op == StoreOp::kCommitStep && e.store->key == *child &&
                 e.store->argument == "charge" && e.store->outcome == "committed";
    }
    EXPECT_TRUE(charged);
  }
}

// Every report, not only the first: each history holds two independent failures the oracle must
// both report. tools/quiet-oracles.py --sites --first-only found each of these reports could stop
// its judge at the first with every test above still passing.
std::multiset<std::vector<std::uint64_t>> events_of(const std::vector<Violation>& found) {
  std::multiset<std::vector<std::uint64_t>> events;
  for (const Violation& v : found) events.insert(v.events);
  return events;
}

using Reports = std::multiset<std::vector<std::uint64_t>>;

TEST(OwnWorkflowEveryReport, TwoKeysEachPlacedTwiceAreBothCaught) {
  const auto r = registry();
  History h;
  // A placement counts once per (workflow, parent): each key gets two different trees.
  const auto parent_first = h.place(kParent, "order");
  const auto parent_again = h.place(kParent, "remote");
  const auto twin_first = h.place(kTwin, "remote");
  const auto twin_again = h.place(kTwin, "order");
  const auto found = judged(h, r);
  EXPECT_EQ(events_of(found), (Reports{{parent_first, parent_again}, {twin_first, twin_again}}))
      << text(found);
}

// One parent fails twice: too few child keys, and its one child not done when it completed.
TEST(OwnWorkflowEveryReport, TooFewChildKeysAndAChildNotDoneAreBothCaught) {
  const auto r = registry();
  const runtime::LeaseKey child{"tenant-1", "order-1/a/d"};
  History h;
  const auto parent = h.place(kParent, "two");
  const auto placed = h.place(child, "branch", kParent);
  const auto done = h.complete(kParent);
  const auto found = judged(h, r);
  EXPECT_EQ(events_of(found), (Reports{{parent, done}, {placed, done}})) << text(found);
}

TEST(OwnWorkflowEveryReport, TwoChildrenNotDoneWhenTheirParentCompletedAreBothCaught) {
  const auto r = registry();
  History h;
  h.place(kParent, "two");
  const auto first = h.place({"tenant-1", "order-1/a/b%2Fc"}, "branch", kParent);
  const auto second = h.place({"tenant-1", "order-1/a/d"}, "branch", kParent);
  const auto done = h.complete(kParent);
  const auto found = judged(h, r);
  EXPECT_EQ(events_of(found), (Reports{{first, done}, {second, done}})) << text(found);
}
}  // namespace
}  // namespace fencesim::properties::own_workflow_test
