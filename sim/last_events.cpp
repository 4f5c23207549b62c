#include "sim/last_events.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <string_view>

#include "sim/history.h"

namespace fencesim::sim::last_events {

namespace {

// A code per kind: a runtime event's kind, or kWorldBase + a world event's kind.
constexpr std::uint16_t kWorldBase = 256;

// The names, made before any handler can run (static initialization): a handler only reads them.
struct Names {
  std::array<std::string_view, 512> by_code{};
  Names() {
    for (int kind = 0; kind <= static_cast<int>(runtime::kLastEventKind); ++kind) {
      by_code[static_cast<std::size_t>(kind)] =
          runtime::to_string(static_cast<runtime::EventKind>(kind));
    }
    for (int kind = 1; kind <= static_cast<int>(kLastWorldEventKind); ++kind) {
      by_code[kWorldBase + static_cast<std::size_t>(kind)] =
          to_string(static_cast<WorldEventKind>(kind));
    }
  }
};
const Names names;

// Zero-initialized (no constructor runs): slots at or past `next` are never read, so a
// process that records nothing shows nothing.
std::array<std::atomic<std::uint16_t>, kKept> ring;
std::atomic<std::uint64_t> next{0};

// Appends `text` to `out` at `used`, as far as it fits; returns the new length.
std::size_t put(char* out, std::size_t size, std::size_t used, std::string_view text) {
  for (const char c : text) {
    if (used == size) break;
    out[used++] = c;
  }
  return used;
}

// Writes the text into `out` (no allocation, no lock: a signal handler calls it).
std::size_t render(char* out, std::size_t size) {
  const std::uint64_t end = next.load(std::memory_order_relaxed);
  const std::uint64_t begin = end > kKept ? end - kKept : 0;
  std::size_t used = 0;
  bool any = false;
  for (std::uint64_t i = begin; i < end; ++i) {
    const std::uint16_t code = ring[i % kKept].load(std::memory_order_relaxed);
    if (code >= names.by_code.size() || names.by_code[code].empty()) continue;
    used = put(out, size, used, any ? ", " : "last events (oldest first): ");
    used = put(out, size, used, names.by_code[code]);
    any = true;
  }
  if (any) used = put(out, size, used, "\n");
  return used;
}

}  // namespace

void note(WorldEventKind world, runtime::EventKind kind) {
  const std::uint16_t code = world == WorldEventKind::kRuntime
                                 ? static_cast<std::uint16_t>(kind)
                                 : static_cast<std::uint16_t>(kWorldBase + static_cast<int>(world));
  const std::uint64_t at = next.load(std::memory_order_relaxed);
  ring[at % kKept].store(code, std::memory_order_relaxed);
  next.store(at + 1, std::memory_order_relaxed);
}

void clear() { next.store(0, std::memory_order_relaxed); }

std::string text() {
  char buffer[1024];
  return std::string(buffer, render(buffer, sizeof buffer));
}

void write_to(int fd) {
  char buffer[1024];
  const std::size_t size = render(buffer, sizeof buffer);
  std::size_t written = 0;
  while (written < size) {
    const ssize_t n = ::write(fd, buffer + written, size - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace fencesim::sim::last_events
