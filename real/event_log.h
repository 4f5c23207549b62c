#pragma once
// Where one process of a real run writes its events: a file of its own, appended one record per
// event with one write(2) each, so that a SIGKILL loses nothing already recorded. Stamps every
// event with the shared run clock and the recording node's monotonic clock.
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "real/event_codec.h"
#include "real/run_clock.h"

namespace fencesim::real {

class EventLog {
 public:
  // Creates (or truncates) `path`. Throws std::runtime_error when it cannot.
  EventLog(const std::string& path, const RunClock& clock);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  // The monotonic clock of `node` as this process knows it (an instance's own, with its faults);
  // nodes without one read the run clock (stores: their monotonic clock starts at 0).
  void set_node_clock(sim::NodeId node, std::function<std::int64_t()> monotonic_ns);
  // Stamps `event` (time, node, the node's monotonic clock) and appends it.
  void record(sim::NodeId node, sim::HistoryEvent event);
  void record(sim::NodeId node, sim::WorldEventKind kind, std::string detail);
  std::int64_t now_ns() const { return clock_.now_ns(); }

 private:
  const RunClock& clock_;
  int fd_ = -1;
  std::mutex
      mutex_;  // the fibers' thread and a store call's thread (real/store_links.cpp) both record
  std::uint64_t sequence_ = 0;
  std::map<sim::NodeId, std::function<std::int64_t()>> node_clocks_;
};

// Every event of a run folder's event files (events-*.bin), each with the file's name.
struct ProcessEvents {
  std::string file;
  std::vector<LoggedEvent> events;
};
std::vector<ProcessEvents> read_event_files(const std::string& folder);

}  // namespace fencesim::real
