#include "scenarios/mix_workload.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>

#include "runtime/tree_runner.h"
#include "scenarios/failure_cleanup.h"
#include "scenarios/hostile_names.h"
#include "scenarios/renewal_race.h"
#include "scenarios/swarm_workload.h"
#include "scenarios/tree_shapes.h"
#include "scenarios/watchful_step.h"
#include "scenarios/window_workload.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ChildPlacement;
using runtime::ExecutionContext;
using runtime::join_path;
using runtime::kMillisecond;
using runtime::kSecond;
using runtime::Workflow;

namespace {

// The names the mix's workflows use, drawn per seed.
struct MixNames {
  std::string prepare, record, charge, settle, note, reserve, ship, children, audit, notify,
      invoice, refund_check, fan_a, fan_b, fan_group, job, nested_job, sub, check, leaf, post;
};

MixNames draw_names(HostileNames& names) {
  MixNames n;
  for (auto [field, plain] : std::initializer_list<std::pair<std::string*, const char*>>{
           {&n.prepare, "prepare"}, {&n.record, "record"},     {&n.charge, "charge"},
           {&n.settle, "settle"},   {&n.note, "note"},         {&n.reserve, "reserve"},
           {&n.ship, "ship"},       {&n.children, "children"}, {&n.audit, "audit"},
           {&n.notify, "notify"},   {&n.invoice, "invoice"},   {&n.refund_check, "refund-check"},
           {&n.fan_a, "fan-a"},     {&n.fan_b, "fan-b"},       {&n.fan_group, "remote"},
           {&n.job, "job"},         {&n.nested_job, "nested"}, {&n.sub, "sub"},
           {&n.check, "check"},     {&n.leaf, "leaf"},         {&n.post, "post"}}) {
    *field = names.name(plain);
  }
  // Now and then a root step named like a branch's step path: under a naming that joins paths
  // with an unescaped '/', the two share one checkpoint entry and one of them is skipped.
  if (names.rng().chance(0.1)) n.ship = join_path(join_path(n.children, n.audit), n.record);
  return n;
}

// What the seed's tree looks like ("shape" stream).
struct MixShape {
  int fan_outs;        // ParentInstance branches that wait on remote children themselves
  bool nested_remote;  // the AnyInstance child has a branch and an AnyInstance child of its own
  bool busy_ship;      // "ship" keeps working after its write
  bool busy_remote;    // the AnyInstance child's "charge" keeps working after its write
};

MixShape draw_shape(sim::Rng& rng) {
  static constexpr int kFanOuts[] = {0, 1, 2, 2};
  MixShape shape{};
  shape.fan_outs = kFanOuts[rng.below(4)];
  shape.nested_remote = rng.chance(0.6);
  shape.busy_ship = rng.chance(0.6);
  shape.busy_remote = rng.chance(0.5);
  return shape;
}

// A fan-out's remote job: writes, and marks remote-waits-overlapped when two lanes of a tree
// wait on remote children while it runs.
runtime::StepItem job_step(sim::World& world, std::shared_ptr<TreeWatch> watch, std::string name,
                           runtime::Nanoseconds duration) {
  return declared_step(std::move(name), {{"ledger", "job"}},
                       [&world, watch = std::move(watch), duration](ExecutionContext& ctx) {
                         ctx.env().sleep(duration);
                         if (watch->remote_waits_overlap()) {
                           world.mark(ctx, "remote-waits-overlapped");
                         }
                         write_effect(world, ctx, "ledger", "job", "job");
                       });
}

// The root keys named like another tree's child, each with the index of its form in
// kChildKeyTwinForms.
using Twins = std::map<runtime::LeaseKey, std::size_t>;

// The mark of a twin of form `form` that ran.
std::string twin_form_mark(std::size_t form) {
  return fmt::format("child-key-twin-{}-ran", kChildKeyTwinForms.at(form));
}

// Marks hostile-name-ran (the tree or the step holds a hostile name), child-key-twin-ran (the
// tree is a root named like another tree's child) and the twin's form's mark, then runs `step`.
runtime::StepItem name_marking(sim::World& world, std::shared_ptr<const Twins> twins,
                               runtime::StepItem step) {
  return runtime::StepItem{
      step.name, [&world, twins, body = std::move(step.body)](ExecutionContext& ctx) {
        if (is_hostile(ctx.tree_key().tenant_id) || is_hostile(ctx.tree_key().lease_execution_id) ||
            is_hostile(ctx.path())) {
          world.mark(ctx, "hostile-name-ran");
        }
        if (const auto twin = twins->find(ctx.tree_key()); twin != twins->end()) {
          world.mark(ctx, "child-key-twin-ran");
          world.mark(ctx, twin_form_mark(twin->second));
        }
        body(ctx);
      }};
}

void add_workflows(sim::World& world, sim::Rng& rng, sim::Rng& shape_rng, const MixNames& n,
                   bool swarm, const std::shared_ptr<WithdrawalProbes>& probes,
                   const std::shared_ptr<const Twins>& twins,
                   sim::Rng* cleanups, sim::Rng* watchful, sim::Rng* races) {
  auto duration = [&rng] { return rng.between(200, 12'000) * kMillisecond; };
  auto short_duration = [&shape_rng] { return shape_rng.between(100, 4'000) * kMillisecond; };
  const MixShape shape = draw_shape(shape_rng);
  auto system = std::make_shared<UncheckedSystem>(world);
  auto add = [&](Workflow workflow) {
    if (watchful != nullptr) workflow = with_watchful_steps(world, std::move(workflow), *watchful);
    if (races != nullptr) workflow = with_renewal_races(world, std::move(workflow), *races);
    if (cleanups != nullptr) workflow = with_failure_cleanups(std::move(workflow), *cleanups);
    world.workflows().add(probed(probes, std::move(workflow)));
  };

  add(Workflow{"branch",
               {work_step(n.prepare, duration()),
                write_step(world, n.record, duration(), "ledger", "branch record")}});
  Workflow remote{"remote",
                  {write_step(world, n.charge, duration(), "payments", "remote charge"),
                   work_step(n.settle, duration())}};
  if (shape.busy_remote) {
    remote.items[0] =
        busy_write_step(world, n.charge, short_duration(), "payments", "ledger", system);
  }
  if (shape.nested_remote) {
    remote.items.insert(remote.items.begin() + 1,
                        runtime::GroupItem{n.sub,
                                           {{n.check, ChildPlacement::kParentInstance, "branch"},
                                            {n.leaf, ChildPlacement::kAnyInstance, "leaf"}}});
  }
  add(std::move(remote));
  add(Workflow{"leaf", {write_step(world, n.post, short_duration(), "ledger", "leaf post")}});
  Workflow fan_out{"fan-out",
                   {work_step(n.prepare, short_duration()),
                    runtime::GroupItem{n.fan_group,
                                       {{n.job, ChildPlacement::kAnyInstance, "job"},
                                        {n.nested_job, ChildPlacement::kAnyInstance, "remote"}}}}};
  if (swarm) {
    // A fan-out branch reconciles too, while its sibling branches (the audit, the other fan-out)
    // run under the root's lease: a rejection handed over there must stop them as well.
    sim::Rng rules = world.stream("downstream-rules/fan-out");
    fan_out.items.insert(
        fan_out.items.begin() + 1,
        reconcile_step(world, "reconcile",
                       std::make_shared<DownstreamSystem>(world, draw_downstream_rules(rules)),
                       "ledger", "reconcile/fan-out"));
  }
  add(std::move(fan_out));
  add(Workflow{"job", {job_step(world, probes->watch, n.post, short_duration())}});

  Workflow level{"level", {write_step(world, n.note, duration(), "ledger", "level note")}};
  runtime::GroupItem children{n.children,
                              {{n.audit, ChildPlacement::kParentInstance, "branch"},
                               {n.notify, ChildPlacement::kThisWorkflow, "level"},
                               {n.invoice, ChildPlacement::kAnyInstance, "remote"},
                               {n.refund_check, ChildPlacement::kAnyInstance, "remote"}}};
  if (shape.fan_outs >= 1) {
    children.children.push_back({n.fan_a, ChildPlacement::kParentInstance, "fan-out"});
  }
  if (shape.fan_outs >= 2) {
    children.children.push_back({n.fan_b, ChildPlacement::kParentInstance, "fan-out"});
  }
  Workflow order{"order",
                 {name_marking(world, twins, work_step(n.reserve, duration())),
                  write_step(world, n.charge, duration(), "payments", "charge"),
                  std::move(children), write_step(world, n.ship, duration(), "ledger", "ship")}};
  if (shape.busy_ship) {
    order.items[3] = busy_write_step(world, n.ship, short_duration(), "ledger", "payments", system);
  }
  if (swarm) {
    auto kept = std::make_shared<KeptFences>();
    level.items.push_back(ancestor_fence_step(world));
    order.items[1] = wrapping_write_step(world, n.charge, duration(), "payments");
    order.items.insert(order.items.begin() + 1, keep_fence_step(kept));
    order.items.insert(order.items.begin() + 3, notify_step(world));
    order.items.insert(order.items.begin() + 4, reuse_fence_step(world, kept));
    sim::Rng downstream_rules = world.stream("downstream-rules");
    order.items.insert(order.items.begin() + 1,
                       reconcile_step(world, "reconcile",
                                      std::make_shared<DownstreamSystem>(
                                          world, draw_downstream_rules(downstream_rules)),
                                      "ledger"));
  }
  add(std::move(level));
  add(std::move(order));
}

// The trees' keys: two tenants, ids drawn; some roots named after an earlier tree's AnyInstance
// child, and now and then two roots of two tenants whose naive ':' joins are equal.
std::vector<runtime::LeaseKey> draw_keys(HostileNames& names, std::int64_t count, const MixNames& n,
                                         Twins& twins) {
  const std::string tenants[] = {names.name("tenant-1", "tenants"),
                                 names.name("tenant-2", "tenants")};
  std::vector<runtime::LeaseKey> keys;
  std::set<runtime::LeaseKey> taken;
  for (std::int64_t i = 1; i <= count; ++i) {
    const std::string& tenant = tenants[i % 2];
    runtime::LeaseKey key{tenant, names.name(fmt::format("order-{}", i), tenant)};
    const bool twin = names.rng().chance(0.3);
    const std::string child = names.rng().chance(0.5) ? n.invoice : n.refund_check;
    const std::size_t form = names.rng().below(5);
    if (twin && i > 2) {
      // Tree i - 2 has the same tenant.
      const std::string& parent = keys[static_cast<std::size_t>(i - 3)].lease_execution_id;
      runtime::LeaseKey candidate{tenant,
                                  child_key_twins(parent, join_path(n.children, child))[form]};
      if (!taken.contains(candidate)) {
        key = candidate;
        twins.emplace(key, form);
      }
    }
    taken.insert(key);
    keys.push_back(key);
  }
  if (names.rng().chance(0.2)) {
    const auto [first, second] =
        naive_join_twins(tenants[names.rng().below(2)], names.name("pair", "pairs"));
    for (const runtime::LeaseKey& key : {first, second}) {
      if (taken.insert(key).second) keys.push_back(key);
    }
  }
  return keys;
}

}  // namespace

void add_mix_workload(sim::World& world, const std::vector<std::string>& instances, bool swarm) {
  world.add_sink("payments");
  world.add_sink("ledger");
  for (const std::string& name : instances) world.add_instance(name);
  sim::Rng workload = world.stream("workload");
  sim::Rng shape = world.stream("shape");
  // Most seeds keep most names plain; a seed in five names nothing hostile at all.
  sim::Rng name_stream = world.stream("names");
  const double share = name_stream.chance(0.2) ? 0.0 : 0.35;
  HostileNames names(name_stream, share);
  const MixNames n = draw_names(names);
  auto watch = std::make_shared<TreeWatch>(world);
  auto probes = std::make_shared<WithdrawalProbes>(
      WithdrawalProbes{&world, watch, instances, {}, world.stream("withdrawal-probes"), 30});
  auto twins = std::make_shared<Twins>();
  // A seed in two cleans up after a failed step before letting the failure go
  // (scenarios/failure_cleanup.h): news that lands after an abort then meets the decision. Its
  // own stream, so every other draw stays.
  sim::Rng cleanup_stream = world.stream("failure-cleanup");
  const bool cleanups = cleanup_stream.chance(0.5);
  // A seed in two has steps that watch their abort signal (scenarios/watchful_step.h), so that
  // the oracles see whether a lost lease or a seen cancel aborted them. Its own stream.
  sim::Rng watchful_stream = world.stream("watchful-steps");
  const bool watchful = watchful_stream.chance(0.5);
  // A seed in two has steps that begin as their lease's renewal leaves (scenarios/renewal_race.h).
  // Its own stream.
  sim::Rng race_stream = world.stream("renewal-races");
  const bool races = race_stream.chance(0.5);
  add_workflows(world, workload, shape, n, swarm, probes, twins,
                cleanups ? &cleanup_stream : nullptr, watchful ? &watchful_stream : nullptr,
                races ? &race_stream : nullptr);
  probes->paths = step_paths(world.workflows(), "order");
  // Trees arrive all through the safety phase, so that faults always meet work.
  const auto count = workload.between(4, 10);
  const std::int64_t last_arrival = last_arrival_ns(world);
  const std::vector<runtime::LeaseKey> keys = draw_keys(names, count, n, *twins);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // The extra pair of twins arrives at times of its own stream: the workload's draws stay.
    sim::Rng& arrivals = i < static_cast<std::size_t>(count) ? workload : names.rng();
    world.submit(keys[i], "order", arrivals.between(0, last_arrival));
  }
  // Wild trees beside the order trees: shapes drawn from the seed (scenarios/tree_shapes.h).
  std::set<runtime::LeaseKey> taken(keys.begin(), keys.end());
  const TreeParts parts{&world, std::make_shared<UncheckedSystem>(world), probes, instances,
                        {"payments", "ledger"}};
  // The swarm's draw their own shapes: a sweep meets twice as many.
  add_wild_trees(parts, names, {keys[0].tenant_id, keys[1].tenant_id}, taken,
                 swarm ? "swarm-trees" : "trees");
  sim::Rng withdrawals = world.stream("withdrawals");
  add_timed_withdrawals(world, watch, withdrawals, instances, keys, probes->paths);
  // Cancels (#360) of a seed in two, at any moment of the safety phase (before a tree arrives,
  // during its steps, its confirms, its remote waits, after it completed), from a stream of their
  // own so that every other draw stays.
  sim::Rng cancels = world.stream("cancels");
  if (cancels.chance(0.5)) {
    const auto cancel_count = cancels.between(1, 2);
    for (std::int64_t i = 0; i < cancel_count; ++i) {
      const runtime::LeaseKey& key = keys[cancels.below(keys.size())];
      world.cancel_at(cancels.between(0, world.options().safety_phase_ns - 10 * kSecond), key);
    }
  }
}

const std::vector<std::string>& mix_window_marks() {
  static const std::vector<std::string> kMarks = [] {
    std::vector<std::string> marks{
        "hostile-name-ran",       "child-key-twin-ran",   "second-effect-written",
        "unchecked-after-write",  "other-sink-written",   "remote-waits-overlapped",
        "withdrawal-during-step", "withdrawal-after-end", "withdrawal-refused-while-live",
        "step-raced-renewal",     "withdrawal-gave-up-after-lingering"};
    for (std::size_t form = 0; form < kChildKeyTwinForms.size(); ++form) {
      marks.push_back(twin_form_mark(form));
    }
    // What the names that ran held, read from the history by a mark rule of its own
    // (properties/mark_rules.cpp, HostileNameTraits), not from this workload's draw.
    for (const char* trait : {"colon", "percent", "slash", "control", "nul", "non-ascii",
                              "four-byte", "long"}) {
      marks.push_back(fmt::format("hostile-name-{}-ran", trait));
    }
    return marks;
  }();
  // Not required: withdrawal-before-start, -between-steps and -during-remote-wait. The runtime
  // refuses a withdrawal while its tree is live and no step of it runs here (issue 9 item 2), so
  // its body (where the moment is marked) never runs there: those moments are counted together
  // as withdrawal-refused-while-live (from the runtime's refusal in the history), and the
  // invariants judge the refusal.
  return kMarks;
}

}  // namespace fencesim::scenarios
