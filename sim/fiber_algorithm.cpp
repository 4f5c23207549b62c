#include "sim/fiber_algorithm.h"

#include <cstdio>
#include <cstdlib>

#include "sim/scheduler.h"

namespace fencesim::sim {

using boost::fibers::context;
using boost::fibers::type;

SimAlgorithm::SimAlgorithm(Scheduler* owner) noexcept : owner_(owner) {
  owner->algorithm_ = this;
}

void SimAlgorithm::awakened(context* ctx, FiberProperties& properties) noexcept {
  if (ctx->is_context(type::dispatcher_context)) {
    dispatcher_ = ctx;
    dispatcher_ready_ = true;
    return;
  }
  if (ctx->is_context(type::main_context)) {
    main_ = ctx;
    main_ready_ = true;
    return;
  }
  if (owner_ == nullptr) fatal("a fiber became ready after its world was torn down");
  if (properties.record == nullptr) properties.record = owner_->adopt_pending(ctx);
  owner_->on_ready(properties.record);
}

context* SimAlgorithm::pick_next() noexcept {
  if (owner_ != nullptr) {
    if (context* worker = owner_->pick_worker()) return worker;
  }
  if (dispatcher_ready_) {
    dispatcher_ready_ = false;
    return dispatcher_;
  }
  if (main_ready_) {
    main_ready_ = false;
    return main_;
  }
  return nullptr;
}

bool SimAlgorithm::has_ready_fibers() const noexcept {
  // Only Boost's set_algo asks, to move ready contexts over when an algorithm is replaced; by then
  // no worker is left, so the dispatcher is all there is to move.
  return dispatcher_ready_ || main_ready_;
}

void SimAlgorithm::suspend_until(std::chrono::steady_clock::time_point const&) noexcept {
  fatal(
      "the Boost.Fiber dispatcher found nothing to run: the main context parked outside "
      "Scheduler::run() (a join, future or mutex on the main context?)");
}

void fatal(const char* what) noexcept {
  std::fprintf(stderr, "fencesim: fatal: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace fencesim::sim
