#include "runtime/execution_context.h"

#include "runtime/check.h"

namespace fencesim::runtime {

ExecutionContext ExecutionContext::parent() const {
  check(frame_->parent != nullptr, "parent() of a frame that has one");
  return ExecutionContext(frame_->parent, *env_, AbortSignal{});
}

}  // namespace fencesim::runtime
