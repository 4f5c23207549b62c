#pragma once
// Seeded randomness for the simulated world. Every random choice of a run comes from an Rng derived
// from the run's seed, so a seed replays the run exactly. The generator is our own code
// (xoshiro256** seeded through splitmix64), not <random>: the standard distributions are
// implementation-defined, so the same seed could draw different values with another library.
#include <array>
#include <cstdint>
#include <string_view>

namespace fencesim::sim {

class Rng {
 public:
  // Any seed is fine, 0 included: splitmix64 spreads it over the whole 256-bit state.
  explicit Rng(std::uint64_t seed);

  // 64 uniformly distributed bits.
  std::uint64_t next() {
    const std::uint64_t result = rotate_left(state_[1] * 5, 7) * 9;
    const std::uint64_t shifted = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= shifted;
    state_[3] = rotate_left(state_[3], 45);
    return result;
  }

  // Uniform in [0, n), without modulo bias (Lemire's multiply-and-reject).
  // REQUIRES: n > 0.
  std::uint64_t below(std::uint64_t n);

  // Uniform in [0, 1) with 53 random bits.
  double unit();

  // True with probability p. Always consumes exactly one draw, whatever p is, so that changing a
  // probability in a configuration does not shift every later draw of the stream.
  bool chance(double p);

  // Uniform in [lo, hi], both inclusive. REQUIRES: lo <= hi.
  std::int64_t between(std::int64_t lo, std::int64_t hi);

 private:
  static constexpr std::uint64_t rotate_left(std::uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
  }

  std::array<std::uint64_t, 4> state_;
};

// A named stream of the run: the seed mixed with a hash (XXH3, whose output is frozen since xxHash
// 0.8) of the name. Streams are independent of each other, so adding a stream ("faults/clock")
// never reshuffles the draws of the existing ones ("scheduler", "network").
Rng derive_stream(std::uint64_t run_seed, std::string_view stream_name);

}  // namespace fencesim::sim
