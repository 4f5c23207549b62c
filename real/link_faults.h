#pragma once
// The network between an instance process and the stores, in a real run: the stores are a file
// (or a server) every process reaches directly, so the plan's network and store faults sit in the
// client wrapper (real/store_links.h). A LinkFaults knows which of them hold now for a call from
// one node to another: added when their time comes or when their trigger fires in this process.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/fault.h"

namespace fencesim::real {

struct LinkTrouble {
  std::int64_t delay_ns = 0;     // added to the call
  double drop_probability = 0;   // the request (or its reply) is lost
  double duplicate_probability = 0;
  bool down = false;  // nothing answers
};

class LinkFaults {
 public:
  explicit LinkFaults(std::uint64_t seed) : random_(seed) {}
  // Holds `fault` from `from_ns` for its duration (network delay, drop, duplicate, partition,
  // store slow, store down; other kinds are ignored here).
  void add(const sim::Fault& fault, std::int64_t from_ns);
  // Ends every fault at `now_ns` (the quiet phase).
  void heal() { active_.clear(); }
  // What holds at `now_ns` between the nodes named `from` and `to`.
  LinkTrouble trouble(const std::string& from, const std::string& to, std::int64_t now_ns) const;
  // A draw against `probability`.
  bool happens(double probability);

 private:
  struct Active {
    sim::Fault fault;
    std::int64_t from_ns;
  };
  std::vector<Active> active_;
  std::mt19937_64 random_;
};

}  // namespace fencesim::real
