// `fencesim real` (real/coordinator.h) and its hidden worker subcommand.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <charconv>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <ostream>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "real/coordinator.h"
#include "real/worker.h"
#include "reports/timeline_files.h"

namespace fencesim::cli {

namespace {

std::string own_binary() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw HarnessFailure("real: cannot find this program's path (/proc/self/exe)");
  return std::string(path, static_cast<std::size_t>(n));
}

double parse_scale(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0') {
    throw UsageError(fmt::format("--time-scale: '{}' is not a number", text));
  }
  return value;
}

std::string rerun(const RealArgs& args) {
  std::string command =
      fmt::format("fencesim real --scenario {} --seed {} --store {} --time-scale {}",
                  args.scenario, args.seed, args.store, args.time_scale);
  if (!args.sink_double.empty()) command += " --sink-double " + args.sink_double;
  return command;
}

}  // namespace

std::string real_run_note() {
  return "real run: not replayable by seed (the seed fixes the fault plan, not the "
         "interleaving; timing is real)";
}

int real_command(const scenarios::ScenarioRegistry& registry, const RealArgs& args,
                 std::ostream& out, std::ostream& err) {
  if (args.scenario.empty()) throw UsageError("real: --scenario NAME is required");
  check_scenario(registry, args.scenario);
  real::RealRequest request;
  request.scenario = args.scenario;
  request.seed = parse_seed("--seed", args.seed);
  request.store = args.store;
  request.postgres = args.postgres;
  if (request.postgres.empty() && std::getenv("FENCESIM_POSTGRES") != nullptr) {
    request.postgres = std::getenv("FENCESIM_POSTGRES");
  }
  request.scale = parse_scale(args.time_scale);
  request.sink_double = args.sink_double;
  request.wall_limit_seconds = args.wall_limit_seconds;
  request.binary = own_binary();

  reports::RunPictures pictures(args.html, "");
  try {
    pictures.check_paths();
  } catch (const reports::ReportFileError& error) {
    throw UsageError(error.what());
  }
  const real::RealRun run = real::run_real(
      registry, request,
      [&](const sim::World& world, const properties::RunReport& report) {
        pictures.capture(world, report);
        if (!args.trace.empty()) {
          std::ofstream trace(args.trace);
          for (const sim::HistoryEvent& event : world.history().events()) {
            trace << sim::describe(event, world.node_names()) << '\n';
          }
          if (!trace) throw UsageError(fmt::format("--trace: cannot write '{}'", args.trace));
        }
      });
  const std::string note = real_run_note();
  try {
    pictures.write(note + "; run again: " + rerun(args));
  } catch (const reports::ReportFileError& error) {
    throw UsageError(error.what());
  }
  const TimedRun timed{run.report, run.wall_seconds};
  auto record = run_json(timed, "");
  record["mode"] = "real";
  record["replayable"] = false;
  record["note"] = note;
  record["store"] = request.store;
  record["time_scale"] = request.scale;
  record["processes"] = run.processes;
  record["not_played"] = run.not_played;
  if (!args.json_file.empty()) {
    std::ofstream file(args.json_file);
    file << record.dump(2) << '\n';
    if (!file) throw UsageError(fmt::format("--json: cannot write '{}'", args.json_file));
  }
  fmt::print(out, "mode=real store={} time-scale={} {}\n", request.store, request.scale,
             configuration_line(run.report.request));
  fmt::print(out, "{}\n", note);
  print_summary(out, timed);
  fmt::print(out, "instance processes started: {}\n", run.processes);
  for (const std::string& fault : run.not_played) {
    fmt::print(err, "fencesim: fault not played in real mode: {}\n", fault);
  }
  return properties::exit_code(run.report.status);
}

// The fault indices a restarted worker's earlier incarnations already played, "3,7": each a
// non-negative int, refused whole otherwise (atoi read "x" as fault 0, which then never fired).
std::vector<int> parse_fired(std::string_view text) {
  std::vector<int> fired;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    int index = -1;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), index);
    if (error != std::errc() || end != part.data() + part.size() || index < 0) {
      throw UsageError(fmt::format("--fired: '{}' is not a fault index", part));
    }
    fired.push_back(index);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return fired;
}

int real_worker_command(const RealWorkerArgs& args) {
  real::WorkerArgs worker;
  worker.folder = args.folder;
  worker.scenario = args.scenario;
  worker.seed = parse_seed("--seed", args.seed);
  worker.node = args.node;
  worker.incarnation = args.incarnation;
  worker.clock_start_ns = args.clock_start_ns;
  worker.scale = parse_scale(args.time_scale);
  worker.store = args.store;
  worker.postgres = args.postgres;
  worker.postgres_schema = args.postgres_schema;
  worker.sink_double = args.sink_double;
  worker.control_fd = args.control_fd;
  worker.fired = parse_fired(args.fired);
  return real::worker_main(worker);
}

}  // namespace fencesim::cli
