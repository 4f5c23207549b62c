#include "cli/sweep_known.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/parse.h"
#include "cli/replay_run.h"
#include "reports/replay_file.h"
#include "reports/run_record.h"
#include "reports/signature.h"

namespace fencesim::cli {

namespace fs = std::filesystem;

namespace {

void from_output_folder(const std::string& dir, std::vector<std::string>& signatures) {
  try {
    for (const reports::RunRecord& record : reports::read_run_records(dir + "/runs.jsonl")) {
      const std::string signature = reports::record_signature(record);
      if (!signature.empty()) signatures.push_back(signature);
    }
    if (fs::exists(dir + "/sweep.json")) {
      const reports::SweepManifest manifest = reports::read_sweep_manifest(dir + "/sweep.json");
      if (manifest.known) {
        signatures.insert(signatures.end(), manifest.known->signatures.begin(),
                          manifest.known->signatures.end());
      }
    }
  } catch (const reports::SweepFileError& error) {
    throw UsageError(fmt::format("--known: {}", error.what()));
  }
}

// The signature of running the file's world again, or "" when it passes now. The world is the
// one `fencesim replay` runs (cli/replay_run.h): for a schedule `fencesim explore` found (a file
// with a choice log and no signature), its log drives it; the seeded strategy would run another
// schedule, whose verdict is not the file's.
std::string signature_by_running(const scenarios::ScenarioRegistry& builtin,
                                 const reports::ReplayFile& file, const std::string& path) {
  const ReplayRun replay(builtin, file, path);
  if (replay.registry().find(file.scenario) == nullptr) {
    throw UsageError(
        fmt::format("--known: replay file '{}' names unknown scenario '{}'", path, file.scenario));
  }
  std::string signature;
  try {
    replay.run([&](const sim::World& world, const properties::RunReport& report) {
      signature = reports::run_signature(world, report);
    });
  } catch (const properties::UsageError&) {
    throw;
  } catch (const std::exception& error) {
    signature = reports::harness_signature(
        fmt::format("an exception escaped the harness: {}", error.what()));
  }
  return signature;
}

void from_corpus_folder(const scenarios::ScenarioRegistry& registry, const std::string& dir,
                        std::vector<std::string>& signatures) {
  std::vector<std::string> paths;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.ends_with(".replay.json")) {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());  // the order of a folder's listing is the file system's
  for (const std::string& path : paths) {
    reports::ReplayFile file;
    try {
      file = reports::read_replay_file(path);
      std::string signature =
          file.signature.empty() ? signature_by_running(registry, file, path) : file.signature;
      if (!signature.empty()) signatures.push_back(std::move(signature));
    } catch (const reports::ReplayFileError& error) {
      throw UsageError(fmt::format("--known: {}", error.what()));
    }
  }
}

}  // namespace

reports::KnownSignatures read_known(const scenarios::ScenarioRegistry& registry,
                                    const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    throw UsageError(
        fmt::format("--known: '{}' is not a folder (give a corpus or an earlier "
                    "sweep's output folder)",
                    dir));
  }
  std::vector<std::string> signatures;
  if (fs::exists(dir + "/runs.jsonl")) from_output_folder(dir, signatures);
  from_corpus_folder(registry, dir, signatures);
  if (fs::is_directory(dir + "/corpus", error)) {
    from_corpus_folder(registry, dir + "/corpus", signatures);
  }
  reports::KnownSignatures known;
  known.add(reports::KnownSignatures{{dir}, signatures});
  return known;
}

}  // namespace fencesim::cli
