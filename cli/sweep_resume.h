#pragma once
// `fencesim sweep --resume OUT`: an interrupted sweep (cli/sweep_interrupt.h) continued. The
// configuration and shard come from OUT/sweep.json, the runs made from OUT/runs.jsonl; this
// command gives only how to run (--jobs, --run-timeout, --spec for the spec scenarios, ...).
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/sweep_plan.h"
#include "reports/run_record.h"
#include "reports/sweep_config.h"

namespace fencesim::cli {

struct InterruptedSweep {
  std::string dir;
  reports::SweepManifest manifest;
  std::vector<reports::RunRecord> records;
  std::vector<reports::RunTime> times;
};

// Reads the folder; UsageError (one line naming --resume) unless it holds an interrupted sweep made
// by this fencesim whose records can be read.
InterruptedSweep read_interrupted_sweep(const std::string& dir);

// The plan of what is left: the interrupted sweep's configuration and shard, its runs skipped, what
// was left of its budget; `args` gives the rest (jobs, timeouts, corpus, ...). Every scenario of the
// configuration must be registered as the sweep had it (a spec's, by giving its --spec again).
SweepPlan plan_resumed(const scenarios::ScenarioRegistry& registry, const SweepArgs& args,
                       const InterruptedSweep& sweep);

}  // namespace fencesim::cli
