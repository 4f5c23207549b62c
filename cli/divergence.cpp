#include "cli/divergence.h"

#include <algorithm>

namespace fencesim::cli {

std::optional<std::size_t> first_divergence(const std::vector<std::uint64_t>& first,
                                            const std::vector<std::uint64_t>& second) {
  const auto [left, right] =
      std::mismatch(first.begin(), first.end(), second.begin(), second.end());
  // Equal only when both ended together: a history that goes on past the other's end diverges at
  // the first event the other lacks.
  if (left == first.end() && right == second.end()) return std::nullopt;
  return static_cast<std::size_t>(left - first.begin());
}

}  // namespace fencesim::cli
