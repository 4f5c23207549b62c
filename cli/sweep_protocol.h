#pragma once
// What the sweep's parent and its worker processes say to each other over pipes, one line a
// message. Parent to worker: "run ID SCENARIO STRATEGY SEED" or "rerun ID SCENARIO STRATEGY SEED"
// (indices into the plan). Worker to parent, one JSON object a line, in the order the tasks came:
//   {"type":"found","id":ID,"record":R}  a failure, its replay file written; shrinking follows
//   {"type":"done","id":ID,"record":R,"wall_seconds":W,"task_seconds":T}
//   {"type":"rerun","id":ID,"history_hash":H,"status":S,"violations":[INVARIANT...][,"error":E]}
//     a determinism re-run, its hash and its verdict (H and S "" on error)
//   {"type":"branch","id":ID,"record":R,"wall_seconds":W,"cpu_seconds":C,"task_seconds":T}
//     a branch of task ID's run (cli/sweep_branch.h), before the task's own "done"
// After "found" the worker waits for the parent's "draw ID 1" (shrink and draw the failure) or
// "draw ID 0" (keep the replay file only): the parent counts the failures of every kind, so that
// the limit holds exactly whatever the number of workers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/sweep_plan.h"
#include "reports/run_record.h"

namespace fencesim::cli {

struct TaskMessage {
  bool rerun = false;
  std::uint64_t id = 0;
  SweepTask task;
};

std::string encode_task(const TaskMessage& message);
// nullopt for a malformed line (a bug: the parent wrote it).
std::optional<TaskMessage> decode_task(std::string_view line);

// "draw ID 1" or "draw ID 0".
std::string encode_draw(std::uint64_t id, bool draw);
struct DrawMessage {
  std::uint64_t id = 0;
  bool draw = false;
};
// nullopt when the line is not a draw answer.
std::optional<DrawMessage> decode_draw(std::string_view line);

// A worker's answer, checked whole: every field the parent reads is there with its type, and a
// record is a valid run record.
struct WorkerAnswer {
  std::string type;  // "found", "done", "rerun" or "branch"
  std::uint64_t id = 0;
  std::optional<reports::RunRecord> record;  // found, done, branch
  double wall_seconds = 0;                   // done, branch
  double task_seconds = 0;                   // done, branch
  // done (absent from an older worker's answer: 0 then), branch (always there)
  double cpu_seconds = 0;
  std::string history_hash;                  // rerun ("" when the re-run failed)
  std::string rerun_status;                  // rerun ("" when the re-run failed)
  std::vector<std::string> rerun_violations;  // rerun: the invariants it violated, in order
  std::optional<std::string> error;          // rerun, when it failed
};
// nullopt for a line the parent cannot use (a worker that is broken): never an exception.
std::optional<WorkerAnswer> decode_answer(std::string_view line);

// Writes all of `line` and a newline, through partial writes and EINTR. False on an error (the
// other side is gone).
bool write_line(int fd, std::string_view line);

// Splits what arrives on a pipe into lines.
class LineBuffer {
 public:
  void append(const char* data, std::size_t size) { buffer_.append(data, size); }
  // The next complete line, without its newline.
  std::optional<std::string> next();

 private:
  std::string buffer_;
  std::size_t start_ = 0;
};

}  // namespace fencesim::cli
