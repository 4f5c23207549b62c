#include "real/link_faults.h"

namespace fencesim::real {

using sim::FaultKind;

void LinkFaults::add(const sim::Fault& fault, std::int64_t from_ns) {
  switch (fault.kind) {
    case FaultKind::kNetworkDelay:
    case FaultKind::kNetworkDrop:
    case FaultKind::kNetworkDuplicate:
    case FaultKind::kPartition:
    case FaultKind::kStoreSlow:
    case FaultKind::kStoreDown:
      active_.push_back(Active{fault, from_ns});
      break;
    default:
      break;
  }
}

LinkTrouble LinkFaults::trouble(const std::string& from, const std::string& to,
                                std::int64_t now_ns) const {
  LinkTrouble out;
  for (const Active& active : active_) {
    const sim::Fault& f = active.fault;
    if (now_ns < active.from_ns || now_ns >= active.from_ns + f.duration_ns) continue;
    const bool touches = f.node == from || f.node == to;
    switch (f.kind) {
      case FaultKind::kNetworkDelay:
      case FaultKind::kStoreSlow:
        if (touches) out.delay_ns += f.amount;
        break;
      case FaultKind::kNetworkDrop:
        if (touches) out.drop_probability = std::max(out.drop_probability, f.probability);
        break;
      case FaultKind::kNetworkDuplicate:
        if (f.node == to) {
          out.duplicate_probability = std::max(out.duplicate_probability, f.probability);
        }
        break;
      case FaultKind::kPartition:
        if ((f.node == from && f.peer == to) || (f.node == to && f.peer == from)) out.down = true;
        break;
      case FaultKind::kStoreDown:
        if (f.node == to) out.down = true;
        break;
      default:
        break;
    }
  }
  return out;
}

bool LinkFaults::happens(double probability) {
  if (probability <= 0) return false;
  return std::uniform_real_distribution<double>(0, 1)(random_) < probability;
}

}  // namespace fencesim::real
