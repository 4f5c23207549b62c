#include "properties/history_support.h"

#include <fmt/format.h>

#include <tuple>
#include <unordered_map>

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// The running step of a holder's token at a path, and of a lease key's token at a path as the
// store sees it (the store's events carry no holder; a token names one holder).
using RunAtHolder = std::pair<HeldToken, sim::Name>;
using RunAtStore = std::tuple<sim::NameKey, runtime::Token, sim::Name>;

struct Reader {
  StepHistory out;
  // Only looked up (KeyHash).
  std::unordered_map<RunAtHolder, std::size_t, KeyHash> open_at_holder;
  std::unordered_map<RunAtStore, std::size_t, KeyHash> open_at_store;

  StepRun* open(const sim::RuntimeRecord& r) {
    auto it = open_at_holder.find({held_token(r), r.step});
    return it == open_at_holder.end() ? nullptr : &out.runs[it->second];
  }

  void start(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    out.runs.push_back(StepRun{held_token(r), r.step, e.index, {}, {}, {}, {}, {}});
    open_at_holder[{held_token(r), r.step}] = out.runs.size() - 1;
    open_at_store[{r.key, r.token, r.step}] = out.runs.size() - 1;
  }

  void end(const sim::HistoryEvent& e) {
    StepRun* run = open(e.runtime);
    if (run == nullptr) return;
    run->ended = e.index;
    run->outcome = e.runtime.detail;
    open_at_holder.erase({run->held, run->path});
    open_at_store.erase({run->held.key, run->held.token, run->path});
  }

  void store_commit(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    auto it = open_at_store.find({r.key, r.token, r.step});
    if (it == open_at_store.end()) return;
    StepRun& run = out.runs[it->second];
    if (!run.store_committed) run.store_committed = e.index;
  }

  void read(const sim::HistoryEvent& e) {
    const sim::RuntimeRecord& r = e.runtime;
    switch (r.kind) {
      case EventKind::kStepStarted:
        start(e);
        break;
      case EventKind::kStepEnded:
        end(e);
        break;
      case EventKind::kCheckpointSent:
        if (StepRun* run = open(r); run && !run->checkpoint_sent) run->checkpoint_sent = e.index;
        break;
      case EventKind::kWriteRefused:
      case EventKind::kCheckpointRefused:
        if (StepRun* run = open(r); run && is_fenced_refusal(r) && !run->own_refusal) {
          run->own_refusal = e.index;
        }
        break;
      case EventKind::kStoreCheckpointCommitted:
        store_commit(e);
        break;
      case EventKind::kLeaseLost:
      case EventKind::kLeaseReleased:
        out.first_loss.try_emplace(held_token(r), TokenLoss{e.index, r.kind, r.detail});
        break;
      case EventKind::kStoreLeaseGranted:
        out.grants[r.key].emplace_back(e.index, r.token);
        break;
      default:
        break;
    }
  }
};

}  // namespace

StepHistory read_steps(const std::vector<sim::HistoryEvent>& events) {
  Reader reader;
  for (const sim::HistoryEvent& e : events) {
    if (runtime_event(e) != nullptr) reader.read(e);
  }
  return std::move(reader.out);
}

std::optional<std::uint64_t> first_higher_grant(const StepHistory& steps, const sim::NameKey& key,
                                                runtime::Token token) {
  auto it = steps.grants.find(key);
  if (it == steps.grants.end()) return std::nullopt;
  for (const auto& [index, granted] : it->second) {
    if (granted > token) return index;
  }
  return std::nullopt;
}

const TokenLoss* loss_before(const StepHistory& steps, const HeldToken& held,
                             std::uint64_t before) {
  auto it = steps.first_loss.find(held);
  if (it == steps.first_loss.end() || it->second.index >= before) return nullptr;
  return &it->second;
}

std::string describe_run(const StepRun& run) {
  return fmt::format("step '{}' of {} under token {} at {}", run.path,
                     runtime::to_string(run.held.key.lease_key()), run.held.token,
                     run.held.holder);
}

}  // namespace fencesim::properties
