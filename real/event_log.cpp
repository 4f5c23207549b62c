#include "real/event_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fencesim::real {

EventLog::EventLog(const std::string& path, const RunClock& clock) : clock_(clock) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  }
}

EventLog::~EventLog() {
  if (fd_ >= 0) ::close(fd_);
}

void EventLog::set_node_clock(sim::NodeId node, std::function<std::int64_t()> monotonic_ns) {
  node_clocks_[node] = std::move(monotonic_ns);
}

void EventLog::record(sim::NodeId node, sim::HistoryEvent event) {
  // Stamped and numbered under one lock, so a file's order is its stamps' order.
  const std::lock_guard<std::mutex> one_writer(mutex_);
  event.node = node;
  event.time_ns = clock_.now_ns();
  auto it = node_clocks_.find(node);
  event.local_monotonic_ns = it != node_clocks_.end() ? it->second() : event.time_ns;
  const std::string record = encode_record(LoggedEvent{sequence_++, std::move(event)});
  std::size_t written = 0;
  while (written < record.size()) {
    const ssize_t n = ::write(fd_, record.data() + written, record.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("cannot append an event: ") + std::strerror(errno));
    written += static_cast<std::size_t>(n);
  }
}

void EventLog::record(sim::NodeId node, sim::WorldEventKind kind, std::string detail) {
  sim::HistoryEvent event;
  event.world = kind;
  event.detail = std::move(detail);
  record(node, std::move(event));
}

std::vector<ProcessEvents> read_event_files(const std::string& folder) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("events-") && name.ends_with(".bin")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<ProcessEvents> out;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    out.push_back(ProcessEvents{file, decode_records(bytes.str())});
  }
  return out;
}

}  // namespace fencesim::real
