#pragma once
// Durations as a spec writes them: "250ms", "1.5s", "-2s", "2m". Exact: integer nanoseconds.
#include <cstdint>
#include <string>
#include <string_view>

namespace fencesim::scenarios::spec {

// "250ms", "1.5s", "-2s", "0": a signed count of nanoseconds. Units: ns, us, ms, s, m, h. Returns
// a message on error ("" for none), so that the caller can name the key and line.
std::string parse_duration(std::string_view text, std::int64_t& out);

// "45s", "31.25s", "120ms": the inverse of parse_duration for messages.
std::string format_duration(std::int64_t ns);

}  // namespace fencesim::scenarios::spec
