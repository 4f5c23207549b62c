#include "cli/sweep_protocol.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <nlohmann/json.hpp>

namespace fencesim::cli {

std::string encode_task(const TaskMessage& message) {
  return fmt::format("{} {} {} {} {}", message.rerun ? "rerun" : "run", message.id,
                     message.task.scenario, message.task.strategy, message.task.seed);
}

namespace {

// Reads one unsigned number and the space after it (if any) from the front of `text`.
bool take_number(std::string_view& text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{}) return false;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  if (!text.empty()) {
    if (text.front() != ' ') return false;
    text.remove_prefix(1);
  }
  return true;
}

}  // namespace

std::optional<TaskMessage> decode_task(std::string_view line) {
  TaskMessage message;
  if (line.starts_with("run ")) {
    line.remove_prefix(4);
  } else if (line.starts_with("rerun ")) {
    message.rerun = true;
    line.remove_prefix(6);
  } else {
    return std::nullopt;
  }
  std::uint64_t scenario = 0, strategy = 0;
  if (!take_number(line, message.id) || !take_number(line, scenario) ||
      !take_number(line, strategy) || !take_number(line, message.task.seed) || !line.empty()) {
    return std::nullopt;
  }
  message.task.scenario = static_cast<std::size_t>(scenario);
  message.task.strategy = static_cast<std::size_t>(strategy);
  return message;
}

std::string encode_draw(std::uint64_t id, bool draw) {
  return fmt::format("draw {} {}", id, draw ? 1 : 0);
}

std::optional<DrawMessage> decode_draw(std::string_view line) {
  if (!line.starts_with("draw ")) return std::nullopt;
  line.remove_prefix(5);
  DrawMessage message;
  std::uint64_t draw = 0;
  if (!take_number(line, message.id) || !take_number(line, draw) || !line.empty() || draw > 1) {
    return std::nullopt;
  }
  message.draw = draw == 1;
  return message;
}

namespace {

std::optional<double> number_field(const nlohmann::json& message, const char* key) {
  const auto it = message.find(key);
  if (it == message.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

std::optional<WorkerAnswer> decode_answer(std::string_view line) {
  const nlohmann::json message = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!message.is_object()) return std::nullopt;
  const auto type = message.find("type");
  const auto id = message.find("id");
  if (type == message.end() || !type->is_string()) return std::nullopt;
  if (id == message.end() || !id->is_number_unsigned()) return std::nullopt;
  WorkerAnswer answer;
  answer.type = type->get<std::string>();
  answer.id = id->get<std::uint64_t>();
  if (answer.type == "rerun") {
    const auto hash = message.find("history_hash");
    if (hash == message.end() || !hash->is_string()) return std::nullopt;
    answer.history_hash = hash->get<std::string>();
    const auto status = message.find("status");
    if (status == message.end() || !status->is_string()) return std::nullopt;
    answer.rerun_status = status->get<std::string>();
    const auto violations = message.find("violations");
    if (violations == message.end() || !violations->is_array()) return std::nullopt;
    for (const nlohmann::json& invariant : *violations) {
      if (!invariant.is_string()) return std::nullopt;
      answer.rerun_violations.push_back(invariant.get<std::string>());
    }
    if (const auto error = message.find("error"); error != message.end()) {
      if (!error->is_string()) return std::nullopt;
      answer.error = error->get<std::string>();
    }
    return answer;
  }
  if (answer.type != "found" && answer.type != "done" && answer.type != "branch") {
    return std::nullopt;
  }
  const auto record = message.find("record");
  if (record == message.end()) return std::nullopt;
  try {
    answer.record = reports::run_record_from_json(*record, "worker");
  } catch (const reports::SweepFileError&) {
    return std::nullopt;
  }
  if (answer.type == "done" || answer.type == "branch") {
    const std::optional<double> wall = number_field(message, "wall_seconds");
    const std::optional<double> task = number_field(message, "task_seconds");
    if (!wall || !task) return std::nullopt;
    answer.wall_seconds = *wall;
    answer.task_seconds = *task;
  }
  // A branch's CPU time is always there; a done's only when it is a number (an older worker's
  // answer had none), so a branch answer without it is a broken worker's.
  const std::optional<double> cpu = number_field(message, "cpu_seconds");
  if (answer.type == "branch" && !cpu) return std::nullopt;
  if (answer.type != "found") answer.cpu_seconds = cpu.value_or(0.0);
  return answer;
}

bool write_line(int fd, std::string_view line) {
  std::string text(line);
  text += '\n';
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> LineBuffer::next() {
  const std::size_t newline = buffer_.find('\n', start_);
  if (newline == std::string::npos) {
    // Drop what was consumed, so that the buffer does not grow without bound.
    buffer_.erase(0, start_);
    start_ = 0;
    return std::nullopt;
  }
  std::string line = buffer_.substr(start_, newline - start_);
  start_ = newline + 1;
  return line;
}

}  // namespace fencesim::cli
