#include "sim/random.h"

#include <xxhash.h>

#include "runtime/check.h"

namespace fencesim::sim {
namespace {

// splitmix64: the seeding function recommended by the xoshiro authors; consecutive seeds give
// unrelated states.
std::uint64_t splitmix64(std::uint64_t& x) {
  x += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__extension__ using Uint128 = unsigned __int128;

}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (std::uint64_t& word : state_) word = splitmix64(seed);
}

std::uint64_t Rng::below(std::uint64_t n) {
  check(n > 0, "Rng::below needs n > 0");
  Uint128 product = Uint128{next()} * n;
  auto low = static_cast<std::uint64_t>(product);
  if (low < n) {
    // Values of `low` under 2^64 mod n would make some results more likely: redraw them.
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      product = Uint128{next()} * n;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

double Rng::unit() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

bool Rng::chance(double p) {
  return unit() < p;
}

std::int64_t Rng::between(std::int64_t lo, std::int64_t hi) {
  check(lo <= hi, "Rng::between needs lo <= hi");
  // Two's complement arithmetic on the unsigned images gives the width without overflow.
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  const std::uint64_t offset = span == UINT64_MAX ? next() : below(span + 1);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
}

Rng derive_stream(std::uint64_t run_seed, std::string_view stream_name) {
  return Rng(XXH3_64bits_withSeed(stream_name.data(), stream_name.size(), run_seed));
}

}  // namespace fencesim::sim
