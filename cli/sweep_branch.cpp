#include "cli/sweep_branch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "cli/parse.h"
#include "cli/sweep_pool.h"
#include "properties/marks.h"

namespace fencesim::cli {

namespace {

// The marks a branch may be taken at: those the history rules reach and the scenarios' own.
std::set<std::string> known_marks(const scenarios::ScenarioRegistry& registry) {
  std::set<std::string> known;
  for (const std::string& name : properties::history_mark_names()) known.insert(name);
  for (const scenarios::Scenario* scenario : registry.all()) {
    for (const scenarios::MarkFloor& mark : scenario->marks) known.insert(mark.name);
  }
  return known;
}

void check_known(const std::set<std::string>& known, const std::string& name) {
  if (!known.contains(name)) {
    throw UsageError(fmt::format("--branch-at: unknown mark '{}' (the history's marks: {}; or a "
                                 "mark a scenario names as its own)",
                                 name, fmt::join(properties::history_mark_names(), ", ")));
  }
}

}  // namespace

void check_branch_marks(const scenarios::ScenarioRegistry& registry,
                        const std::set<std::string>& marks) {
  const std::set<std::string> known = known_marks(registry);
  for (const std::string& name : marks) check_known(known, name);
}

std::set<std::string> parse_branch_marks(const scenarios::ScenarioRegistry& registry,
                                         std::string_view text) {
  const std::set<std::string> known = known_marks(registry);
  std::set<std::string> marks;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string name(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (name.empty()) {
      throw UsageError(fmt::format("--branch-at: expected MARK[,MARK...], got '{}'", text));
    }
    check_known(known, name);
    if (!marks.insert(name).second) {
      throw UsageError(fmt::format("--branch-at: '{}' is given twice", name));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return marks;
}

properties::BranchPoint parse_branch_point(const scenarios::ScenarioRegistry& registry,
                                           std::string_view option, std::string_view text) {
  const std::size_t last = text.rfind(':');
  const std::size_t middle = last == std::string_view::npos || last == 0
                                 ? std::string_view::npos
                                 : text.rfind(':', last - 1);
  if (middle == std::string_view::npos || middle == 0) {
    throw UsageError(fmt::format("{}: expected MARK:EVENT:N, got '{}'", option, text));
  }
  // One mark: a list would name the first of its marks and reach a branch point of another.
  if (text.substr(0, middle).find(',') != std::string_view::npos) {
    throw UsageError(fmt::format("{}: expected MARK:EVENT:N, got '{}'", option, text));
  }
  properties::BranchPoint at;
  try {
    at.mark = *parse_branch_marks(registry, text.substr(0, middle)).begin();
  } catch (const UsageError& error) {
    // The same complaint, under this option's name.
    const std::string what = error.what();
    throw UsageError(fmt::format("{}:{}", option, what.substr(what.find(':') + 1)));
  }
  at.event = parse_seed(option, text.substr(middle + 1, last - middle - 1));
  at.number = parse_seed(option, text.substr(last + 1));
  if (at.number == 0) {
    throw UsageError(fmt::format("{}: branches are numbered from 1, got '{}'", option, text));
  }
  return at;
}

std::uint64_t parse_branches(std::string_view text) {
  const std::uint64_t count = parse_seed("--branches", text);
  if (count == 0 || count > kMaxBranches) {
    throw UsageError(fmt::format("--branches: expected 1..{}, got '{}'", kMaxBranches, text));
  }
  return count;
}

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

std::optional<BranchChild> fork_branches(
    sim::World& world, std::uint64_t seed, const properties::PlacedMark& mark,
    std::uint64_t count,
    const std::function<void(const properties::BranchPoint&, const std::string&)>& lost) {
  const pid_t worker = getpid();
  for (std::uint64_t number = 1; number <= count; ++number) {
    const properties::BranchPoint at{mark.name, mark.event, number};
    // Whatever stdio holds would be written twice, once by each process.
    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child < 0) {
      throw std::runtime_error(fmt::format("fork for a branch failed: {}", std::strerror(errno)));
    }
    if (child == 0) {
      // A branch outlives nothing: when its worker dies (killed for its run timeout, or the
      // budget's end), it dies too. A worker gone before this line leaves it an orphan: end.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != worker) _exit(0);
      BranchChild self{at, process_cpu_seconds(), std::chrono::steady_clock::now()};
      world.reseed(properties::branch_seed(seed, at));
      return self;
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    // A branch that answered ends with 0; anything else never told the sweep about itself.
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) lost(at, describe_wait_status(status));
  }
  return std::nullopt;
}

}  // namespace fencesim::cli
