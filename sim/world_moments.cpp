// World::await_moment: a step waits for a protocol moment of its node's runtime (see world.h).
#include <algorithm>

#include "sim/world.h"

namespace fencesim::sim {

bool World::await_moment(runtime::ExecutionContext& context, runtime::EventKind kind,
                         const runtime::LeaseKey& lease, std::int64_t timeout_ns) {
  if (stage_ != nullptr) return false;
  auto watch = std::make_shared<MomentWatch>();
  watch->node = node_of(context);
  watch->kind = kind;
  watch->lease = lease;
  moment_watches_.push_back(watch);
  // Leaves the list whether the wait returns or unwinds (the node was killed meanwhile).
  struct Leave {
    std::vector<std::shared_ptr<MomentWatch>>& list;
    const std::shared_ptr<MomentWatch>& self;
    ~Leave() {
      self->over = true;
      std::erase(list, self);
    }
  } leave{moment_watches_, watch};
  scheduler_->at(scheduler_->now_ns() + std::max<std::int64_t>(timeout_ns, 0), [this, watch] {
    if (watch->over) return;
    watch->over = true;
    scheduler_->wake(watch->waiter);
  });
  scheduler_->block(watch->waiter);
  return watch->came;
}

}  // namespace fencesim::sim
