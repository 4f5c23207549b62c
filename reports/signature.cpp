#include "reports/signature.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <vector>

#include "reports/replay_file.h"
#include "sim/node_kind.h"

namespace fencesim::reports {

namespace {

using runtime::EventKind;

// Kinds whose detail is a code from a small fixed set (why a lease was lost or a renewal refused,
// a step's outcome, how a write was accepted, the classified error, which withdrawal): the same
// for the same bug. Other details carry ids (idempotency keys, scope keys) or free text.
bool detail_is_code(EventKind kind) {
  switch (kind) {
    case EventKind::kRenewRefused:
    case EventKind::kLeaseLost:
    case EventKind::kStepEnded:
    case EventKind::kErrorClassified:
    case EventKind::kWithdrawal:
    case EventKind::kStoreRenewRefused:
      return true;
    default:
      return false;
  }
}

// A code is short and made of lower-case words, dots and dashes ("local-expiry",
// "execution.lease-lost.fenced"); anything else is not trusted to be one.
bool looks_like_code(std::string_view text) {
  return !text.empty() && text.size() <= 48 &&
         text.find_first_not_of("abcdefghijklmnopqrstuvwxyz.-") == std::string_view::npos;
}

std::string term(const sim::World& world, const sim::HistoryEvent& e) {
  const std::string_view at = sim::kind_word(world.node_kind(e.node));
  if (e.world != sim::WorldEventKind::kRuntime) {
    // A mark's detail is its name, fixed by the code that records it; other world events'
    // details describe faults and messages with their nodes and durations.
    if (e.world == sim::WorldEventKind::kMark && looks_like_code(e.detail)) {
      return fmt::format("{}({}, {})", sim::to_string(e.world), at, e.detail);
    }
    return fmt::format("{}({})", sim::to_string(e.world), at);
  }
  const sim::RuntimeRecord& r = e.runtime;
  // A sink that applied a write and one that deduplicated it both accepted its token: which of the
  // two depends on whether the step ran before, not on the bug.
  const bool accepted = r.kind == EventKind::kSinkApplied || r.kind == EventKind::kSinkDeduplicated;
  std::string text =
      fmt::format("{}({}", accepted ? "sink-accepted" : runtime::to_string(r.kind), at);
  if (detail_is_code(r.kind) && looks_like_code(r.detail)) text += ", " + r.detail;
  return text + ")";
}

// Digit runs become '#', except a source line after "file.ext:" (part of the site); a path keeps
// only its file name. Quotes and words stay: they name fibers and checks, not runs.
std::string normalize(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      std::size_t end = i;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
      const bool line = !out.empty() && out.back() == ':' && out.size() >= 3 &&
                        (out.ends_with(".cpp:") || out.ends_with(".h:") || out.ends_with(".cc:"));
      out += line ? std::string(text.substr(i, end - i)) : std::string("#");
      i = end;
      continue;
    }
    if (c == '/') {
      // "/work/x/runtime/lease.cpp" -> "lease.cpp": the folder depends on where it was built.
      const std::size_t word = out.find_last_of(" ('\"");
      out.erase(word == std::string::npos ? 0 : word + 1);
      ++i;
      continue;
    }
    out += c;
    ++i;
  }
  constexpr std::size_t kLongest = 160;
  if (out.size() > kLongest) out = out.substr(0, kLongest) + "...";
  return out;
}

std::string_view after(std::string_view text, std::string_view prefix) {
  return text.substr(std::min(text.size(), prefix.size()));
}

}  // namespace

std::string violation_signature(const sim::World& world, const properties::Violation& violation) {
  const std::vector<sim::HistoryEvent>& history = world.history().events();
  std::vector<std::uint64_t> indices;
  for (const std::uint64_t index : violation.events) {
    if (index < history.size()) indices.push_back(index);  // a checker's bad index is left out
  }
  // In history order, not in the order a checker listed them: the order they happened in.
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::vector<std::string> terms;
  for (const std::uint64_t index : indices) {
    // A phase marks the run's structure, not what a bug did: a checker that points at one
    // (per-key-epochs names the run's first event as "the grant before" a key's first grant)
    // points at the start of the run, which every seed has.
    if (history[index].world == sim::WorldEventKind::kPhase) continue;
    std::string next = term(world, history[index]);
    if (std::find(terms.begin(), terms.end(), next) == terms.end()) terms.push_back(next);
  }
  std::string signature = violation.invariant + ":";
  for (std::size_t i = 0; i < terms.size(); ++i) {
    signature += (i == 0 ? " " : " -> ") + terms[i];
  }
  if (terms.empty()) signature += " (no events)";
  return signature;
}

std::string run_signature(const sim::World& world, const properties::RunReport& report) {
  switch (report.status) {
    case properties::RunStatus::kPass:
      return {};
    case properties::RunStatus::kHarnessError:
      return harness_signature(report.detail);
    case properties::RunStatus::kViolation:
      if (!report.violations.empty()) {
        return violation_signature(world, report.violations.front());
      }
      return "violation: (none recorded)";
    case properties::RunStatus::kLiveness:
      return liveness_signature(report.detail, report.stuck);
  }
  return {};
}

