#pragma once
// History events on disk, between the processes of a real run: each instance process appends its
// events to a file of its own, one record per event, and the coordinator reads them all back and
// merges them. A record is a 4-byte length and the event's fields, every string length-prefixed;
// a record cut short by a SIGKILL mid-append is ignored (it was never complete).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/history.h"

namespace fencesim::real {

// One record: the event and its position in its process (its sequence number).
struct LoggedEvent {
  std::uint64_t sequence = 0;
  sim::HistoryEvent event;
};

std::string encode_record(const LoggedEvent& logged);
// Decodes every complete record of `bytes`; throws std::runtime_error on a malformed one.
std::vector<LoggedEvent> decode_records(std::string_view bytes);

}  // namespace fencesim::real
