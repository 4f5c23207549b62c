#pragma once
// The history of a run: every runtime event (from the runtime's observer) and every world event
// (faults, messages, node states), in the order they happened, stamped with true virtual time, the
// node, and that node's monotonic clock reading. Each event is folded into a rolling 64-bit hash
// (XXH3) over a canonical encoding, so the same seed gives the same hash and a mismatch can be
// located at its first diverging event. How names enter the encoding is the hash's scheme
// (HistoryHashScheme): replay files name the scheme their hash was made with.
#include <xxhash.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/observer.h"
#include "sim/name.h"
#include "sim/node_id.h"
#include "sim/store_record.h"

namespace fencesim::sim {

// How a history's canonical encoding writes a name (a holder, a tenant, a tree, a scope key, a
// step, a detail: every sim::Name of an event). Both encode every other field alike.
enum class HistoryHashScheme : std::uint8_t {
  // The name's length and bytes: every hash up to replay-file schema 3. Kept so that a file
  // written then replays to the hash it recorded.
  kNameBytes = 1,
  // The name's XXH3, computed once when it was interned: a tenant's hostile name (up to 700
  // bytes) is hashed once per run, not once per event that names it. Two different names with
  // one XXH3 would hash alike: 1 in 2^64 for a pair.
  kNameHashes = 2,
};
inline constexpr HistoryHashScheme kCurrentHistoryHashScheme = HistoryHashScheme::kNameHashes;

enum class WorldEventKind : std::uint8_t {
  kRuntime,       // a runtime event: see HistoryEvent::runtime
  kFaultApplied,  // detail = the fault, in words
  kFaultEnded,
  kNodePaused,
  kNodeResumed,
  kNodeCrashed,
  kNodeRestarted,  // detail = the new holder id
  kMessageLost,    // detail = what, why
  kPhase,          // detail = "safety" / "quiet"
  kMark,           // detail = a mark a workload reached (a dangerous moment, an outcome)
  kMeasure,        // detail = "name value": a figure a workload measured
  // A workload's own record of an effect it means to have, made before its write leaves the step,
  // so that oracles judge effects by what the workload intended, never by the runtime's
  // idempotency key: runtime.key = the tree, runtime.step = the step path, runtime.holder = the
  // sink, runtime.detail = the effect's name, runtime.token = the fence's token, runtime.value = 1
  // for an effect meant at most once (a withdrawal's: nobody re-runs it), else 0; detail = payload.
  kIntent,
  // A request a store or sink handled, with its reply, recorded at its node by the simulator:
  // HistoryEvent::store holds it (sim/store_record.h).
  kStoreCall,
  // A workload's own record of what a step body saw when a call returned (or threw):
  // runtime.holder = what ("write" or "confirm"), runtime.key = the fence's lease key,
  // runtime.token = the fence's token, runtime.step = the step path, runtime.scope_key = the sink
  // (write), runtime.detail = the effect (write), runtime.value = the true time the call began;
  // detail = what it returned ("applied", "deduplicated", "confirmed") or "error: <what>".
  kObserved,
  // A client's cancel request (#360, World::cancel_at), at the client (the world node):
  // runtime.key = the tree, runtime.detail = "sent", "no-reply" (lost, late or the store down: the
  // client sends it again) or the store's answer ("recorded", "already-recorded",
  // "tree-completed"); detail = the same in words. The recording itself is the store's kStoreCall
  // (op cancel).
  kCancelRequest,
  // A fault aimed at a deadline (sim::Aim) whose event came: the deadline the world worked out,
  // when the fault fires and until when, or why it does not fire (no such deadline); in words, at
  // the fault's node. World::fault_aims() keeps the figures for the timeline.
  kFaultAimed,
};
constexpr WorldEventKind kLastWorldEventKind = WorldEventKind::kFaultAimed;

std::string_view to_string(WorldEventKind kind);

// A runtime event as the history keeps it: runtime::RuntimeEvent's fields, with names (sim/name.h)
// for its strings, so that recording it copies no bytes and the events of one tree share its key.
// Converts from a runtime::RuntimeEvent (its names then are not interned: a world interns them,
// see World::on_runtime_event) and back to one (a copy), so that code written for the runtime's
// type still compiles.
struct RuntimeRecord {
  runtime::EventKind kind{};
  Name holder;  // the instance (holder id) or the store or sink name
  NameKey key;
  Name scope_key;
  runtime::Token token = runtime::kTokenNone;
  Name step;  // step path within the tree
  Name detail;
  std::int64_t value = 0;

