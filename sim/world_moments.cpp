// World::await_moment: a step waits for a protocol moment of its node's runtime (see world.h).
#include <algorithm>
#include <limits>

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
  // Saturated: a timeout of "forever" (INT64_MAX) must not overflow.
  const std::int64_t now = scheduler_->now_ns();
  const std::int64_t timeout = std::max<std::int64_t>(timeout_ns, 0);
  const std::int64_t deadline = timeout > std::numeric_limits<std::int64_t>::max() - now
                                    ? std::numeric_limits<std::int64_t>::max()
                                    : now + timeout;
  scheduler_->at(deadline, [this, watch] {
    if (watch->over) return;
    watch->over = true;
    scheduler_->wake(watch->waiter);
  });
  scheduler_->block(watch->waiter);
  return watch->came;
}

}  // namespace fencesim::sim