std::string harness_signature(std::string_view detail) {
  // The run's own detail starts "seed N: "; the seed is the one thing sure to differ.
  if (detail.starts_with("seed ")) {
    const std::size_t colon = detail.find(": ");
    if (colon != std::string_view::npos) detail = detail.substr(colon + 2);
  }
  constexpr std::string_view kEscaped = "an exception escaped the harness: ";
  constexpr std::string_view kSignal = "worker killed by signal ";
  constexpr std::string_view kTimeout = "worker exceeded --run-timeout";
  constexpr std::string_view kExited = "worker exited with code ";
  if (detail.starts_with("fiber '")) {
    // "fiber 'NAME' (node K): what": the site is the fiber and what it threw, not its node's id.
    const std::size_t node = detail.find("' (node ");
    const std::size_t colon = detail.find("): ");
    if (node != std::string_view::npos && colon != std::string_view::npos && colon > node) {
      return fmt::format("harness: exception in a simulated fiber: {}': {}",
                         normalize(detail.substr(0, node)), normalize(detail.substr(colon + 3)));
    }
    return "harness: exception in a simulated fiber: " + normalize(detail);
  }
  if (detail.starts_with(kEscaped)) {
    return "harness: exception out of the harness: " + normalize(after(detail, kEscaped));
  }
  if (detail.starts_with(kSignal)) {
    // "11 (Segmentation fault) while running this seed": the signal is the kind and the site.
    const std::string_view rest = after(detail, kSignal);
    return "harness: worker killed by signal " + std::string(rest.substr(0, rest.find(')') + 1));
  }
  if (detail.starts_with(kTimeout)) {
    // A hang is told from another by where its run stopped moving: the kinds of its last events
    // (the worker's own words, cli/sweep_last_words.h), the last three.
    constexpr std::string_view kLastEvents = "last events (oldest first): ";
    const std::size_t at = detail.find(kLastEvents);
    if (at == std::string_view::npos) return "harness: worker exceeded --run-timeout";
    std::string_view kinds = detail.substr(at + kLastEvents.size());
    kinds = kinds.substr(0, kinds.find_first_of(";\n"));
    std::vector<std::string_view> each;
    for (std::size_t from = 0; from <= kinds.size();) {
      const std::size_t comma = std::min(kinds.find(", ", from), kinds.size());
      each.push_back(kinds.substr(from, comma - from));
      from = comma + 2;
    }
    constexpr std::size_t kLast = 3;
    kinds = kinds.substr(each.size() <= kLast
                             ? 0
                             : static_cast<std::size_t>(each[each.size() - kLast].data() -
                                                        kinds.data()));
    return "harness: worker exceeded --run-timeout after " + normalize(kinds);
  }
  if (detail.starts_with(kExited)) {
    const std::string_view rest = after(detail, kExited);
    return "harness: worker exited with code " + std::string(rest.substr(0, rest.find(' ')));
  }
  return "harness: " + normalize(detail.substr(0, detail.find(" while ")));
}

std::string liveness_signature(std::string_view detail) {
  // "deadlock: <the blocked fibers>" is a deadlock whichever fibers; "trees not completed when
  // the run ended (time-limit)" says how the run ended.
  const std::size_t colon = detail.find(':');
  return "liveness: " + normalize(detail.substr(0, colon));
}

std::string liveness_signature(std::string_view detail,
                               const std::vector<std::string>& stuck) {
  if (stuck.empty()) return liveness_signature(detail);
  // How the run ended: "deadlock", or the limit it ran into ("time-limit", "step-limit").
  std::string how = "stopped short";
  if (detail.starts_with("deadlock")) {
    how = "deadlock";
  } else if (const std::size_t open = detail.find('('); open != std::string_view::npos) {
    const std::size_t close = detail.find(')', open);
    if (close != std::string_view::npos) how = normalize(detail.substr(open + 1, close - open - 1));
  }
  // Each term normalized alone, so that a long list is never cut inside a term.
  std::string signature = "liveness: " + how + ":";
  for (std::size_t i = 0; i < stuck.size(); ++i) {
    signature += (i == 0 ? " " : "; ") + normalize(stuck[i]);
  }
  return signature;
}

std::string record_signature(const RunRecord& record) {
  if (record.passed()) {
    if (!record.nondeterministic()) return {};
    if (record.rerun_history_hash->empty()) return "replay: the determinism re-run did not finish";
    return *record.rerun_history_hash != record.history_hash
               ? "replay: another history hash on a re-run in another worker"
               : "replay: another verdict on the same history on a re-run in another worker";
  }
  if (!record.signature.empty()) return record.signature;
  if (record.first_violation) return record.first_violation->invariant + ": (no signature)";
  if (record.status == "harness-error") return harness_signature(record.detail);
  if (record.status == "liveness") return liveness_signature(record.detail);
  return record.status;
}

std::string signature_id(std::string_view signature) {
  const std::uint64_t hash = XXH3_64bits(signature.data(), signature.size());
  return hash_hex(hash).substr(0, 8);
}

}  // namespace fencesim::reports
