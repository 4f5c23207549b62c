// Scope keys from outside (a store's rows, a sink's high-water marks, a trace): split_scope_key and
// decode_uri_component. Accepted keys round-trip through make_scope_key; any bytes round-trip
// through encode/decode; malformed escapes are refused with ScopeKeyError in one line.
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "runtime/scope_key.h"

using fencesim::fuzz::check;
using fencesim::fuzz::check_one_line;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace runtime = fencesim::runtime;
  const std::string text(fencesim::fuzz::as_text(data, size));
  try {
    const std::vector<std::string> parts = runtime::split_scope_key(text);
    check(!parts.empty(), "split_scope_key returned no part");
    check(runtime::split_scope_key(runtime::make_scope_key(parts)) == parts,
          "split(make(split(key))) != split(key)");
  } catch (const runtime::ScopeKeyError& error) {
    check_one_line(error);
  }
  try {
    const std::string decoded = runtime::decode_uri_component(text);
    check(runtime::decode_uri_component(runtime::encode_uri_component(decoded)) == decoded,
          "decode(encode(decode(text))) != decode(text)");
  } catch (const runtime::ScopeKeyError& error) {
    check_one_line(error);
  }
  // Any bytes, as parts: encoded, joined and split back unchanged (':' and '%' included).
  const std::vector<std::string> parts{text, std::string(text.rbegin(), text.rend()), ""};
  check(runtime::split_scope_key(runtime::make_scope_key(parts)) == parts,
        "split(make(parts)) != parts");
  check(runtime::decode_uri_component(runtime::encode_uri_component(text)) == text,
        "decode(encode(bytes)) != bytes");
  return 0;
}
