#pragma once
// "Sometimes" marks: how often a run reached the dangerous moments its scenario is about. A sweep
// that never reaches them proves nothing, however green.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world.h"

namespace fencesim::properties {

// stale-write-refused: a sink refused a stale token.
// takeover-mid-step: a key was taken with a new token while a step under the old one was running.
// renewal-raced-expiry: a renewal was refused as expired, or a holder's lease expired locally while
//   its renewal was in flight.
// checkpoint-refused: the checkpoint store refused a stale token.
// lease-yielded: a remote-children wait gave the root's lease back.
// yield-deferred: a remote-children wait began while a step of its tree was running.
// rerun-deduplicated: a sink deduplicated a write by its idempotency key (a step ran twice).
// independent-epochs: one sink accepted writes of two scope keys of a tenant at different epochs.
// late-renewal-refused: the store refused a renewal (stale, expired, released).
// stale-renewal-refused: the store refused a stale holder's renewal while the next holder held
//   the key (granted, not given back).
// renewal-reply-late: a renewal's reply reached its holder more than the drift margin after the
//   store renewed (confirmedUntil must count from the send).
// checkpoint-reply-after-local-expiry: a step's committed checkpoint's reply was read by its holder
//   at or after the local expiry of its token (the step must end lost).
// fenced-after-local-expiry: a pass was classified fenced although its lease had expired locally
//   first (the abort signal's reason was a plain lease-lost).
// expiry-during-write: a holder's lease expired locally while its fenced write was in flight.
// instance-restarted, store-restarted: a crashed node came back.
// Marks a workload records itself (World::mark) are counted by their names.
// The rules are properties/mark_rules.h: the one copy every reader of marks uses.
std::map<std::string, std::uint64_t> count_marks(const sim::World& world);

// Where a mark was reached: the history index of the event that reached it.
struct PlacedMark {
  std::string name;
  std::uint64_t event = 0;
  friend bool operator==(const PlacedMark&, const PlacedMark&) = default;
};

// Every mark of the run at the event that reached it, in history order (the timeline draws each
// where it happened). count_marks counts the same list by name.
std::vector<PlacedMark> place_marks(const sim::World& world);

// The marks the history rules reach (the list above), sorted; a workload's own marks are named by
// its scenario (scenarios::Scenario::marks).
std::vector<std::string> history_mark_names();

// Reads a history event by event, as it grows (a hook on the world's history) or after the run,
// and says which marks each event reaches. Watching only some marks runs only their rules.
class MarkDetector {
 public:
  struct Rules;
  // Every rule.
  explicit MarkDetector(const sim::World& world);
  // Only the rules that reach a mark of `watched` (a name no history rule reaches is a workload's
  // own mark); only those marks are reported.
  MarkDetector(const sim::World& world, std::set<std::string> watched);
  ~MarkDetector();
  MarkDetector(const MarkDetector&) = delete;
  MarkDetector& operator=(const MarkDetector&) = delete;

  // Appends the marks `e` reaches to `out`, each placed at e.index. Events must come in order.
  void observe(const sim::HistoryEvent& e, std::vector<PlacedMark>& out);

 private:
  std::unique_ptr<Rules> rules_;
  std::optional<std::set<std::string>> watched_;
};

// Figures a workload measured (kMeasure events, "name value"), summed per name over the run: for
// example how long a stale holder's unchecked call overlapped the next holder's.
std::map<std::string, std::int64_t> sum_figures(const sim::World& world);

}  // namespace fencesim::properties
