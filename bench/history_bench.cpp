// The cost of recording a run's history: sim::History::record for the runtime events a real run
// emits, built the way World::on_runtime_event builds them (a copy of the observer's RuntimeEvent,
// stamped with times and a node), with events kept (what run_scenario does: the checkers read
// them) and hashed only (the sweep mode of WorldOptions::keep_events = false).
//
// Each iteration records one run's worth of events into a fresh History, so the vector growth and
// the XXH3 state of a real run are counted too, and memory stays bounded whatever the iteration
// count.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "runtime/observer.h"
#include "sim/history.h"

namespace {

using fencesim::runtime::EventKind;
using fencesim::runtime::RuntimeEvent;
using fencesim::sim::History;
using fencesim::sim::HistoryEvent;

// A few events as the runtime and the stores emit them: holder ids, keys, a scope key of more
// than 15 characters (so not inline in std::string), step paths and short details.
std::vector<RuntimeEvent> realistic_events() {
  const fencesim::runtime::LeaseKey key{"tenant-1", "order-17"};
  const std::string scope = "tenant-1:order-17";
  return {
      {EventKind::kTakeSent, "instance-1", key, scope, 0, "", "", 0},
      {EventKind::kStoreLeaseGranted, "lease-store", key, scope, 3, "", "", 12'000'000'000},
      {EventKind::kLeaseTaken, "instance-1", key, scope, 3, "", "", 9'500'000'000},
      {EventKind::kStepStarted, "instance-1", key, scope, 3, "order/charge", "", 0},
      {EventKind::kWriteSent, "instance-1", key, scope, 3, "order/charge", "order-17/charge", 0},
      {EventKind::kSinkApplied, "payments", key, scope, 3, "", "order-17/charge", 0},
      {EventKind::kWriteAccepted, "instance-1", key, scope, 3, "order/charge", "applied", 0},
      {EventKind::kStepEnded, "instance-1", key, scope, 3, "order/charge", "ok", 0},
      {EventKind::kRenewSent, "instance-2#2", key, scope, 3, "", "", 0},
      {EventKind::kRenewRefused, "instance-2#2", key, scope, 3, "", "stale", 0},
      {EventKind::kLeaseLost, "instance-2#2", key, scope, 3, "", "local-expiry", 0},
      {EventKind::kCheckpointCommitted, "instance-1", key, scope, 3, "order/charge", "", 0},
  };
}

void BM_HistoryRecord(benchmark::State& state) {
  const bool keep_events = state.range(0) != 0;
  const auto events_per_run = static_cast<std::int64_t>(state.range(1));
  const std::vector<RuntimeEvent> events = realistic_events();
  std::int64_t now_ns = 0;
  for (auto _ : state) {
    History history;
    history.set_keep_events(keep_events);
    for (std::int64_t i = 0; i < events_per_run; ++i) {
      now_ns += 1'000'000;
      HistoryEvent entry;
      entry.time_ns = now_ns;
      entry.node = static_cast<fencesim::sim::NodeId>(1 + i % 3);
      entry.local_monotonic_ns = now_ns - 250'000;
      entry.runtime = events[static_cast<std::size_t>(i) % events.size()];
      history.record(std::move(entry));
    }
    benchmark::DoNotOptimize(history.hash());
  }
  state.SetItemsProcessed(state.iterations() * events_per_run);
}
// Arguments: keep_events (1 or 0), events per run.
BENCHMARK(BM_HistoryRecord)
    ->ArgNames({"keep", "events"})
    ->Args({1, 1000})
    ->Args({0, 1000})
    ->Args({1, 20000})
    ->Args({0, 20000});

}  // namespace
