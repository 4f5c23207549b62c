#include "cli/sweep_last_words.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fencesim::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kKeptBytes = 256 * 1024;

std::string workers_folder(const std::string& out) {
  return out + "/workers";
}

// The line of `text` that holds `at`, without its newline.
std::string_view line_at(std::string_view text, std::size_t at) {
  const std::size_t begin = text.rfind('\n', at);
  const std::size_t from = begin == std::string_view::npos ? 0 : begin + 1;
  const std::size_t end = text.find('\n', at);
  return text.substr(from, (end == std::string_view::npos ? text.size() : end) - from);
}

// "/work/x/scenarios/planted_bugs.cpp:42 in f()" -> "planted_bugs.cpp:42 in f()": the folder
// depends on where it was built.
std::string without_folders(std::string_view site) {
  const std::size_t space = site.find(' ');
  const std::string_view path = site.substr(0, space);
  const std::size_t slash = path.rfind('/');
  std::string out(slash == std::string_view::npos ? path : path.substr(slash + 1));
  if (space != std::string_view::npos) out += site.substr(space);
  return out;
}

// ASan: "==123==ERROR: AddressSanitizer: heap-use-after-free on address 0x... at pc ..." and,
// at the end, "SUMMARY: AddressSanitizer: heap-use-after-free /path/x.cpp:42 in f()".
std::string asan_finding(std::string_view report) {
  constexpr std::string_view kSummary = "SUMMARY: AddressSanitizer: ";
  const std::size_t summary = report.find(kSummary);
  if (summary != std::string_view::npos) {
    std::string_view rest = line_at(report, summary).substr(kSummary.size());
    const std::size_t space = rest.find(' ');
    if (space == std::string_view::npos) return fmt::format("AddressSanitizer: {}", rest);
    return fmt::format("AddressSanitizer: {} at {}", rest.substr(0, space),
                       without_folders(rest.substr(space + 1)));
  }
  constexpr std::string_view kError = "ERROR: AddressSanitizer: ";
  const std::size_t error = report.find(kError);
  if (error == std::string_view::npos) return {};
  std::string_view rest = report.substr(error + kError.size());
  rest = rest.substr(0, rest.find('\n'));
  return fmt::format("AddressSanitizer: {}", rest.substr(0, rest.find(' ')));
}

// UBSan: "/path/x.cpp:42:13: runtime error: signed integer overflow: 2147483000 + 1000 cannot be
// represented in type 'int'".
std::string ubsan_finding(std::string_view report) {
  constexpr std::string_view kRuntimeError = ": runtime error: ";
  const std::size_t error = report.find(kRuntimeError);
  if (error == std::string_view::npos) return {};
  const std::string_view line = line_at(report, error);
  const std::size_t split = line.find(kRuntimeError);
  return fmt::format("UndefinedBehaviorSanitizer: {} at {}",
                     line.substr(split + kRuntimeError.size()),
                     without_folders(line.substr(0, split)));
}

}  // namespace

std::string worker_stderr_path(const std::string& out, pid_t pid) {
  return fmt::format("{}/{}.stderr", workers_folder(out), pid);
}

void send_worker_stderr_to_file(const std::string& out) {
  std::error_code error;
  fs::create_directories(workers_folder(out), error);
  const std::string path = worker_stderr_path(out, getpid());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ::dup2(fd, STDERR_FILENO);
  ::close(fd);
}

LastWords take_last_words(const std::string& out, pid_t pid) {
  const std::string path = worker_stderr_path(out, pid);
  LastWords words;
  std::ifstream in(path, std::ios::binary);
  if (!in) return words;
  std::stringstream text;
  text << in.rdbuf();
  words.text = text.str();
  if (words.text.size() > kKeptBytes) words.text.erase(0, words.text.size() - kKeptBytes);
  words.sanitizer = sanitizer_finding(words.text);
  // The last such line: a worker says it once, just before it ends.
  constexpr std::string_view kLastEvents = "last events (oldest first): ";
  if (const std::size_t at = words.text.rfind(kLastEvents); at != std::string::npos) {
    const std::size_t end = words.text.find('\n', at);
    words.last_events = words.text.substr(at, end == std::string::npos ? end : end - at);
  }
  in.close();
  std::error_code ignored;
  fs::remove(path, ignored);
  return words;
}

void remove_worker_files(const std::string& out) {
  std::error_code ignored;
  fs::remove(workers_folder(out), ignored);  // only when empty
}

std::string sanitizer_finding(std::string_view report) {
  // Whichever comes first in the report is the finding that ended the process.
  const std::size_t asan = report.find("ERROR: AddressSanitizer: ");
  const std::size_t ubsan = report.find(": runtime error: ");
  if (asan == std::string_view::npos && ubsan == std::string_view::npos) return {};
  return asan < ubsan ? asan_finding(report) : ubsan_finding(report);
}

}  // namespace fencesim::cli
