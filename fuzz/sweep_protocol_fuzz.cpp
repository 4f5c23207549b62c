// The sweep's worker protocol (cli/sweep_protocol.h): bytes as they arrive on a pipe, in chunks of
// any size, split into lines; each line read as a task ("run ..."/"rerun ..."), a draw answer and a
// worker's JSON answer. Nothing may throw: a malformed line is nullopt. What decodes re-encodes to
// the same message, and the lines are exactly the input's up to its last newline.
#include <algorithm>
#include <string>

#include "cli/sweep_protocol.h"
#include "fuzz/fuzz_check.h"

using fencesim::fuzz::check;

namespace {

namespace cli = fencesim::cli;

void read_line(const std::string& line) {
  if (const std::optional<cli::TaskMessage> task = cli::decode_task(line)) {
    const std::optional<cli::TaskMessage> again = cli::decode_task(cli::encode_task(*task));
    check(again && again->rerun == task->rerun && again->id == task->id &&
              again->task.scenario == task->task.scenario &&
              again->task.strategy == task->task.strategy && again->task.seed == task->task.seed,
          "decode_task(encode_task(task)) != task");
  }
  if (const std::optional<cli::DrawMessage> draw = cli::decode_draw(line)) {
    const std::optional<cli::DrawMessage> again =
        cli::decode_draw(cli::encode_draw(draw->id, draw->draw));
    check(again && again->id == draw->id && again->draw == draw->draw,
          "decode_draw(encode_draw(draw)) != draw");
  }
  if (const std::optional<cli::WorkerAnswer> answer = cli::decode_answer(line)) {
    check(answer->type == "found" || answer->type == "done" || answer->type == "rerun",
          "decode_answer accepted an unknown type");
    check(answer->type == "rerun" || answer->record.has_value(),
          "decode_answer accepted a found or done answer without its record");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte sets the size of the chunks the pipe delivers (1 to 16 bytes).
  const std::size_t chunk = 1 + static_cast<std::size_t>(data[0] % 16);
  const std::string text(fencesim::fuzz::as_text(data + 1, size - 1));
  cli::LineBuffer lines;
  std::string seen;
  for (std::size_t at = 0; at < text.size(); at += chunk) {
    lines.append(text.data() + at, std::min(chunk, text.size() - at));
    while (std::optional<std::string> line = lines.next()) {
      check(line->find('\n') == std::string::npos, "a line holds a newline");
      seen += *line + '\n';
      read_line(*line);
    }
  }
  const std::size_t last_newline = text.rfind('\n');
  check(seen == (last_newline == std::string::npos ? "" : text.substr(0, last_newline + 1)),
        "the lines are not the input up to its last newline");
  return 0;
}
