#pragma once
// step-commits-under-its-token: a step's checkpoint reaches the checkpoint store under a token its
// holder held when it started that step. Judged from the store's record of each commit (its node,
// key, path and token) against the tokens the node was granted (its lease-taken records) at each
// start of that step, never from the token the runtime says it committed under.
#include <vector>

#include "properties/invariant.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

// ADR-0023: the fence "is a fact of its frame"; a step's outcome commits under the lease it ran
// under. A pass that takes its lease back after a yield holds a new token: a step that ran under
// the old one must commit under the old one (and be refused if the old one is over), not under
// the new one, or a body that ran under a token the store may have handed on commits as if it had
// run under the new one (red team re-read 2026-12-04, finding 7: commit_step read the pass's
// current lease, not the step's). A commit may reach the store late, after its holder started the
// step again under a later token, so any token of any start of that step at that node is its own.
class StepCommitsUnderItsToken final : public Invariant {
 public:
  std::string_view name() const override { return "step-commits-under-its-token"; }
  std::string_view statement() const override {
    return "a step's checkpoint reaches the checkpoint store under a token its holder held when "
           "it started that step";
  }
  void check(const sim::World& world, std::vector<Violation>& out) const override;
};

void check_step_commits_under_its_token(const Events& events, std::vector<Violation>& out);

}  // namespace fencesim::properties
