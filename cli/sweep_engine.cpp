#include "cli/sweep_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "cli/seconds_between.h"
#include "cli/sweep_interrupt.h"
#include "cli/sweep_last_words.h"
#include "reports/signature.h"
#include "runtime/check.h"

namespace fencesim::cli {

namespace {

// Each worker is given about this much work at a time: enough to keep it busy between the
// parent's polls, little enough that the budget's end cuts nothing long.
constexpr double kBatchSeconds = 0.05;
constexpr std::size_t kMaxBatch = 32;
// A guess of a task's length before any has ended.
constexpr double kFirstGuessSeconds = 0.05;

Clock::time_point after(Clock::time_point from, double seconds) {
  return from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

class Engine {
 public:
  Engine(const WorkerSetup& setup, SweepProgress& progress, Clock::time_point start)
      : plan_(*setup.plan),
        progress_(progress),
        pool_(setup, setup.plan->jobs, setup.plan->run_timeout_seconds),
        source_(*setup.plan),
        task_seconds_(setup.plan->config.scenarios.size(), 0.0),
        task_count_(setup.plan->config.scenarios.size(), 0) {
    start_ = start;
    update_deadlines();
  }

  SweepResults run() {
    for (;;) {
      const Clock::time_point now = Clock::now();
      update_deadlines();
      if (const int signal = InterruptCatcher::caught(); signal != 0) {
        // What runs now is lost (its seed is reported not run); a failure found is kept.
        for (PoolEvent& event : pool_.kill_busy("was stopped: the sweep was interrupted")) {
          cut(event, "the sweep was interrupted");
        }
        results_.interrupted_by = signal;
        if (!source_.exhausted()) results_.next_seed = source_.peek().seed;
        break;
      }
      if (plan_.budgeted() && now >= hard_stop_) {
        for (PoolEvent& event : pool_.kill_busy("was stopped: the budget ran out")) {
          cut(event, "the budget ran out");
        }
        break;
      }
      dispatch(now);
      const bool seed_begun =
          !source_.exhausted() && (source_.peek().scenario != 0 || source_.peek().strategy != 0);
      const bool nothing_left =
          retries_.empty() && (source_.exhausted() || (stopping_ && !seed_begun));
      if (!pool_.busy() && nothing_left) break;
      double timeout = std::min(1.0, progress_.seconds_to_next_tick(now));
      if (plan_.budgeted()) timeout = std::min(timeout, seconds_between(now, hard_stop_));
      for (PoolEvent& event : pool_.wait(timeout)) handle(event);
      progress_.tick(Clock::now());
    }
    // The workers still alive end now, having said nothing that matters: their files go.
    std::vector<pid_t> alive;
    for (std::size_t slot = 0; slot < pool_.size(); ++slot) alive.push_back(pool_.pid(slot));
    pool_.close();
    for (const pid_t pid : alive) (void)take_last_words(plan_.out, pid);
    remove_worker_files(plan_.out);
    return std::move(results_);
  }

 private:
  struct Retry {
    TaskMessage message;
    pid_t exclude = 0;  // a determinism re-run must not run in the worker that ran the original
  };

  // The reports take longer the more runs there are: the deadlines move earlier as runs end.
  void update_deadlines() {
    const double budget = plan_.budget_seconds();
    const double reserve = report_reserve_seconds(budget, results_.records.size(), results_.drawn);
    deadline_ = after(start_, budget - reserve);
    // The last moment: kill what still runs, so that the reports are written within the budget.
    hard_stop_ = after(start_, budget - reserve / 2);
  }

  double mean_seconds(std::size_t scenario) const {
    if (task_count_[scenario] > 0) {
      return task_seconds_[scenario] / static_cast<double>(task_count_[scenario]);
    }
    return all_count_ > 0 ? all_seconds_ / static_cast<double>(all_count_) : kFirstGuessSeconds;
  }

  // How long the worker needs for what it holds.
  double held_seconds(std::size_t slot, Clock::time_point now) const {
    double total = -pool_.current_seconds(slot, now);
    for (const TaskMessage& message : pool_.held(slot))
      total += mean_seconds(message.task.scenario);
    return std::max(0.0, total);
  }

  std::size_t batch_size() const {
    if (all_count_ == 0) return 1;
    const double mean = all_seconds_ / static_cast<double>(all_count_);
    return std::clamp<std::size_t>(static_cast<std::size_t>(kBatchSeconds / std::max(mean, 1e-6)),
                                   1, kMaxBatch);
  }

  bool next_for(std::size_t slot, Clock::time_point now, TaskMessage& message) {
    const pid_t pid = pool_.pid(slot);
    const auto retry = std::find_if(retries_.begin(), retries_.end(),
                                    [&](const Retry& r) { return r.exclude != pid; });
    if (retry != retries_.end()) {
      message = retry->message;
      retries_.erase(retry);
      return true;
    }
    if (source_.exhausted()) return false;
    // A seed begun is finished (every scenario, every strategy), so that a budget gives every
    // scenario the same seeds; the runs of one seed are short next to the budget's reserve.
    const bool seed_begun = source_.peek().scenario != 0 || source_.peek().strategy != 0;
    if (stopping_ && !seed_begun) return false;
    if (plan_.budgeted() && !stopping_) {
      const double needs = held_seconds(slot, now) + mean_seconds(source_.peek().scenario);
      if (after(now, needs) > deadline_) {
        stopping_ = true;
        if (!seed_begun) return false;
      }
    }
    message = TaskMessage{false, next_id_++, source_.next()};
    return true;
  }

  void dispatch(Clock::time_point now) {
    const std::size_t batch = batch_size();
    for (std::size_t slot = 0; slot < pool_.size(); ++slot) {
      std::vector<TaskMessage> messages;
      TaskMessage message;
      while (pool_.held(slot).size() + messages.size() < batch && next_for(slot, now, message)) {
        messages.push_back(message);
      }
      pool_.send(slot, messages);
    }
  }

  void handle(PoolEvent& event) {
    if (event.kind == PoolEvent::Kind::kDied) return died(event);
    const std::string& type = event.answer.type;
    const TaskMessage& task = event.tasks.front();
    if (type == "found") {
      reports::RunRecord record = std::move(*event.answer.record);
      failed(record);
      const bool draw = may_draw(task.id, record);
      pool_.tell(event.pid, encode_draw(task.id, draw));
      found_[task.id] = std::move(record);
    } else if (type == "done") {
      done(event, task);
    } else if (type == "rerun") {
      reran(event, task);
    } else if (type == "branch") {
      branched(event);
    }
  }

  // A branch of a run: a run of its own (not run again for determinism: its replay file is the
  // check, and the CLI test replays branches to their hashes).
  void branched(PoolEvent& event) {
    reports::RunRecord record = std::move(*event.answer.record);
    results_.times.push_back(reports::RunTime{record.scenario, record.strategy, record.seed,
                                              event.answer.wall_seconds, event.answer.cpu_seconds});
    if (!record.passed()) failed(record);
    finish(std::move(record));
  }

  void done(PoolEvent& event, const TaskMessage& task) {
    reports::RunRecord record = std::move(*event.answer.record);
    const double task_seconds = event.answer.task_seconds;
    task_seconds_[task.task.scenario] += task_seconds;
    ++task_count_[task.task.scenario];
    all_seconds_ += task_seconds;
    ++all_count_;
    // cpu_seconds is 0 for a worker of an older binary, which did not send it.
    results_.times.push_back(reports::RunTime{record.scenario, record.strategy, record.seed,
                                              event.answer.wall_seconds, event.answer.cpu_seconds});
    if (!record.passed() && !found_.contains(task.id)) failed(record);
    found_.erase(task.id);
    if (const auto note = not_drawn_.find(task.id); note != not_drawn_.end()) {
      add_note(record, note->second);
      not_drawn_.erase(note);
    }
    if (record.passed() && rerun_for_determinism(plan_.config, record.seed)) {
      const TaskMessage rerun{true, next_id_++, task.task};
      rerun_exclude_[rerun.id] = plan_.jobs > 1 ? event.pid : 0;
      retries_.push_back(Retry{rerun, rerun_exclude_[rerun.id]});
      rerun_of_[rerun.id] = results_.records.size();
    }
    finish(std::move(record));
  }

  void reran(const PoolEvent& event, const TaskMessage& task) {
    reports::RunRecord& record = results_.records.at(rerun_of_.at(task.id));
    const pid_t original = rerun_exclude_.at(task.id);
    check(original == 0 || event.pid != original,
          "a determinism re-run runs in another worker than the original");
    rerun_of_.erase(task.id);
    rerun_exclude_.erase(task.id);
    record.rerun_history_hash = event.answer.history_hash;
    record.rerun_status = event.answer.rerun_status;
    if (event.answer.error) {
      record.detail = "determinism re-run: " + *event.answer.error;
    } else if (*record.rerun_status != record.status) {
      std::string violated;
      for (const std::string& invariant : event.answer.rerun_violations) {
        violated += (violated.empty() ? "" : ", ") + invariant;
      }
      record.detail = fmt::format("determinism re-run: {}{}", *record.rerun_status,
                                  violated.empty() ? "" : " (" + violated + ")");
    }
    if (record.nondeterministic()) failed_determinism(record);
  }

  // Every failure goes through these two, so that --stop-after-failures counts them all.
  void failed(const reports::RunRecord& record) {
    progress_.failure_found(record);
    count_failure();
  }
  void failed_determinism(const reports::RunRecord& record) {
    progress_.nondeterminism_found(record);
    count_failure();
  }
  void count_failure() {
    ++failures_;
    if (plan_.stop_after_failures > 0 && failures_ >= plan_.stop_after_failures && !stopping_) {
      stopping_ = true;
      results_.stopped_at_failures = !source_.exhausted();
    }
  }

  void finish(reports::RunRecord record) {
    progress_.run_done(record);
    results_.records.push_back(std::move(record));
  }

  // A worker died (or was killed for its run timeout) holding tasks: the first is the culprit.
  void died(PoolEvent& event) {
    const LastWords words = take_last_words(plan_.out, event.pid);
    if (event.tasks.empty()) return;
    const TaskMessage culprit = event.tasks.front();
    event.tasks.pop_front();
    // What the worker held after the culprit goes to the others, before anything new.
    for (auto it = event.tasks.rbegin(); it != event.tasks.rend(); ++it) {
      retries_.push_front(Retry{*it, it->rerun ? rerun_exclude_[it->id] : 0});
    }
    // A sanitizer's finding is what the seed did; the worker's death only how it ended.
    const std::string why =
        words.sanitizer.empty() ? "worker " + event.death : "sanitizer: " + words.sanitizer;
    const std::string after_why =
        words.sanitizer.empty() ? "" : fmt::format(" (worker {})", event.death);
    if (culprit.rerun) {
      reports::RunRecord& record = results_.records.at(rerun_of_.at(culprit.id));
      rerun_of_.erase(culprit.id);
      rerun_exclude_.erase(culprit.id);
      record.rerun_history_hash = "";
      record.rerun_status = "";
      record.detail = "determinism re-run: " + why + after_why;
      failed_determinism(record);
      return;
    }
    const auto found = found_.find(culprit.id);
    if (found != found_.end()) {
      // The failure and its replay file stand; only shrinking or drawing was lost.
      reports::RunRecord record = std::move(found->second);
      found_.erase(found);
      add_note(record, fmt::format("{} while shrinking or drawing this failure{}", why, after_why));
      keep_report(record, words);
      return finish(std::move(record));
    }
    // A worker killed past --run-timeout names the kinds of its run's last events: where the
    // run stopped moving, part of the hang's signature (reports::harness_signature).
    const std::string stopped = words.last_events.empty() ? "" : "; " + words.last_events;
    reports::RunRecord record =
        dead_record(culprit.task, why + " while running this seed" + after_why + stopped);
    keep_report(record, words);
    failed(record);
    finish(std::move(record));
  }

  // A sanitizer's whole report is kept beside the seed's other failure files, and named in its
  // note: failures/<scenario>-<strategy>-<seed>.sanitizer.txt.
  void keep_report(reports::RunRecord& record, const LastWords& words) const {
    if (words.sanitizer.empty()) return;
    const std::string name = fmt::format("failures/{}-{}-{}.sanitizer.txt", record.scenario,
                                         record.strategy, record.seed);
    try {
      reports::write_file_atomically(plan_.out + "/" + name, words.text);
      add_note(record, "the sanitizer's report: " + name);
    } catch (const reports::SweepFileError& error) {
      add_note(record, fmt::format("the sanitizer's report could not be kept: {}", error.what()));
    }
  }

  // The budget ran out, or a signal came: tasks still running are dropped, except failures
  // already found.
  void cut(PoolEvent& event, const std::string& why) {
    for (const TaskMessage& task : event.tasks) {
      const auto found = found_.find(task.id);
      if (!task.rerun && found != found_.end()) {
        reports::RunRecord record = std::move(found->second);
        found_.erase(found);
        add_note(record, "shrinking was cut short: " + why);
        finish(std::move(record));
      } else if (!task.rerun) {
        ++results_.cut_by_budget;
      }
    }
  }

  // Whether the failure `id` is shrunk and drawn: only the first plan_.draw_limit of its kind are.
  // Counted here, in the one parent, so that the limit is exact whatever the number of workers.
  // A failure not drawn is noted in `record` (and, when it is done, in the worker's record).
  bool may_draw(std::uint64_t id, reports::RunRecord& record) {
    const std::string kind = failure_kind(record);
    std::uint64_t& drawn = drawn_[kind];
    if (drawn < plan_.draw_limit) {
      ++drawn;
      ++results_.drawn;
      return true;
    }
    const std::string note =
        fmt::format("not shrunk or drawn: {} failures of {} already were", drawn, kind);
    add_note(record, note);
    not_drawn_[id] = note;
    return false;
  }

  // "<scenario> [<signature id>]": the same bug in the same scenario (reports/signature.h), so
  // that every distinct bug gets its first failures shrunk, however many another bug has.
  static std::string failure_kind(const reports::RunRecord& record) {
    return fmt::format("{} [{}]", record.scenario,
                       reports::signature_id(reports::record_signature(record)));
  }

  static void add_note(reports::RunRecord& record, const std::string& note) {
    if (!record.failure) record.failure = reports::FailureFiles{};
    std::string& text = record.failure->note;
    text += text.empty() ? note : "; " + note;
  }

  reports::RunRecord dead_record(const SweepTask& task, const std::string& why) const {
    reports::RunRecord record;
    record.scenario = plan_.config.scenarios.at(task.scenario).name;
    record.strategy = task_strategy(plan_.config, task);
    record.seed = task.seed;
    record.status = std::string(properties::to_string(properties::RunStatus::kHarnessError));
    record.detail = why;
    record.signature = reports::harness_signature(why);
    record.failure = reports::FailureFiles{};
    record.failure->note = "no replay file: the worker died before the run ended";
    return record;
  }

  const SweepPlan& plan_;
  SweepProgress& progress_;
  WorkerPool pool_;
  TaskSource source_;
  Clock::time_point start_;
  Clock::time_point deadline_;  // no run is handed out that would end after it
  Clock::time_point hard_stop_;
  bool stopping_ = false;
  std::uint64_t failures_ = 0;  // failed runs and failed determinism re-runs so far
  std::uint64_t next_id_ = 1;
  std::deque<Retry> retries_;  // re-runs, and tasks of dead workers: before any new task
  std::map<std::uint64_t, std::size_t> rerun_of_;      // re-run id -> index of its record
  std::map<std::uint64_t, pid_t> rerun_exclude_;       // re-run id -> the original's worker
  std::map<std::uint64_t, reports::RunRecord> found_;  // failures found, still being shrunk
  std::map<std::string, std::uint64_t> drawn_;         // failure kind -> failures drawn
  std::map<std::uint64_t, std::string> not_drawn_;     // failure id -> why it is not drawn
  std::vector<double> task_seconds_;                   // per scenario
  std::vector<std::uint64_t> task_count_;
  double all_seconds_ = 0;
  std::uint64_t all_count_ = 0;
  SweepResults results_;
};

}  // namespace

double report_reserve_seconds(double budget_seconds, std::uint64_t runs, std::uint64_t drawn) {
  // Measured on 2 loaded cores: writing the reports of 52,840 runs took 1.9 s (36 us a run); the
  // budget's last half percent absorbs the runs still held when the last one was handed out.
  constexpr double kBaseSeconds = 0.5;
  constexpr double kSecondsPerRun = 60e-6;
  // report.html embeds the timelines of the first 25 drawn failures (cli/sweep_output.cpp), each
  // read back and parsed: up to a few MB each.
  constexpr double kSecondsPerTimeline = 0.05;
  constexpr std::uint64_t kTimelinesInReport = 25;
  return kBaseSeconds + kSecondsPerRun * static_cast<double>(runs) +
         kSecondsPerTimeline * static_cast<double>(std::min(drawn, kTimelinesInReport)) +
         budget_seconds * 0.005;
}

SweepResults run_sweep_tasks(const WorkerSetup& setup, SweepProgress& progress,
                             Clock::time_point start) {
  return Engine(setup, progress, start).run();
}

}  // namespace fencesim::cli
