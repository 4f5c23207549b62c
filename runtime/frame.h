#pragma once
// A frame is where code of a tree runs: a step's frame carries the lease the step runs under while
// the step runs; a level's frame (the root, a ThisWorkflow level) and a rebuilt frame (a withdrawal
// after the tree ended) carry none. The fence is read live from its frame, so a fence kept past
// its step, an ancestor's fence and a frame without a held lease all refuse.
#include <memory>
#include <string>

#include "runtime/types.h"

namespace fencesim::runtime {

// Held by shared pointer only: a frame's users (every step body, through its context) need not
// parse the lease's and the cancel's machinery.
class HeldLease;
class TreeCancel;

enum class FrameKind { kStep, kLevel, kRebuilt };

struct Frame {
  FrameKind kind;
  LeaseKey tree_key;  // the lease key of the tree (root or AnyInstance child) it belongs to
  std::string path;   // step path, or the level's path
  std::shared_ptr<HeldLease> lease;  // set only for a step's frame
  bool ended = false;                // the step returned: its fence refuses from now on
  std::shared_ptr<Frame> parent;     // the enclosing level's frame (null at the root level)
  std::shared_ptr<TreeCancel> cancel;  // set only for a step's frame: its pass's cancel checks
};

}  // namespace fencesim::runtime
