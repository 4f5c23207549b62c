#include "cli/sweep_interrupt.h"

#include <csignal>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace fencesim::cli {

namespace {

volatile std::sig_atomic_t first_signal = 0;

extern "C" void catch_interrupt(int signal) {
  if (first_signal != 0) {
    // The second: the user means it. Default action, raised again on return.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  first_signal = signal;
}

struct sigaction previous_int {};
struct sigaction previous_term {};

}  // namespace

InterruptCatcher::InterruptCatcher() {
  first_signal = 0;
  struct sigaction action {};
  action.sa_handler = catch_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR, and the parent looks at once
  ::sigaction(SIGINT, &action, &previous_int);
  ::sigaction(SIGTERM, &action, &previous_term);
}

InterruptCatcher::~InterruptCatcher() {
  ::sigaction(SIGINT, &previous_int, nullptr);
  ::sigaction(SIGTERM, &previous_term, nullptr);
}

int InterruptCatcher::caught() { return first_signal; }

void leave_interrupts_to_the_parent() {
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
}

std::vector<reports::SeedSpan> seeds_not_run(const SweepPlan& plan,
                                             const std::vector<reports::RunRecord>& records,
                                             std::optional<std::uint64_t> next_seed) {
  // Each seed's runs made, as distinct (scenario, strategy) pairs: a seed is whole when it has
  // every one its plan hands out.
  std::map<std::uint64_t, std::set<std::pair<std::string, std::string>>> made;
  for (const reports::RunRecord& record : records) {
    if (record.branch) continue;
    made[record.seed].emplace(record.scenario, record.strategy);
  }
  const std::size_t per_seed = plan.config.scenarios.size() * plan.config.strategies.size();
  const std::uint64_t step = plan.shard.count;
  const std::uint64_t first = first_seed(plan.config) + plan.shard.index;
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::optional<std::uint64_t> last = plan.config.seeds_last;
  // The seeds handed out: those before `next_seed`, or the whole range.
  const auto handed_out = [&](std::uint64_t seed) {
    return next_seed ? seed < *next_seed : last.has_value() && seed <= *last;
  };
  std::vector<std::uint64_t> missing;
  for (std::uint64_t seed = first; handed_out(seed); seed += step) {
    const auto found = made.find(seed);
    if (found == made.end() || found->second.size() < per_seed) missing.push_back(seed);
    if (max - seed < step) break;
  }
  std::vector<reports::SeedSpan> spans = reports::seed_spans(missing, step);
  if (next_seed) {
    if (!spans.empty() && spans.back().last && *spans.back().last + step == *next_seed) {
      spans.back().last = last;
    } else {
      spans.push_back(reports::SeedSpan{*next_seed, last, step});
    }
  }
  return spans;
}

std::size_t drop_branches_without_parent(std::vector<reports::RunRecord>& records,
                                         std::vector<reports::RunTime>& times) {
  using Parent = std::tuple<std::string, std::string, std::uint64_t>;
  std::set<Parent> done;
  for (const reports::RunRecord& record : records) {
    if (!record.branch) done.emplace(record.scenario, record.strategy, record.seed);
  }
  const std::size_t before = records.size();
  std::erase_if(records, [&](const reports::RunRecord& record) {
    return record.branch && !done.contains(Parent{record.scenario, record.strategy, record.seed});
  });
  std::erase_if(times, [&](const reports::RunTime& time) {
    return !done.contains(Parent{time.scenario, time.strategy, time.seed});
  });
  return before - records.size();
}

}  // namespace fencesim::cli
