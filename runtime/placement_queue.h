#pragma once
// The queue that places trees on instances: roots submitted by clients and AnyInstance children
// placed by their parents. Any instance polls it and takes a placed tree's lease; the lease decides
// who runs it, the queue only says what exists. Placing is idempotent by lease key, so a parent
// step that runs twice places its child once.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/types.h"

namespace fencesim::runtime {

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
  std::uint64_t next_sequence_ = 1;
};

}  // namespace fencesim::runtime
