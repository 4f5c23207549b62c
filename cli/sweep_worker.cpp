#include "cli/sweep_worker.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <tuple>

#include "cli/execute.h"
#include "cli/parse.h"
#include "cli/seconds_between.h"
#include "cli/sweep_branch.h"
#include "cli/sweep_failure.h"
#include "cli/sweep_interrupt.h"
#include "cli/sweep_last_words.h"
#include "sim/last_events.h"
#include "cli/sweep_protocol.h"
#include "reports/signature.h"
#include "sim/stack_pool.h"
#include "reports/json_text.h"

namespace fencesim::cli {

using nlohmann::ordered_json;

std::optional<CrashHook> crash_hook_from_environment() {
  const char* seed = std::getenv("FENCESIM_TEST_CRASH_SEED");
  if (seed == nullptr) return std::nullopt;
  CrashHook hook;
  hook.seed = parse_seed("FENCESIM_TEST_CRASH_SEED", seed);
  const char* kind = std::getenv("FENCESIM_TEST_CRASH_KIND");
  hook.kind = kind == nullptr ? "segv" : kind;
  static constexpr std::array<std::string_view, 13> kKinds{
      "segv", "abort", "hang", "throw", "hang-after-branching", "segv-in-second-branch",
      "segv-on-rerun", "throw-on-rerun", "verdict-differs-in-another-worker",
      "segv-while-shrinking", "hang-while-shrinking", "slow-around-found",
      "verdict-differs-on-second-run"};
  if (std::find(kKinds.begin(), kKinds.end(), hook.kind) == kKinds.end()) {
    throw UsageError(fmt::format("FENCESIM_TEST_CRASH_KIND: expected one of {}, got '{}'",
                                 fmt::join(kKinds, ", "), hook.kind));
  }
  return hook;
}

namespace {

void misbehave(const CrashHook& hook) {
  if (hook.kind == "abort") std::abort();
  if (hook.kind == "throw") throw std::runtime_error("FENCESIM_TEST_CRASH_KIND=throw");
  if (hook.kind == "hang") {
    for (;;) pause();
  }
  std::raise(SIGSEGV);
}

class Worker {
 public:
  Worker(const WorkerSetup& setup, int task_fd, int result_fd)
      : setup_(setup),
        task_fd_(task_fd),
        result_fd_(result_fd),
        pool_(std::make_shared<sim::StackPool>()) {}

  // Serves tasks until the parent closes the pipe.
  [[noreturn]] void serve_all() {
    for (;;) {
      if (!pending_.empty()) {
        const TaskMessage message = pending_.front();
        pending_.pop_front();
        serve(message);
        continue;
      }
      const std::string line = next_line();
      const std::optional<TaskMessage> message = decode_task(line);
      if (!message) malformed(line);
      serve(*message);
    }
  }

  // Whether the test hook is set for `seed` with `kind`.
  bool hooked(std::uint64_t seed, std::string_view kind) const {
    return setup_.crash_hook && setup_.crash_hook->seed == seed && setup_.crash_hook->kind == kind;
  }

  using TaskKey = std::tuple<std::size_t, std::size_t, std::uint64_t>;
  static TaskKey task_key(const SweepTask& task) {
    return {task.scenario, task.strategy, task.seed};
  }

  // The test hook verdict-differs-in-another-worker: the re-run of the hook's seed in a worker that
  // did not run its first run finds a violation on the same history, as an oracle whose verdict
  // hangs on its process's state would. A sweep sees it only if it re-runs the seed in another
  // worker and compares the verdicts, not the hashes alone.
  bool verdict_hook_fires(const TaskMessage& message) const {
    return hooked(message.task.seed, "verdict-differs-in-another-worker") &&
           !ran_here_.contains(task_key(message.task));
  }

