#pragma once
// A hash of an oracle's lookup key, from its names' hashes (XXH3 of their bytes, worked out once
// per name), so that a map only ever looked up, never walked, finds a key without comparing names
// along a tree's path. Only for maps whose order reaches no verdict and no message: an oracle's
// walk over a hashed map would report in an order no spec fixes.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>

#include "sim/name.h"

namespace fencesim::properties {

struct KeyHash {
  static std::size_t mix(std::size_t seed, std::size_t value) noexcept {
    return seed ^ (value + 0x9E3779B97F4A7C15ULL + (seed << 6) + (seed >> 2));
  }
  std::size_t operator()(const sim::Name& name) const noexcept { return name.hash(); }
  std::size_t operator()(const sim::NameKey& key) const noexcept {
    return mix(key.tenant_id.hash(), key.lease_execution_id.hash());
  }
  std::size_t operator()(const std::string& text) const noexcept {
    return std::hash<std::string>{}(text);
  }
  template <std::integral Number>
  std::size_t operator()(Number number) const noexcept {
    return static_cast<std::size_t>(static_cast<std::uint64_t>(number) * 0x9E3779B97F4A7C15ULL);
  }
  template <typename A, typename B>
  std::size_t operator()(const std::pair<A, B>& pair) const noexcept {
    return mix((*this)(pair.first), (*this)(pair.second));
  }
  template <typename... Parts>
  std::size_t operator()(const std::tuple<Parts...>& parts) const noexcept {
    return std::apply(
        [this](const auto&... part) {
          std::size_t seed = 0;
          ((seed = mix(seed, (*this)(part))), ...);
          return seed;
        },
        parts);
  }
  // A key type that names its parts (HeldToken).
  template <typename Key>
    requires requires(const Key& key) { key.tie(); }
  std::size_t operator()(const Key& key) const noexcept {
    return (*this)(key.tie());
  }
};

}  // namespace fencesim::properties
