#include "sim/waiter.h"

#include "sim/fiber_record.h"

namespace fencesim::sim {

Waiter::~Waiter() {
  if (fiber_ != nullptr) fiber_->waiter = nullptr;
}

}  // namespace fencesim::sim
