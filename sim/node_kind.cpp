#include "sim/node_kind.h"

namespace fencesim::sim {

std::string_view kind_word(NodeKind kind) {
  switch (kind) {
    case NodeKind::kInstance:
      return "instance";
    case NodeKind::kStore:
      return "store";
    case NodeKind::kSink:
      return "sink";
    case NodeKind::kWorld:
      return "world";
  }
  return "node";
}

}  // namespace fencesim::sim
