#pragma once
// Where two runs of one seed part (check-determinism): the first event whose rolling history hash
// differs, or the end of the shorter history when one is a prefix of the other. Only histories of
// one length and every hash alike are equal; then the runs differ in their verdicts alone.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace fencesim::cli {

// The index of the first event at which `first` and `second` (each history's rolling hashes)
// differ, counting an event one history has and the other lacks; nullopt when they are equal.
std::optional<std::size_t> first_divergence(const std::vector<std::uint64_t>& first,
                                            const std::vector<std::uint64_t>& second);

}  // namespace fencesim::cli