  RuntimeRecord() = default;
  RuntimeRecord(const runtime::RuntimeEvent& event);  // NOLINT(google-explicit-constructor)
  RuntimeRecord(runtime::RuntimeEvent&& event);       // NOLINT(google-explicit-constructor)
  RuntimeRecord(const runtime::RuntimeEvent& event, NameTable& names);
  operator runtime::RuntimeEvent() const;  // NOLINT(google-explicit-constructor)
};

struct HistoryEvent {
  std::uint64_t index = 0;
  std::int64_t time_ns = 0;  // true virtual time
  NodeId node = kWorldNode;
  std::int64_t local_monotonic_ns = 0;  // the node's monotonic clock when it happened
  WorldEventKind world = WorldEventKind::kRuntime;
  RuntimeRecord runtime{};                 // set when world == kRuntime
  Name detail;                             // world events' description
  std::shared_ptr<const StoreCall> store;  // set when world == kStoreCall
};

// One line describing an event, for reports and divergence messages.
std::string describe(const HistoryEvent& event, const std::vector<std::string>& node_names);

// A History keeps its events in storage borrowed from its thread: the vectors of the last History
// that ended on this thread, emptied but with their capacity, so that the worlds a worker runs one
// after another reuse the same memory (no reallocation while a run grows its history, no page
// faults on fresh memory; docs/benchmarks.md).
class History {
 public:
  History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;
  ~History();

  void record(HistoryEvent event);
  // A store call kept for an event of this history: laid out with the run's other store calls,
  // in the order they were handled, so that the oracles' walks (most read every store call)
  // read them from consecutive memory rather than one allocation each. The pointer keeps the
  // storage of all the run's calls alive (an event copied out of the world keeps them all). A
  // history that keeps no events gives each call an allocation of its own, freed with its event.
  std::shared_ptr<const StoreCall> keep_store_call(StoreCall&& call);
  const std::vector<HistoryEvent>& events() const { return events_; }
  std::uint64_t hash() const;
  // The hash after each event, to find where two runs diverged (empty for a history that keeps no
  // events).
  const std::vector<std::uint64_t>& rolling_hashes() const;
  // When false, events are hashed but not kept (faster sweeps that need only the hash).
  void set_keep_events(bool keep) { keep_events_ = keep; }
  // Chosen before the first event: a hash is of one scheme throughout.
  void set_hash_scheme(HistoryHashScheme scheme);
  HistoryHashScheme hash_scheme() const { return scheme_; }
  std::uint64_t size() const { return count_; }
  // Called with each event once it is recorded and hashed, inside record() (a sweep watches for
  // the marks it branches at, properties/marks.h). It may not record events itself.
  void set_hook(std::function<void(const HistoryEvent&)> hook) { hook_ = std::move(hook); }

 private:
  // Hashes the encoded events not hashed yet (into state_).
  void hash_pending() const;
  static constexpr std::size_t kHashBatchBytes = 16 * 1024;
  XXH3_state_t* state_;
  // The encodings of the events recorded since the last update of state_ (pending_ bytes); the
  // buffer is kept from batch to batch.
  mutable std::string encoded_;
  mutable std::size_t pending_ = 0;
  std::vector<HistoryEvent> events_;
  // rolling_hashes(), filled in when asked.
  mutable std::vector<std::uint64_t> rolling_;
  mutable XXH3_state_t* rolling_state_ = nullptr;
  std::uint64_t count_ = 0;
  bool keep_events_ = true;
  HistoryHashScheme scheme_ = kCurrentHistoryHashScheme;
  std::function<void(const HistoryEvent&)> hook_;
  // The run's store calls, in chunks that never move (the events point into them).
  struct StoreCalls {
    static constexpr std::size_t kChunk = 256;
    std::vector<std::unique_ptr<StoreCall[]>> chunks;
    std::size_t used = kChunk;  // in the last chunk
  };
  std::shared_ptr<StoreCalls> store_calls_ = std::make_shared<StoreCalls>();
};

}  // namespace fencesim::sim
