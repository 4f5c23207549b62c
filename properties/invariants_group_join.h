#pragma once
// Group join: the parent goes on after a group only once every child of the group ended. A
// workflow's group runs its children together (ParentInstance branches and ThisWorkflow levels
// under the tree's lease, AnyInstance children as trees of their own that the parent waits for:
// runtime/workflow.h, ADR-0023's remote-children wait); a step placed after the group, at the
// group's level or at a level above it, may start only when all of them ended.
//
// Judged from the run's own record, never from the runtime's classes: where each step of a tree
// sits after which groups comes from the workflow's definition (the workload's data); when a step
// started from the history's kStepStarted; that a ParentInstance or ThisWorkflow child ended from
// the checkpoint store's record of each of its steps committed under the tree's key (kCommitStep);
// that an AnyInstance child ended from the checkpoint store's record of its tree's completion
// (kCommitTree), the child being the key the lease store was asked to place for the parent
// (kPlace) whose scope key, by the oracle's own encoder (properties/reference_uri.h), is the one
// the parent's placement of that child path named (kChildPlaced). A step path is accepted in
// either spelling, names as they are or each encodeURIComponent-encoded (as own-workflow does).
#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

class GroupJoin final : public Invariant {
 public:
  std::string_view name() const override { return "group-join"; }
  std::string_view statement() const override {
    return "a step after a group starts only after every child of the group ended: each step of "
           "its ParentInstance and ThisWorkflow children checkpointed, each of its AnyInstance "
           "children placed and completed at the checkpoint store";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_group_join(const Events& events, const runtime::WorkflowRegistry& workflows,
                      std::vector<Violation>& out);

}  // namespace fencesim::properties