  void serve(const TaskMessage& message) {
    const auto started = std::chrono::steady_clock::now();
    properties::RunRequest request = request_for(message.task);
    if (message.rerun) {
      // The seed's first run went well; its determinism re-run kills the worker (a test's).
      if (hooked(request.seed, "segv-on-rerun")) std::raise(SIGSEGV);
      // The re-run answers with its verdict as well as its hash: the parent judges both.
      ordered_json answer{{"type", "rerun"},     {"id", message.id},
                          {"history_hash", ""},  {"status", ""},
                          {"violations", ordered_json::array()}};
      try {
        if (hooked(request.seed, "throw-on-rerun")) {
          throw std::runtime_error("FENCESIM_TEST_CRASH_KIND=throw-on-rerun");
        }
        properties::RunReport report = execute(*setup_.registry, request, "").report;
        if (verdict_hook_fires(message)) {
          report.violations.push_back(properties::Violation{
              "test-hook", "FENCESIM_TEST_CRASH_KIND=verdict-differs-in-another-worker", {}});
          report.status = properties::RunStatus::kViolation;
        }
        answer["history_hash"] = reports::hash_hex(report.history_hash);
        answer["status"] = properties::to_string(report.status);
        for (const properties::Violation& violation : report.violations) {
          answer["violations"].push_back(violation.invariant);
        }
      } catch (const std::exception& error) {
        answer["error"] = fmt::format("an exception escaped the harness: {}", error.what());
      }
      send(answer);
      return;
    }
    if (setup_.crash_hook && setup_.crash_hook->seed == request.seed) {
      ran_here_.insert(task_key(message.task));
    }
    reports::RunRecord record;
    double wall_seconds = 0;
    double cpu_seconds = 0;
    std::uint64_t branch_points = 0;
    std::map<std::string, std::uint64_t> marks_after;  // a branch's, after its branch point
    std::optional<BranchChild> branch;                  // set in a forked branch
    if (!setup_.plan->config.branch_marks.empty()) {
      request.branch_marks = setup_.plan->config.branch_marks;
      request.on_branch_mark = [&](sim::World& world, const properties::PlacedMark& mark) {
        if (branch) return;  // a branch does not branch again
        ++branch_points;
        branch = fork_branches(world, request.seed, mark, setup_.plan->config.branches,
                               [&](const properties::BranchPoint& at, const std::string& how) {
                                 lost_branch(message.id, request, at, how);
                               });
        // A branch that dies before it answers (a test's): its worker must report it lost.
        if (branch && branch->at.number == 2 && hooked(request.seed, "segv-in-second-branch")) {
          std::raise(SIGSEGV);
        }
        // The parent, its branches ended and answered: a sweep stopped now holds their records
        // and not the parent's, which a test of interrupted sweeps needs to happen for sure.
        if (!branch && hooked(request.seed, "hang-after-branching")) {
          for (;;) pause();
        }
      };
    }
    // A hang before this run's first event must not be told by the last run's events.
    sim::last_events::clear();
    try {
      for (const char* kind : {"segv", "abort", "hang", "throw"}) {
        if (hooked(request.seed, kind)) misbehave(*setup_.crash_hook);
      }
      // The signature reads the history the violation points at: taken before the world goes.
      std::string signature;
      std::optional<reports::HistoryRecord> history;  // for a failure's replay file
      TimedRun run = execute(*setup_.registry, request, "",
                             [&](const sim::World& world, const properties::RunReport& done) {
                               signature = reports::run_signature(world, done);
                               if (done.status != properties::RunStatus::kPass || branch) {
                                 history = reports::record_history(world.history(), done.plan);
                               }
                               if (branch) marks_after = marks_since(world, branch->at.event);
                             });
      wall_seconds = run.wall_seconds;
      cpu_seconds = run.cpu_seconds;
      if (branch) as_branch(run.report, *branch);
      record = reports::make_run_record(run.report);
      record.signature = std::move(signature);
      if (branch) {
        record.branch = reports::BranchRecord{branch->at, std::move(marks_after), ""};
        record.branch->replay = keep_branch(run.report, record, history);
      } else if (!record.passed()) {
        // Shrinking runs the failure again: those runs fork no branches (each fork's process went
        // on shrinking and answered for the parent, its record many times over in runs.jsonl).
        run.report.request.branch_marks.clear();
        run.report.request.on_branch_mark = nullptr;
        record.failure = keep(message.id, run.report, record, history);
      }
      record.branch_points = branch ? 0 : branch_points;  // a branch inherits the count
    } catch (const std::exception& error) {
      // An exception out of the harness itself: the run has no history to keep.
      wall_seconds = seconds_since(started);
      record = harness_error_record(request, error.what());
      if (branch) record.branch = reports::BranchRecord{branch->at, {}, ""};
    }
    if (branch) {
      // A branch's answer; then it ends (its worker, waiting for it, goes on with its own run).
      send(ordered_json{{"type", "branch"},
                        {"id", message.id},
                        {"record", reports::to_json(record)},
                        {"wall_seconds", seconds_since(branch->forked)},
                        {"cpu_seconds", process_cpu_seconds() - branch->cpu_started},
                        {"task_seconds", seconds_since(started)}});
      _exit(0);
    }
    send(ordered_json{{"type", "done"},
                      {"id", message.id},
                      {"record", reports::to_json(record)},
                      {"wall_seconds", wall_seconds},
                      {"cpu_seconds", cpu_seconds},
                      {"task_seconds", seconds_since(started)}});
  }

