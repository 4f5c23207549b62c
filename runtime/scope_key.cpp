#include "runtime/scope_key.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <optional>

#include "runtime/check.h"

namespace fencesim::runtime {
namespace {

constexpr char kSeparator = ':';
constexpr std::string_view kHexDigits = "0123456789ABCDEF";

// The characters encodeURIComponent leaves alone (ECMA-262 uriUnreserved).
bool is_unreserved(char c) {
  if (c >= 'A' && c <= 'Z') return true;
  if (c >= 'a' && c <= 'z') return true;
  if (c >= '0' && c <= '9') return true;
  return std::string_view("-_.!~*'()").find(c) != std::string_view::npos;
}

std::optional<unsigned> hex_value(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  return std::nullopt;
}

// Decodes one part; key_offset is where the part starts in its key, so that an error names the
// offset the caller can find in the string it passed.
std::string decode_at(std::string_view encoded, std::size_t key_offset) {
  std::string decoded;
  decoded.reserve(encoded.size());
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      decoded.push_back(encoded[i]);
      continue;
    }
    if (i + 2 >= encoded.size()) {
      throw ScopeKeyError(fmt::format(
          "truncated percent-escape at offset {}: '%' needs two hex digits", key_offset + i));
    }
    const std::optional<unsigned> high = hex_value(encoded[i + 1]);
    const std::optional<unsigned> low = hex_value(encoded[i + 2]);
    if (!high || !low) {
      throw ScopeKeyError(fmt::format(
          "malformed percent-escape at offset {}: '%' needs two hex digits", key_offset + i));
    }
    decoded.push_back(static_cast<char>(*high * 16 + *low));
    i += 2;
  }
  return decoded;
}

// Each byte's encoding, worked out once: the byte itself, or '%' and two hex digits. A holder
// encodes a scope key for every take it sends, and hostile ids are hundreds of bytes long, so the
// loop below copies a byte's whole entry (four bytes) without a branch and moves on by its size.
struct EncodedByte {
  std::array<char, 4> text{};
  std::size_t size = 0;
};

const std::array<EncodedByte, 256>& encoded_bytes() {
  static const std::array<EncodedByte, 256> table = [] {
    std::array<EncodedByte, 256> out{};
    for (std::size_t byte = 0; byte < out.size(); ++byte) {
      if (is_unreserved(static_cast<char>(byte))) {
        out[byte].text[0] = static_cast<char>(byte);
        out[byte].size = 1;
        continue;
      }
      out[byte].text = {'%', kHexDigits[byte >> 4], kHexDigits[byte & 0xF], '\0'};
      out[byte].size = 3;
    }
    return out;
  }();
  return table;
}

// Appends the encoding of `utf8` to `out`, written in place: room for the longest encoding is
// made first (every byte escaped, and one more byte, since each copy writes four) and what is
// left over is cut at the end.
void append_encoded(std::string& out, std::string_view utf8) {
  const std::array<EncodedByte, 256>& encoded = encoded_bytes();
  const std::size_t start = out.size();
  out.resize(start + 3 * utf8.size() + 1);
  char* write = out.data() + start;
  for (const char c : utf8) {
    const EncodedByte& entry = encoded[static_cast<unsigned char>(c)];
    std::memcpy(write, entry.text.data(), entry.text.size());
    write += entry.size;
  }
  out.resize(static_cast<std::size_t>(write - out.data()));
}

}  // namespace

std::string encode_uri_component(std::string_view utf8) {
  std::string encoded;
  append_encoded(encoded, utf8);
  return encoded;
}

std::string decode_uri_component(std::string_view encoded) {
  return decode_at(encoded, 0);
}

namespace {

// Encodes each part into one key, joined by one ':'. The parts are read where they are (a lease's
// ids are not copied into a list first): a holder builds a scope key for every take it sends.
template <typename Parts>
std::string join_encoded(const Parts& parts) {
  if (parts.size() == 0) throw ScopeKeyError("a scope key needs at least one part");
  std::string key;
  bool first = true;
  for (const std::string_view part : parts) {
    if (!first) key.push_back(kSeparator);
    first = false;
    append_encoded(key, part);
  }
  // The encoding writes NUL as %00; a raw NUL here would be refused by PostgreSQL TEXT.
  check(key.find('\0') == std::string::npos, "a scope key never contains a NUL byte");
  return key;
}

}  // namespace

std::string make_scope_key(std::span<const std::string> parts) {
  return join_encoded(parts);
}

std::string make_scope_key(std::initializer_list<std::string_view> parts) {
  return join_encoded(parts);
}

std::string make_scope_key(const LeaseKey& key) {
  return join_encoded(std::initializer_list<std::string_view>{key.tenant_id, key.lease_execution_id});
}

std::vector<std::string> split_scope_key(std::string_view key) {
  const std::size_t nul = key.find('\0');
  if (nul != std::string_view::npos) {
    throw ScopeKeyError(fmt::format("raw NUL byte at offset {}: a scope key never holds one", nul));
  }
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = key.find(kSeparator, start);
    const std::size_t length = end == std::string_view::npos ? key.size() - start : end - start;
    parts.push_back(decode_at(key.substr(start, length), start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace fencesim::runtime
