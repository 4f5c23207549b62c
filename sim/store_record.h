#pragma once
// What each store and sink received and answered, recorded by the simulator at the store's node
// (never by the runtime's own events): one kStoreCall history event per request handled, carrying
// the request's fields and the reply's, so that oracles judge the stores' verdicts and the effects
// the sinks applied from the wire, and a reference model can replay every request in order.
//
// A request is handled in one piece at its destination (a network handler never blocks), so the
// reply is known when the event is recorded; a request lost on the way or to a store that is down
// leaves no kStoreCall. Reads of the queue that instances poll every second (pending, find) are not
// recorded: no oracle needs them and they would be most of the history.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/checkpoint_store.h"
#include "runtime/lease.h"
#include "runtime/types.h"
#include "sim/name.h"
#include "sim/node_id.h"

namespace fencesim::sim {

enum class StoreOp : std::uint8_t {
  kTake,
  kRenew,
  kRelease,
  kRead,
  kCommitStep,
  kCommitTree,
  kLoad,
  kPlace,
  kFinish,
  kWrite,   // a write to a sink
  kCancel,  // a client's cancel of a tree (#360), recorded at the checkpoint store
  // A row the lease store held before the run began, loaded into its table as a restarted store
  // loads its committed rows (World::inherit_lease: a table from a long-lived disk): `lease` is
  // the row, outcome "ok". No requester: nothing was sent.
  kRestore,
};
std::string_view to_string(StoreOp op);
// A commit's outcome as a StoreCall records it: committed, refused or cancelled.
std::string_view to_string(runtime::CommitStatus status);

// A lease as a store's reply named it (take, renew, read; restore: the inherited row):
// runtime::Lease's fields with names (sim/name.h), so that a recorded call holds no copy of a
// tenant's (up to 700-byte) name. Converts from a runtime::Lease (names not interned: a world
// interns them, see StoreRecorder) and back to one (a copy).
struct RecordedLease {
  NameKey key;
  Name holder;
  runtime::Token token = runtime::kTokenNone;
  runtime::Nanoseconds expires_at_ns = 0;  // the store's wall clock
  bool released = false;

  RecordedLease() = default;
  RecordedLease(const runtime::Lease& lease)  // NOLINT(google-explicit-constructor)
      : key(lease.key),
        holder(lease.holder),
        token(lease.token),
        expires_at_ns(lease.expires_at_ns),
        released(lease.released) {}
  RecordedLease(NameKey key_, Name holder_, runtime::Token token_, runtime::Nanoseconds expires_ns,
                bool released_)
      : key(std::move(key_)),
        holder(std::move(holder_)),
        token(token_),
        expires_at_ns(expires_ns),
        released(released_) {}
  operator runtime::Lease() const {  // NOLINT(google-explicit-constructor)
    return runtime::Lease{key, holder.str(), token, expires_at_ns, released};
  }
  friend bool operator==(const RecordedLease&, const RecordedLease&) = default;
};

// Every string of a call is a Name: a world interns them (StoreRecorder::intern), so that
// recording a call allocates nothing for a name the run has seen, two calls of one holder share
// its bytes, and the oracles' walks read a call of 240 bytes, not 504. The history's hash
// encodes each of them by its bytes, as when they were strings (sim/history.cpp).
struct StoreCall {
  StoreOp op = StoreOp::kTake;
  Name store;   // the lease store's or the sink's name
  Name holder;  // the requester (take, renew, release)
  // The oracles key their maps by it, and two keys of one tenant compare its (up to 700-byte)
  // name by identity, not by its bytes.
  NameKey key;
  runtime::Token token = runtime::kTokenNone;  // the request's token
  runtime::Nanoseconds ttl_ns = 0;             // take, renew
  // commit-step: the step path; place: the workflow; write: the idempotency key.
  Name argument;
  std::optional<NameKey> parent;           // place: an AnyInstance child's parent
  Name scope_key;                          // write
  Name payload;                            // write
  runtime::Nanoseconds store_wall_ns = 0;  // the store's own wall clock when it judged
  // When the requester sent it: true time and the requester's monotonic clock (what a holder
  // counts its confirmedUntil from), and the requester's node.
  std::int64_t sent_ns = 0;
  runtime::Nanoseconds sent_monotonic_ns = 0;
  NodeId from = kWorldNode;

  // The reply. `failed`: the store threw (its what() in `outcome`).
  bool failed = false;
  // take: taken/held; renew: renewed/stale/expired/released/not-holder/unknown-key;
  // release: released/refused; commit: committed/refused (commit-tree: also "cancelled", the
  // tree's cancel was recorded first); write: applied/deduplicated/refused; cancel: recorded/
  // already-recorded/tree-completed; read, load, place, finish: "ok".
  Name outcome;
  std::optional<RecordedLease> lease;  // take, renew, read: the lease in the reply
  // commit: the key's epoch when judged; write: the scope key's high-water token after the call.
  runtime::Token reply_token = runtime::kTokenNone;
  std::vector<Name> completed_steps;  // load
  bool tree_completed = false;        // load
  bool cancelled = false;             // load: the tree's cancel was recorded
};

// Where the remote stores report what their store handled. Implemented by the world.
class StoreRecorder {
 public:
  virtual ~StoreRecorder() = default;
  // The store node's wall clock now (what the store judges expiry by).
  virtual runtime::Nanoseconds store_wall_ns(NodeId store) const = 0;
  // True time now, and `node`'s monotonic clock now.
  virtual std::int64_t now_ns() const = 0;
  virtual runtime::Nanoseconds monotonic_ns(NodeId node) const = 0;
  virtual void record_store_call(NodeId store, StoreCall&& call) = 0;
  // `key` as the recorded calls name it (a world's interned names).
  virtual NameKey intern(const runtime::LeaseKey& key) = 0;
  // A call's text as the recorded calls name it (a world's interned names).
  virtual Name intern(std::string_view text) = 0;
  // A reply's lease, its names interned; its key is `key` itself when it names the same key
  // (a take's, a renewal's reply), which is then not interned again.
  RecordedLease intern_lease(const runtime::Lease& lease, const NameKey& key) {
    return RecordedLease{lease.key == key ? key : intern(lease.key), intern(lease.holder),
                         lease.token, lease.expires_at_ns, lease.released};
  }
};

// One line for traces and violation messages.
std::string describe(const StoreCall& call);

}  // namespace fencesim::sim
