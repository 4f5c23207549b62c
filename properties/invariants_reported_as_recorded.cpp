#include "properties/invariants_reported_as_recorded.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "properties/history_support.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

using runtime::EventKind;

constexpr std::string_view kTree = "<tree>";
constexpr std::string_view kName = "reported-as-recorded";

// One commit as the store knows it: key, step path ("<tree>" for the completion), token.
using CommitKey = std::tuple<sim::NameKey, std::string, runtime::Token>;

struct Verdicts {
  bool committed = false;
  bool refused = false;  // refused, or (the tree's completion) cancelled
};

// A write as the sink knows it: the sending node, scope key, token and idempotency key.
using WriteKey = std::tuple<sim::NodeId, sim::Name, runtime::Token, sim::Name>;
// The writes a holder's step sent: node, holder, scope key, token, step path.
using SenderKey = std::tuple<sim::NodeId, sim::Name, sim::Name, runtime::Token, sim::Name>;

}  // namespace

void check_reported_as_recorded(const Events& events, std::vector<Violation>& out) {
  // Only what the store recorded before the report can back it: the history is read in order, and
  // a record at the report's instant counts (its reply cannot have come sooner).
  std::unordered_map<CommitKey, Verdicts, KeyHash> recorded;  // only looked up (KeyHash)
  // Trees whose completion the store recorded (a committed completion, or a load that answered
  // "completed": the store's own word, which a later pass acts on even where a real-mode worker
  // was killed between its commit and the commit's record), and placements the queue finished.
  std::unordered_set<sim::NameKey, KeyHash> completion_recorded;
  std::unordered_set<sim::NameKey, KeyHash> finished;
  // The verdicts each sink recorded per write (every one, for a request it handled twice), and the
  // idempotency keys each step run's holder sent (kWriteSent: detail = idempotency key).
  std::map<WriteKey, std::set<sim::Name>> write_verdicts;
  std::map<SenderKey, std::set<sim::Name>> sent;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store && !e.store->failed) {
      const sim::StoreCall& call = *e.store;
      if (call.op == sim::StoreOp::kFinish) {
        finished.insert(call.key);
        continue;
      }
      if (call.op == sim::StoreOp::kWrite) {
        write_verdicts[{call.from, call.scope_key, call.token, call.argument}].insert(call.outcome);
        continue;
      }
      if (call.op == sim::StoreOp::kLoad) {
        if (call.tree_completed) completion_recorded.insert(call.key);
        continue;
      }
      if (call.op != sim::StoreOp::kCommitStep && call.op != sim::StoreOp::kCommitTree) continue;
      const std::string path =
          call.op == sim::StoreOp::kCommitTree ? std::string(kTree) : call.argument.str();
      Verdicts& v = recorded[{call.key, path, call.token}];
      if (call.outcome == "committed"sv) {
        v.committed = true;
        if (call.op == sim::StoreOp::kCommitTree) completion_recorded.insert(call.key);
      } else if (call.outcome == "refused"sv || call.outcome == "cancelled"sv) {
        v.refused = true;
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kRuntime) continue;
    const sim::RuntimeRecord& r = e.runtime;
    const sim::NameKey& key = r.key;
    if (r.kind == EventKind::kWriteSent) {
      sent[{e.node, r.holder, r.scope_key, r.token, r.step}].insert(r.detail);
      continue;
    }
    if (r.kind == EventKind::kWriteAccepted) {
      // The reply that reached the holder is one the sink gave, before the report, to a write
      // this holder's step sent from this node under this scope key and token (kWriteAccepted
      // carries no idempotency key: any of the step's writes may be it). A sink that handled a
      // request twice (a duplicated message) gave two verdicts, and either may be the reply.
      static const std::set<sim::Name> kNoVerdicts;
      const auto verdicts = [&](const sim::Name& idempotency_key) -> const std::set<sim::Name>& {
        auto v = write_verdicts.find({e.node, r.scope_key, r.token, idempotency_key});
        return v == write_verdicts.end() ? kNoVerdicts : v->second;
      };
      const auto s = sent.find({e.node, r.holder, r.scope_key, r.token, r.step});
      const std::set<sim::Name> no_keys;
      const std::set<sim::Name>& keys = s == sent.end() ? no_keys : s->second;
      if (std::any_of(keys.begin(), keys.end(), [&](const sim::Name& idempotency_key) {
            return verdicts(idempotency_key).contains(r.detail);
          })) {
        continue;
      }
      // Not backed: what the sink did say, for the message.
      std::set<sim::Name> given;
      for (const sim::Name& idempotency_key : keys) {
        const std::set<sim::Name>& said = verdicts(idempotency_key);
        given.insert(said.begin(), said.end());
      }
      out.push_back(violation(
          kName,
          fmt::format("{} reported its write of step '{}' (scope key {}, token {}) accepted as "
                      "'{}', but the sink {}",
                      r.holder.str(), r.step.str(), r.scope_key.str(), r.token, r.detail.str(),
                      given.empty() ? std::string("recorded no verdict of such a write before the "
                                                  "report")
                                    : fmt::format("recorded only '{}' for the step's writes",
                                                  fmt::join(given, "', '"))),
          {e.index}));
      continue;
    }
    if (r.kind == EventKind::kCheckpointCommitted || r.kind == EventKind::kCheckpointRefused) {
      const bool committed = r.kind == EventKind::kCheckpointCommitted;
      const std::string path = r.step;
      const auto it = recorded.find({key, path, r.token});
      const bool backed =
          it != recorded.end() && (committed ? it->second.committed : it->second.refused);
      if (backed) continue;
      out.push_back(violation(
          kName,
          fmt::format(
              "{} reported the checkpoint of {} of {} under token {} {}, but the "
              "checkpoint store {}",
              r.holder.str(), path == kTree ? "the tree's completion" : "step '" + path + "'",
              runtime::to_string(key), r.token, committed ? "committed" : "refused",
              it == recorded.end() ? std::string("recorded no such commit before the report")
                                   : fmt::format("recorded it {} under that token",
                                                 committed ? "only refused" : "only committed")),
          {e.index}));
    } else if (r.kind == EventKind::kTreeCompleted) {
      const bool completion = completion_recorded.contains(key);
      const bool placement_finished = finished.contains(key);
      if (completion && placement_finished) continue;
      out.push_back(violation(
          kName,
          fmt::format("{} reported {} completed (token {}), but before the report {}",
                      r.holder.str(), runtime::to_string(key), r.token,
                      !completion ? "the checkpoint store had recorded no completion of it"
                                  : "the placement queue had not finished its placement"),
          {e.index}));
    }
  }
}

void ReportedAsRecorded::check(const sim::World& world, std::vector<Violation>& out) const {
  check_reported_as_recorded(world.history().events(), out);
}

}  // namespace fencesim::properties
