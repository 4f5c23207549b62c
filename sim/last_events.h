#pragma once
// The kinds of the last events this process's histories recorded, kept where a signal handler can
// read them: a sweep worker that runs past --run-timeout is told to write them before it is
// killed (cli/sweep_pool.cpp), so that a hang says where its run stopped moving. A run that never
// returns to the scheduler (a fiber spinning without a switch) records nothing more: its last
// events are the ones before the spin.
//
// One process-wide ring, since a worker runs one world at a time; a process that runs worlds on
// several threads at once gets their events interleaved (only a hang's report reads them).
#include <cstdint>
#include <string>

#include "runtime/observer.h"

namespace fencesim::sim {

enum class WorldEventKind : std::uint8_t;

namespace last_events {

inline constexpr std::size_t kKept = 8;

// Called by History::record for every event: two relaxed atomic stores.
void note(WorldEventKind world, runtime::EventKind kind);
// Forgets what earlier runs recorded (a new History does).
void clear();
// "last events (oldest first): lease-taken, step-started, ...\n"; "" when none was recorded.
std::string text();
// The same text written to `fd` with write(2) alone: async-signal-safe.
void write_to(int fd);

}  // namespace last_events
}  // namespace fencesim::sim