 private:
  // The marks a branch reached after its branch point (the rest its parent's record counts).
  static std::map<std::string, std::uint64_t> marks_since(const sim::World& world,
                                                          std::uint64_t event) {
    std::map<std::string, std::uint64_t> marks;
    for (const properties::PlacedMark& mark : properties::place_marks(world)) {
      if (mark.event > event) ++marks[mark.name];
    }
    return marks;
  }

  // A forked branch's report says what it is: the request that replays it.
  static void as_branch(properties::RunReport& report, const BranchChild& branch) {
    report.request.branch = branch.at;
    report.request.branch_marks.clear();
    report.request.on_branch_mark = nullptr;
  }

  // A branch's replay file: failures/ for a failing one (kept, not shrunk: a branch has no
  // protocol of its own to ask for drawing), branches/ for a passing one. Returns its path
  // relative to the sweep's folder, or "" (noted in the record) when it could not be written.
  std::string keep_branch(const properties::RunReport& report, reports::RunRecord& record,
                          const std::optional<reports::HistoryRecord>& history) {
    if (!record.passed()) {
      record.failure = keep_failure(*setup_.registry, report, record.signature, history,
                                    setup_.plan->out, [](const reports::FailureFiles&) {
                                      return false;
                                    });
      record.failure->note += record.failure->note.empty() ? "" : "; ";
      record.failure->note += "a branch: its replay file is kept, not shrunk or drawn";
      return record.failure->replay;
    }
    const std::string name =
        "branches/" + failure_base_name(report.request) + ".replay.json";
    try {
      reports::ReplayFile file = reports::make_replay_file(report, *setup_.registry);
      file.history = history;
      reports::write_replay_file(setup_.plan->out + "/" + name, file);
      return name;
    } catch (const reports::ReplayFileError& error) {
      record.detail = fmt::format("replay file not written: {}", error.what());
      return "";
    }
  }

  // A branch that died before it answered: a harness error of its own.
  void lost_branch(std::uint64_t id, const properties::RunRequest& request,
                   const properties::BranchPoint& at, const std::string& how) {
    properties::RunRequest lost = request;
    lost.branch = at;
    reports::RunRecord record =
        harness_error_record(lost, fmt::format("the branch's process {}", how));
    record.branch = reports::BranchRecord{at, {}, ""};
    send(ordered_json{{"type", "branch"},
                      {"id", id},
                      {"record", reports::to_json(record)},
                      {"wall_seconds", 0.0},
                      {"cpu_seconds", 0.0},
                      {"task_seconds", 0.0}});
  }

  properties::RunRequest request_for(const SweepTask& task) const {
    properties::RunRequest request;
    request.scenario = setup_.plan->config.scenarios.at(task.scenario).name;
    request.seed = task.seed;
    reports::apply_strategy(task_strategy(setup_.plan->config, task), request);
    request.sink_double = setup_.plan->config.sink_double;
    request.stack_pool = pool_;
    return request;
  }

