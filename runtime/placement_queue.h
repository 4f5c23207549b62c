#pragma once
// The queue that places trees on instances: roots submitted by clients and AnyInstance children
// placed by their parents. Any instance polls it and takes a placed tree's lease; the lease decides
// who runs it, the queue only says what exists. Placing is idempotent by lease key, so a parent
// step that runs twice places its child once.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/types.h"

namespace fencesim::runtime {

// AnyInstance children hold leases of their own, keyed in the parent's tenant by an execution id
// that no root can have: the reserved prefix, then make_scope_key({parent's execution id, child's
// path}). Encoding the parts keeps two children (or a child and a grandchild) apart whatever their
// names hold; the prefix keeps every child apart from every root, because a root's execution id
// may not start with it (place() refuses one, in every queue).
inline constexpr std::string_view kChildExecutionPrefix = "@child:";
bool is_child_execution_id(std::string_view lease_execution_id);
LeaseKey child_lease_key(const LeaseKey& parent, const std::string& path);

// A root placed with a reserved (child) execution id.
class PlacementError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Placement {
  LeaseKey key;
  std::string workflow;            // name in the WorkflowRegistry
  std::optional<LeaseKey> parent;  // set for AnyInstance children
  std::uint64_t sequence = 0;      // placement order, assigned by the queue
  bool finished = false;
};

class PlacementQueue {
 public:
  virtual ~PlacementQueue() = default;
  // Places a tree (idempotent by key). A root (no parent) whose execution id is a child's
  // (is_child_execution_id) throws PlacementError: it could share a lease with a child.
  virtual void place(const LeaseKey& key, const std::string& workflow,
                     const std::optional<LeaseKey>& parent) = 0;
  // Placements not yet finished, in placement order.
  virtual std::vector<Placement> pending() = 0;
  virtual void finish(const LeaseKey& key) = 0;
  virtual std::optional<Placement> find(const LeaseKey& key) = 0;
};

class MemoryPlacementQueue final : public PlacementQueue {
 public:
  void place(const LeaseKey& key, const std::string& workflow,
             const std::optional<LeaseKey>& parent) override;
  std::vector<Placement> pending() override;
  void finish(const LeaseKey& key) override;
  std::optional<Placement> find(const LeaseKey& key) override;

 private:
  std::map<LeaseKey, Placement> placements_;
  // The placements not finished, by sequence (pointers into placements_, whose nodes stay put).
  std::map<std::uint64_t, const Placement*> unfinished_;
  std::uint64_t next_sequence_ = 1;
};

}  // namespace fencesim::runtime
