#pragma once
// What a step receives: its frame's fence, the cancel signal, the process's environment, and the
// enclosing levels' contexts (whose fences refuse: only the running step's frame has one).
#include <memory>

#include "runtime/abort_signal.h"
#include "runtime/env.h"
#include "runtime/execution_fence.h"
#include "runtime/frame.h"

namespace fencesim::runtime {

class ExecutionContext {
 public:
  ExecutionContext(std::shared_ptr<Frame> frame, Env& env, AbortSignal signal)
      : frame_(std::move(frame)), env_(&env), signal_(std::move(signal)) {}

  // The fence of this frame. Using it refuses with ExecutionContextUnavailableError unless this
  // is a running step's frame.
  ExecutionFence fence() const { return ExecutionFence(frame_); }
  const AbortSignal& signal() const { return signal_; }
  Env& env() const { return *env_; }
  const std::string& path() const { return frame_->path; }
  const LeaseKey& tree_key() const { return frame_->tree_key; }
  FrameKind frame_kind() const { return frame_->kind; }
  bool has_parent() const { return frame_->parent != nullptr; }
  // The enclosing level's context. REQUIRES: has_parent().
  ExecutionContext parent() const;

 private:
  std::shared_ptr<Frame> frame_;
  Env* env_;
  AbortSignal signal_;
};

}  // namespace fencesim::runtime
