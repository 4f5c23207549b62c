#pragma once
// A sweep's failures grouped by signature (reports/signature.h): one group per distinct bug, with
// what a person reading last night's sweep wants first: how often, where, the first seed, the
// smallest shrunk example with its replay command and timeline, and whether it is new.
#include <cstdint>
#include <string>
#include <vector>

#include "reports/run_record.h"
#include "reports/sweep_config.h"

namespace fencesim::reports {

struct FailureGroup {
  std::string signature;
  std::string id;                       // signature_id(signature)
  std::string status;                   // violation, liveness, harness-error or nondeterministic
  std::string kind;                     // the invariant, or liveness, harness, replay
  bool known = false;                   // its signature was in the sweep's --known set
  std::vector<std::size_t> members;     // indices into the records, in their (sorted) order
  std::vector<std::string> scenarios;   // sorted, each once
  std::vector<std::string> strategies;  // sorted, each once
  std::size_t first = 0;                // the member with the lowest seed (then scenario, strategy)
  // The member whose shrunk plan has the fewest faults (then the lowest seed); the first member
  // when none was shrunk (a worker that died, a failure past --draw-limit).
  std::size_t example = 0;
  bool example_shrunk = false;
};

// Whether a record belongs in a group: it failed, or it was nondeterministic.
bool is_failure(const RunRecord& record);

// The groups of `records` (sorted by sort_records): new groups first, then the most frequent,
// then by signature. `known` null when the sweep had no --known.
std::vector<FailureGroup> failure_groups(const std::vector<RunRecord>& records,
                                         const KnownSignatures* known);

}  // namespace fencesim::reports
