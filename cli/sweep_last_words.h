#pragma once
// What a sweep worker wrote to stderr before it ended. A sanitizer (ASan, UBSan) writes its report
// there and ends the process: the parent reads the report back so that the finding becomes part of
// the seed's record (its detail, its signature, a file beside its failure) instead of lines lost
// in the sweep's own stderr.
#include <sys/types.h>

#include <string>
#include <string_view>

namespace fencesim::cli {

// In a worker, before it serves anything: its stderr goes to `worker_stderr_path(out, getpid())`
// from now on. If the file cannot be made, stderr stays as it was.
void send_worker_stderr_to_file(const std::string& out);
std::string worker_stderr_path(const std::string& out, pid_t pid);

struct LastWords {
  // The first sanitizer finding, one line ("AddressSanitizer: heap-use-after-free at x.cpp:42 in
  // f"); "" when the worker wrote no sanitizer report.
  std::string sanitizer;
  std::string text;  // all the worker wrote (the last 256 KiB of it)
  // What a worker killed past --run-timeout said of its run (sim/last_events.h), one line:
  // "last events (oldest first): step-started, ..."; "" when it said nothing.
  std::string last_events;
};

// In the parent, once the worker `pid` has ended: reads its file and deletes it.
LastWords take_last_words(const std::string& out, pid_t pid);

// At the end of a sweep, once its workers' files are taken: removes <out>/workers if it is empty
// (shards sharing a folder may still have workers of their own there).
void remove_worker_files(const std::string& out);

// The first finding of a sanitizer report, as one line (see LastWords::sanitizer); "" for none.
std::string sanitizer_finding(std::string_view report);

}  // namespace fencesim::cli