  reports::FailureFiles keep(std::uint64_t id, const properties::RunReport& report,
                             const reports::RunRecord& record,
                             const std::optional<reports::HistoryRecord>& history) {
    return keep_failure(
        *setup_.registry, report, record.signature, history, setup_.plan->out,
        [&](const reports::FailureFiles& files) {
          reports::RunRecord found = record;
          found.failure = files;
          slow_down(report.request.seed);
          send(ordered_json{{"type", "found"}, {"id", id}, {"record", reports::to_json(found)}});
          const bool draw = await_draw(id);
          // The failure was found and its replay file kept; the worker dies, or hangs, in the
          // shrinking that follows (a test's: the failure must stand without it).
          if (draw && hooked(report.request.seed, "segv-while-shrinking")) std::raise(SIGSEGV);
          if (draw && hooked(report.request.seed, "hang-while-shrinking")) {
            for (;;) pause();
          }
          if (draw) slow_down(report.request.seed);
          return draw;
        });
  }

  // The test hook slow-around-found: seed N's run, then its shrinking, each take most of a run
  // timeout (kSlowAroundFound, against a test's --run-timeout of 3s). Neither alone may be killed:
  // "found" starts the shrinking's own run timeout.
  void slow_down(std::uint64_t seed) const {
    if (hooked(seed, "slow-around-found")) std::this_thread::sleep_for(kSlowAroundFound);
  }
  static constexpr std::chrono::milliseconds kSlowAroundFound{1800};

  // The parent's answer to "found": whether to shrink and draw. Tasks sent before it are kept.
  bool await_draw(std::uint64_t id) {
    for (;;) {
      const std::string line = next_line();
      if (const std::optional<DrawMessage> answer = decode_draw(line)) {
        if (answer->id != id) malformed(line);
        return answer->draw;
      }
      const std::optional<TaskMessage> message = decode_task(line);
      if (!message) malformed(line);
      pending_.push_back(*message);
    }
  }

  // The next line from the parent; the parent gone means there is nothing more to do.
  std::string next_line() {
    char buffer[4096];
    for (;;) {
      if (std::optional<std::string> line = lines_.next()) return *line;
      const ssize_t n = ::read(task_fd_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(0);  // the parent closed the pipe: no more tasks
      lines_.append(buffer, static_cast<std::size_t>(n));
    }
  }

  [[noreturn]] static void malformed(const std::string& line) {
    std::fprintf(stderr, "fencesim: worker: malformed message '%s'\n", line.c_str());
    _exit(kExitHarnessError);
  }

  static reports::RunRecord harness_error_record(const properties::RunRequest& request,
                                                 const std::string& what) {
    reports::RunRecord record;
    record.scenario = request.scenario;
    record.strategy = reports::strategy_name(request);
    record.seed = request.seed;
    record.status = std::string(properties::to_string(properties::RunStatus::kHarnessError));
    record.detail = fmt::format("an exception escaped the harness: {}", what);
    record.signature = reports::harness_signature(record.detail);
    record.failure = reports::FailureFiles{};
    record.failure->note = "no replay file: the run ended before its history was complete";
    return record;
  }

  void send(const ordered_json& message) {
    // The parent gone means the sweep is over: nothing is left to tell.
    if (!write_line(result_fd_, reports::json_text(message))) _exit(0);
  }

  const WorkerSetup& setup_;
  int task_fd_;
  int result_fd_;
  std::shared_ptr<sim::StackPool> pool_;
  LineBuffer lines_;
  std::deque<TaskMessage> pending_;  // tasks that came while waiting for a draw answer
  std::set<TaskKey> ran_here_;  // the test hook's: the hook seed's tasks this worker ran first
};

}  // namespace

extern "C" void say_last_events_and_end(int /*signal*/) {
  sim::last_events::write_to(STDERR_FILENO);
  _exit(kOverdueWorkerExit);
}

void run_worker(const WorkerSetup& setup, int task_fd, int result_fd) {
  // A sanitizer's report (or anything else the worker says before it dies) is read back by the
  // parent and becomes part of the seed's record (cli/sweep_last_words.h).
  send_worker_stderr_to_file(setup.plan->out);
  leave_interrupts_to_the_parent();
  // Past --run-timeout the parent asks with kOverdueSignal; the worker's run may be spinning
  // anywhere, so the handler only writes what sim::last_events kept, and ends.
  struct sigaction overdue {};
  overdue.sa_handler = say_last_events_and_end;
  sigemptyset(&overdue.sa_mask);
  ::sigaction(kOverdueSignal, &overdue, nullptr);
  Worker(setup, task_fd, result_fd).serve_all();
}

}  // namespace fencesim::cli
