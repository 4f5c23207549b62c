#include "properties/reference_uri.h"

#include <array>

namespace fencesim::properties {

namespace {

bool unreserved(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("-_.!~*'()").find(static_cast<char>(c)) != std::string_view::npos;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // lower-case hex is never written by encodeURIComponent
}

}  // namespace

std::string reference_encode_uri_component(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  // unreserved() per byte value, once: the oracles encode every key and step path they judge.
  static const std::array<bool, 256> kKept = [] {
    std::array<bool, 256> kept{};
    for (unsigned c = 0; c < kept.size(); ++c) kept[c] = unreserved(static_cast<unsigned char>(c));
    return kept;
  }();
  // Sized first (each escape is two bytes more), then written.
  std::size_t escapes = 0;
  for (const char ch : bytes) escapes += kKept[static_cast<unsigned char>(ch)] ? 0u : 1u;
  std::string out(bytes.size() + 2 * escapes, '\0');
  char* next = out.data();
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (kKept[c]) {
      *next++ = ch;
    } else {
      *next++ = '%';
      *next++ = kHex[c >> 4];
      *next++ = kHex[c & 0xf];
    }
  }
  return out;
}

std::string reference_scope_key(const runtime::LeaseKey& key) {
  return reference_encode_uri_component(key.tenant_id) + ":" +
         reference_encode_uri_component(key.lease_execution_id);
}

std::optional<std::vector<std::string>> reference_split_scope_key(std::string_view scope_key) {
  std::vector<std::string> parts(1);
  for (std::size_t i = 0; i < scope_key.size(); ++i) {
    const char ch = scope_key[i];
    if (ch == ':') {
      parts.emplace_back();
    } else if (ch == '%') {
      if (i + 2 >= scope_key.size()) return std::nullopt;
      const int high = hex_value(scope_key[i + 1]);
      const int low = hex_value(scope_key[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      const auto byte = static_cast<unsigned char>(high * 16 + low);
      if (unreserved(byte)) return std::nullopt;  // encodeURIComponent keeps it as it is
      parts.back() += static_cast<char>(byte);
      i += 2;
    } else if (unreserved(static_cast<unsigned char>(ch))) {
      parts.back() += ch;
    } else {
      return std::nullopt;  // a byte encodeURIComponent never leaves raw
    }
  }
  return parts;
}

std::string reference_step_path(const std::vector<std::string>& names, bool encoded) {
  std::string out;
  for (const std::string& part : names) {
    if (!out.empty()) out += '/';
    out += encoded ? reference_encode_uri_component(part) : part;
  }
  return out;
}

}  // namespace fencesim::properties
