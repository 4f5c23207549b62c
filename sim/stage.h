#pragma once
// What a step body reaches of the world it runs in, apart from its runtime: the sinks (as seen
// from its node), marks, intents, observations, figures and true time. A simulated World answers
// these itself; a world whose steps run elsewhere (real mode, real/) installs a Stage on the World
// that holds its scenario's definitions (World::set_stage), and every such call goes there. The
// scenarios keep talking to sim::World, so their definitions run unchanged in both worlds.
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/history.h"

// By reference only: a stage's users need not parse the fence and the lease behind a context.
namespace fencesim::runtime {
class ExecutionContext;
class Sink;
}  // namespace fencesim::runtime

namespace fencesim::sim {

class Stage {
 public:
  virtual ~Stage() = default;
  virtual runtime::Sink& sink(runtime::ExecutionContext& context, const std::string& name) = 0;
  // The node the step runs on (an instance node of the World's topology).
  virtual NodeId node_of(runtime::ExecutionContext& context) const = 0;
  // True time now, in the scenario's nanoseconds.
  virtual std::int64_t now_ns() const = 0;
  // Records a world event at `node` (a mark, a figure, an intent, an observation), stamped by the
  // stage; `event` carries everything but the stamp.
  virtual void record(NodeId node, HistoryEvent event) = 0;
};

}  // namespace fencesim::sim
