#include "stores/hex.h"

#include "runtime/check.h"

namespace fencesim::stores {
namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0x0f]);
  }
  return out;
}

std::string from_hex(std::string_view hex) {
  check(hex.size() % 2 == 0, "hex text has an even length");
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = digit_value(hex[i]);
    const int low = digit_value(hex[i + 1]);
    check(high >= 0, "hex digit");
    check(low >= 0, "hex digit");
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

}  // namespace fencesim::stores
