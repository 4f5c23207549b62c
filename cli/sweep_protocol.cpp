#include "cli/sweep_protocol.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

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
