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
    if (context* worker = owner_->pick_worker()) {
      idle_streak_ = 0;
      return worker;
    }
  }
  // Straight back to run() unless ended fibers wait to be freed: one switch less per advance of
  // virtual time than going through the dispatcher every time.
  const bool release_due = owner_ != nullptr && owner_->has_ended_unreleased();
  if (main_ready_ && !(release_due && dispatcher_ready_)) {
    count_idle_pick();
    main_ready_ = false;
    return main_;
  }
  if (dispatcher_ready_) {
    count_idle_pick();
    dispatcher_ready_ = false;
    if (owner_ != nullptr) owner_->on_dispatcher_runs();
    return dispatcher_;
  }
  return nullptr;
}

void SimAlgorithm::count_idle_pick() noexcept {
  if (owner_ == nullptr || !owner_->ready_.has_runnable()) {
    idle_streak_ = 0;
    return;
  }
  if (++idle_streak_ > kIdleStreakLimit) {
    fatal(
        "no runnable worker fiber was picked in 4096 switches: the world would spin forever (a "
        "pick that refuses every worker, a count of ended fibers that is never reset?)");
  }
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
