#pragma once
// A sink reached over a slow link from one process: the write spends `latency` on its way, during
// which its sender may be frozen. It is how a write that passed assertHeld() still reaches the
// sink after the lease was taken over.
#include "runtime/env.h"
#include "runtime/sink.h"

namespace fencesim::runtime::real {

class DelayedSink final : public Sink {
 public:
  DelayedSink(Env& sender, Sink& target, Nanoseconds latency)
      : sender_(sender), target_(target), latency_(latency) {}
  const std::string& name() const override { return target_.name(); }
  SinkReply write(const SinkWrite& write) override {
    sender_.sleep(latency_);
    return target_.write(write);
  }

 private:
  Env& sender_;
  Sink& target_;
  Nanoseconds latency_;
};

}  // namespace fencesim::runtime::real
