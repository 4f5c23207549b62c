#include "scenarios/hostile_names.h"

#include <array>

namespace fencesim::scenarios {

namespace {

using namespace std::string_literals;

template <std::size_t N>
std::string_view pick(sim::Rng& rng, const std::array<std::string_view, N>& choices) {
  return choices[rng.below(N)];
}

// Puts `piece` before, inside or after `plain`.
std::string place(sim::Rng& rng, std::string_view plain, std::string_view piece) {
  const std::string text(plain);
  switch (rng.below(3)) {
    case 0:
      return std::string(piece) + text;
    case 1: {
      // Inside, at a character's start: a piece put inside a multi-byte character would make
      // bytes that are not UTF-8, which name() does not draw.
      std::size_t at = text.empty() ? 0 : rng.below(text.size() + 1);
      while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
      return text.substr(0, at) + std::string(piece) + text.substr(at);
    }
    default:
      return text + std::string(piece);
  }
}

constexpr std::array<std::string_view, 4> kPercent{"%", "%3A", "%2F", "%zz"};
constexpr std::array<std::string_view, 4> kSpace{" ", "  ", "\t", " \n"};
// UTF-8: a-umlaut, sharp s, CJK "order", e + combining acute, a right-to-left mark.
constexpr std::array<std::string_view, 5> kNonAscii{
    "\xC3\xA4", "\xC3\x9F", "\xE6\xB3\xA8\xE6\x96\x87", "e\xCC\x81", "\xE2\x80\x8F"};
// A receipt, a flag (two regional indicators), a family joined by ZWJs, a skin-tone modifier.
constexpr std::array<std::string_view, 4> kEmoji{
    "\xF0\x9F\xA7\xBE", "\xF0\x9F\x87\xA9\xF0\x9F\x87\xAA",
    "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7",
    "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD"};
// A lone continuation byte, an overlong '/', 0xff, a truncated 3-byte sequence.
constexpr std::array<std::string_view, 4> kNotUtf8{"\x80", "\xC0\xAF", "\xFF", "\xE6\xB3"};

std::string nul_inside(sim::Rng& rng, std::string_view plain) {
  return place(rng, plain, "\0"s);
}

std::string long_name(sim::Rng& rng, std::string_view plain) {
  const auto length = static_cast<std::size_t>(rng.between(256, 700));
  std::string name(plain);
  static constexpr std::array<std::string_view, 6> kFill{"-", ":", "%", "/", "\xC3\xA4", "x"};
  while (name.size() < length) name += rng.chance(0.8) ? "x"s : std::string(pick(rng, kFill));
  return name;
}

}  // namespace

bool is_hostile(std::string_view name) {
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                       (byte >= '0' && byte <= '9') || byte == '-' || byte == '_' || byte == '.';
    if (!plain) return true;
  }
  return name.size() > 200;
}

HostileNames::HostileNames(sim::Rng rng, double hostile_share)
    : rng_(rng), hostile_share_(hostile_share) {}

std::string HostileNames::of_kind(NameKind kind, std::string_view plain) {
  switch (kind) {
    case NameKind::kPlain:
      return std::string(plain);
    case NameKind::kColon:
      return place(rng_, plain, ":");
    case NameKind::kPercent:
      return place(rng_, plain, pick(rng_, kPercent));
    case NameKind::kSlash:
      return place(rng_, plain, "/");
    case NameKind::kSpace:
      return place(rng_, plain, pick(rng_, kSpace));
    case NameKind::kNonAscii:
      return place(rng_, plain, pick(rng_, kNonAscii));
    case NameKind::kEmoji:
      return place(rng_, plain, pick(rng_, kEmoji));
    case NameKind::kNul:
      return nul_inside(rng_, plain);
    case NameKind::kNotUtf8:
      return place(rng_, plain, pick(rng_, kNotUtf8));
    case NameKind::kLong:
      return long_name(rng_, plain);
    case NameKind::kMixed: {
      std::string name(plain);
      const auto count = rng_.between(2, 4);
      for (std::int64_t i = 0; i < count; ++i) {
        // Any kind but plain, not-UTF-8, long and mixed: a mixed name stays readable in a trace.
        auto part = static_cast<NameKind>(1 + rng_.below(kNameKinds - 3));
        if (part == NameKind::kNotUtf8) part = NameKind::kColon;
        name = of_kind(part, name);
      }
      return name;
    }
  }
  return std::string(plain);
}

std::string HostileNames::name(std::string_view plain, const std::string& scope) {
  // Two draws every time, whatever the share, so a changed share shifts no later draw.
  const bool hostile = rng_.chance(hostile_share_);
  auto kind = static_cast<NameKind>(1 + rng_.below(kNameKinds - 1));
  // Not drawn: ADR-0023's ids are JavaScript strings, which hold no invalid UTF-8 (its analog, a
  // lone surrogate, makes encodeURIComponent throw). Used on purpose, of_kind(kNotUtf8) still
  // gives such a name.
  if (kind == NameKind::kNotUtf8) kind = NameKind::kMixed;
  return unique(hostile ? of_kind(kind, plain) : std::string(plain), scope);
}

std::string HostileNames::unique(std::string name, const std::string& scope) {
  if (name.empty()) name = "-";
  const std::string base = name;
  for (int n = 2; !taken_.emplace(scope, name).second; ++n) name = base + "-" + std::to_string(n);
  return name;
}

std::vector<std::string> child_key_twins(const std::string& parent_execution_id,
                                         const std::string& child_path) {
  // The encoded form: '%' and '/' escaped as encodeURIComponent would (written out here: a
  // workload never borrows the runtime's encoder).
  std::string encoded_path;
  for (const char c : child_path) {
    if (c == '/') {
      encoded_path += "%2F";
    } else if (c == '%') {
      encoded_path += "%25";
    } else if (c == ':') {
      encoded_path += "%3A";
    } else {
      encoded_path += c;
    }
  }
  // The last: the runtime's own marker of a child's lease id ("@child:", which only a root's id
  // may not start with) inside a root's id, as a user's id may hold any text.
  return {parent_execution_id + "/" + child_path, parent_execution_id + "%2F" + encoded_path,
          parent_execution_id + ":" + encoded_path, parent_execution_id + "/" + encoded_path,
          parent_execution_id + "@child:" + encoded_path};
}

std::pair<runtime::LeaseKey, runtime::LeaseKey> naive_join_twins(const std::string& tenant,
                                                                 const std::string& execution) {
  return {runtime::LeaseKey{tenant, "x:" + execution}, runtime::LeaseKey{tenant + ":x", execution}};
}

}  // namespace fencesim::scenarios
