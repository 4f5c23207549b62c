#include "properties/renewal_grants.h"

#include <string_view>

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

void RenewalGrants::add(const sim::HistoryEvent& e) {
  if (e.world != sim::WorldEventKind::kStoreCall || !e.store) return;
  const sim::StoreCall& call = *e.store;
  if (call.failed || call.op != sim::StoreOp::kRenew || call.outcome != "renewed"sv) return;
  grants_[{call.key, call.token}].push_back({call.sent_ns, call.from, e.index});
}

const RenewalGrants::Grant* RenewalGrants::first_answer(const sim::NameKey& key,
                                                        runtime::Token token, sim::NodeId node,
                                                        std::int64_t began_ns,
                                                        std::int64_t returned_ns) const {
  auto it = grants_.find({key, token});
  if (it == grants_.end()) return nullptr;
  for (const Grant& g : it->second) {
    if (g.from == node && g.sent_ns >= began_ns && g.sent_ns <= returned_ns) return &g;
  }
  return nullptr;
}

}  // namespace fencesim::properties
