// One OS process of the reference SQL race (stores/tests/reference_sql_race_test.cpp): holds the
// tokens of its level for every scope key and round, sends every write twice (a retry after a lost
// reply), and logs each outcome it saw, one line per write:
//   scope_key <TAB> token <TAB> step <TAB> worker <TAB> attempt <TAB> outcome
// The last line is `retries <TAB> N`. It starts writing when its stdin closes, so that all
// workers start together. Exit 2 on bad arguments, 1 on a database error.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "stores/race/write_variants.h"

namespace fencesim::stores::race {
namespace {

// Tokens: in round r, worker w holds r * kLevels + w % kLevels + 1 for every scope key. Workers
// of one level share a token (equal tokens); a slow worker's round is stale against a fast one's
// next round, and every round is fresh against the last.
constexpr int kLevels = 4;

struct Arguments {
  std::map<std::string, std::string> values;
  std::string get(const std::string& name) const {
    auto it = values.find(name);
    if (it == values.end()) {
      std::cerr << "race_worker: missing --" << name << "\n";
      std::exit(2);
    }
    return it->second;
  }
  int number(const std::string& name) const {
    const std::string text = get(name);
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || value < 0 || value > 1'000'000) {
      std::cerr << "race_worker: --" << name << " wants a number from 0 to 1000000, not '" << text
                << "'\n";
      std::exit(2);
    }
    return static_cast<int>(value);
  }
};

Arguments parse(int argc, char** argv) {
  Arguments arguments;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (!flag.starts_with("--") || i + 1 >= argc) {
      std::cerr << "race_worker: expected --name value pairs, got '" << flag << "'\n";
      std::exit(2);
    }
    arguments.values[flag.substr(2)] = argv[i + 1];
  }
  return arguments;
}

int run(const Arguments& arguments) {
  const int worker = arguments.number("worker");
  const int rounds = arguments.number("rounds");
  const int keys = arguments.number("keys");
  const int steps = arguments.number("steps");
  const std::string name = arguments.get("variant");
  std::unique_ptr<WriteVariant> variant =
      make_variant(name, VariantOptions{arguments.get("sql"), arguments.number("gap-us")});
  if (!variant) {
    std::cerr << "race_worker: unknown --variant '" << name << "'\n";
    return 2;
  }
  std::ofstream log(arguments.get("log"));
  if (!log) {
    std::cerr << "race_worker: cannot write " << arguments.get("log") << "\n";
    return 2;
  }
  pqxx::connection connection(arguments.get("connection"));
  connection.set_variable("search_path", arguments.get("schema"));
  // Ready: wait for the starting gun (the parent closes our stdin once every worker runs).
  for (int c = std::getchar(); c != EOF; c = std::getchar()) {
  }
  int retries = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::int64_t token = round * kLevels + worker % kLevels + 1;
    for (int k = 0; k < keys; ++k) {
      // Each worker walks the scope keys from another start, so keys race in every order.
      const std::string scope_key = fmt::format("tenant:exec-{}", (k + worker) % keys);
      for (int step = 0; step < steps; ++step) {
        const std::string step_id = fmt::format("r{}/s{}", round, step);
        for (int attempt = 1; attempt <= 2; ++attempt) {
          const std::string key = variant->key_per_attempt()
                                      ? fmt::format("{}#w{}#a{}", step_id, worker, attempt)
                                      : step_id;
          const Write write{scope_key, token, key, fmt::format("{}|w{}", step_id, worker)};
          const Outcome outcome = variant->write(connection, write, retries);
          log << scope_key << '\t' << token << '\t' << step_id << '\t' << worker << '\t' << attempt
              << '\t' << to_string(outcome) << '\n';
        }
      }
    }
  }
  log << "retries\t" << retries << '\n';
  return log.good() ? 0 : 1;
}

}  // namespace
}  // namespace fencesim::stores::race

int main(int argc, char** argv) {
  try {
    return fencesim::stores::race::run(fencesim::stores::race::parse(argc, argv));
  } catch (const std::exception& error) {
    std::cerr << "race_worker: " << error.what() << "\n";
    return 1;
  }
}
