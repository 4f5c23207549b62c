#pragma once
// `--known DIR`: the failure signatures (reports/signature.h) already known, so that a sweep marks
// each of its failure groups new or known. DIR is an earlier sweep's output folder, a corpus of
// replay files, or both (a nightly's merged folder with its corpus beside it).
#include <string>

#include "reports/sweep_config.h"
#include "scenarios/scenario.h"

namespace fencesim::cli {

// Reads, in `dir`:
// - runs.jsonl (an earlier sweep's or merge's output): every failure's signature; and its
//   sweep.json's own known signatures, so that a bug stays known from night to night even on a
//   night it did not show;
// - every *.replay.json directly in `dir` and in `dir`/corpus (a corpus): the signature a sweep
//   wrote into it, or, in a file without one (`fencesim run`'s, an older fencesim's), the
//   signature of running it again now (a file that no longer fails adds nothing).
// Throws UsageError (naming --known) for a missing folder or a file that cannot be read.
reports::KnownSignatures read_known(const scenarios::ScenarioRegistry& registry,
                                    const std::string& dir);

}  // namespace fencesim::cli
