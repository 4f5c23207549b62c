#include "reports/groups.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "reports/signature.h"

namespace fencesim::reports {

namespace {

std::string status_of(const RunRecord& record) {
  return record.passed() ? "nondeterministic" : record.status;
}

std::string kind_of(const RunRecord& record) {
  if (record.passed()) return "replay";
  if (record.first_violation) return record.first_violation->invariant;
  if (record.status == "harness-error") return "harness";
  return record.status;
}

void insert_sorted(std::vector<std::string>& names, const std::string& name) {
  const auto at = std::lower_bound(names.begin(), names.end(), name);
  if (at == names.end() || *at != name) names.insert(at, name);
}

bool shrunk(const RunRecord& record) {
  return record.failure && !record.failure->shrunk_replay.empty();
}

}  // namespace

bool is_failure(const RunRecord& record) {
  return !record.passed() || record.nondeterministic();
}

std::vector<FailureGroup> failure_groups(const std::vector<RunRecord>& records,
                                         const KnownSignatures* known) {
  std::map<std::string, FailureGroup> by_signature;
  const auto earlier = [&](std::size_t a, std::size_t b) {
    const RunRecord& x = records[a];
    const RunRecord& y = records[b];
    return std::tie(x.seed, x.scenario, x.strategy) < std::tie(y.seed, y.scenario, y.strategy);
  };
  for (std::size_t i = 0; i < records.size(); ++i) {
    const RunRecord& record = records[i];
    if (!is_failure(record)) continue;
    const std::string signature = record_signature(record);
    auto [it, fresh] = by_signature.try_emplace(signature);
    FailureGroup& group = it->second;
    if (fresh) {
      group.signature = signature;
      group.id = signature_id(signature);
      group.status = status_of(record);
      group.kind = kind_of(record);
      group.known = known != nullptr && known->contains(signature);
      group.first = i;
      group.example = i;
    }
    group.members.push_back(i);
    insert_sorted(group.scenarios, record.scenario);
    insert_sorted(group.strategies, record.strategy);
    if (earlier(i, group.first)) group.first = i;
    // The smallest shrunk plan: fewer faults wins, then the earlier seed.
    if (shrunk(record)) {
      const RunRecord& best = records[group.example];
      const bool better = !group.example_shrunk ||
                          record.failure->shrunk_faults < best.failure->shrunk_faults ||
                          (record.failure->shrunk_faults == best.failure->shrunk_faults &&
                           earlier(i, group.example));
      if (better) {
        group.example = i;
        group.example_shrunk = true;
      }
    } else if (!group.example_shrunk && earlier(i, group.example)) {
      group.example = i;
    }
  }
  std::vector<FailureGroup> groups;
  for (auto& [signature, group] : by_signature) groups.push_back(std::move(group));
  std::stable_sort(groups.begin(), groups.end(), [](const FailureGroup& a, const FailureGroup& b) {
    if (a.known != b.known) return !a.known;
    if (a.members.size() != b.members.size()) return a.members.size() > b.members.size();
    return a.signature < b.signature;
  });
  return groups;
}

}  // namespace fencesim::reports
