#pragma once
// siblings-named-apart: no tree runs a workflow that names two siblings alike. Judged from the
// workflows' definitions (the deployed registry, the workload's data) reached from each submitted
// root through every child, by comparing the names themselves, byte for byte: how the runtime
// spells a name inside a path is not used.
#include <functional>
#include <string>
#include <vector>

#include "properties/invariant.h"
#include "runtime/workflow.h"

namespace fencesim::properties {

// ADR-0023 names a step's lease and effects by its path: the scope key of an AnyInstance child is
// made of its parent's id and its path, a step's idempotency key of its lease key, its path and its
// effect, and the checkpoint records a step by its path. Two siblings of one name (two items of a
// workflow, or two children of one group) share all of that: the second step is skipped as
// committed, the second AnyInstance child is never placed (the parent waits on the first twice),
// two ParentInstance branches write under one key and one is deduplicated away (issue 29 item 5).
// Such a workflow has no faithful run, so the runtime must refuse it before any tree of it runs
// (runtime::WorkflowRegistry::add); the workload offers the registry such twins
// (scenarios/tree_shapes.cpp), and this oracle finds one that was deployed and submitted.
class SiblingsNamedApart final : public Invariant {
 public:
  std::string_view name() const override { return "siblings-named-apart"; }
  std::string_view statement() const override {
    return "no submitted tree reaches a workflow that names two siblings alike (two items of one "
           "workflow, or two children of one group), or names one of them '': they would share "
           "a path, a checkpoint entry, idempotency keys and an AnyInstance child's lease key";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

// The walk over the definitions themselves: `find` gives a deployed workflow by name (null for one
// not deployed), `roots` are the submitted root workflows, in submission order. Taking a lookup,
// not the runtime's registry, lets a test hand it twins the registry would refuse.
using WorkflowLookup = std::function<const runtime::Workflow*(const std::string&)>;
void check_siblings_named_apart(const WorkflowLookup& find, const std::vector<std::string>& roots,
                                std::vector<Violation>& out);

}  // namespace fencesim::properties
