#pragma once
// A fault in words, for hand-written scenarios:
//   stall("instance-1").after(EventKind::kWriteSent).lasting_between(35 * kSecond, 60 * kSecond)
// Ranges are drawn from the run's fault stream when the world is built, so a scenario's story
// stays fixed while its timing varies with the seed.
#include <string>

#include "sim/fault.h"
#include "sim/random.h"

namespace fencesim::scenarios {

class FaultSpec {
 public:
  FaultSpec(sim::FaultKind kind, std::string node);

  // Fires at a virtual time (drawn in [low, high] when given a range).
  FaultSpec& at(std::int64_t time_ns);
  FaultSpec& at_between(std::int64_t low_ns, std::int64_t high_ns);
  // Fires right after the `occurrence`-th `event` at the node (plus `delay_ns`).
  FaultSpec& after(runtime::EventKind event, int occurrence = 1, std::int64_t delay_ns = 0);
  // The same, for an event at another node than the fault's.
  FaultSpec& after_at(std::string node, runtime::EventKind event, int occurrence = 1,
                      std::int64_t delay_ns = 0);
  // Aims the trigger (after() first) at a deadline its event sets (sim::Aim): the fault fires at
  // the deadline plus a delay drawn in [low, high], signed ("5 ms before the holder's expiry").
  FaultSpec& aimed_at(sim::Aim deadline, std::int64_t low_ns = 0, std::int64_t high_ns = 0);
  // Aims it at the next message its node sends after the event, while it is on the wire: at a
  // point drawn in [low, high] per mille of the way from its departure to its arrival.
  FaultSpec& in_flight(int low_permille = 100, int high_permille = 900);
  // The fault lasts until a deadline its trigger's event sets, plus a delay drawn in [low, high]
  // (signed), instead of a duration.
  FaultSpec& until(sim::Aim deadline, std::int64_t low_ns = 0, std::int64_t high_ns = 0);
  FaultSpec& lasting(std::int64_t duration_ns);
  FaultSpec& lasting_between(std::int64_t low_ns, std::int64_t high_ns);
  FaultSpec& amount(std::int64_t amount);  // ns or ppm, by kind
  FaultSpec& amount_between(std::int64_t low, std::int64_t high);
  FaultSpec& probability(double p);
  FaultSpec& with_peer(std::string peer);

  // The fault, its ranges drawn from `rng`.
  sim::Fault draw(sim::Rng& rng) const;

 private:
  void check_trigger() const;
  sim::Fault fault_;
  std::int64_t at_high_ns_ = 0;
  std::int64_t duration_high_ns_ = 0;
  std::int64_t amount_high_ = 0;
  std::int64_t delay_high_ns_ = 0;
  int within_high_ = 0;
  std::int64_t until_delay_high_ns_ = 0;
};

FaultSpec stall(std::string node);
FaultSpec stop(std::string node);
FaultSpec migrate(std::string node);
FaultSpec crash(std::string node);
FaultSpec clock_drift(std::string node);
FaultSpec clock_step(std::string node);
FaultSpec network_delay(std::string node);
FaultSpec network_drop(std::string node);
FaultSpec network_duplicate(std::string node);
FaultSpec partition(std::string node, std::string peer);
FaultSpec store_slow(std::string node);
FaultSpec store_down(std::string node);

}  // namespace fencesim::scenarios
