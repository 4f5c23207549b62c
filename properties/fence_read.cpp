#include "properties/fence_read.h"

#include <charconv>

namespace fencesim::properties {

std::optional<FenceRead> parse_fence_read(std::string_view text) {
  constexpr std::string_view kUntil = "until ";
  if (!text.starts_with(kUntil)) return std::nullopt;
  text.remove_prefix(kUntil.size());
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  FenceRead read;
  const auto [end, error] = std::from_chars(text.data(), text.data() + space, read.until);
  if (error != std::errc() || end != text.data() + space) return std::nullopt;
  std::string_view rest = text.substr(space + 1);
  if (rest == "held") {
    read.held = true;
  } else if (rest.starts_with("lost")) {
    rest.remove_prefix(4);
    if (rest.starts_with(' ')) rest.remove_prefix(1);
    read.lost_code = rest;
  } else {
    return std::nullopt;
  }
  return read;
}

}  // namespace fencesim::properties
