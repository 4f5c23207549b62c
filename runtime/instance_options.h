#pragma once
#include "runtime/lease_policy.h"
#include "runtime/types.h"

namespace fencesim::runtime {

struct InstanceOptions {
  HolderId holder;  // unique per process incarnation
  LeasePolicy lease;
  Nanoseconds poll_interval_ns = 1 * kSecond;  // how often the queue and remote children are read
  // The remote-children wait may give the root's lease back (only while no other step of the
  // tree runs), so that a long wait does not keep renewing a lease nobody uses.
  bool yield_during_remote_wait = true;
};

}  // namespace fencesim::runtime
