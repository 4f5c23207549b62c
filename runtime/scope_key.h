#pragma once
// Scope keys of ADR-0023: the lease a step runs under is named by a string built from its parts
// (tenantId, leaseExecutionId), each part encodeURIComponent-encoded and joined by one ':'. The
// encoding keeps ':' out of every encoded part, so the key is decodable and two different part
// lists never give the same key (no cross-tenant collision); plain and UUID ids pass unchanged; and
// a key never holds a NUL byte, which PostgreSQL TEXT rejects.
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/types.h"

namespace fencesim::runtime {

// Malformed input to decode_uri_component or split_scope_key, or a scope key without parts. Bad
// input is expected (keys come back from stores), so this is an error, not a check().
class ScopeKeyError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Exactly JavaScript's encodeURIComponent, applied to bytes: the unreserved characters
// A-Z a-z 0-9 - _ . ! ~ * ' ( ) are kept and every other byte becomes %XX in upper-case hex.
// JavaScript encodes UTF-16 and throws on a lone surrogate; here the input is bytes, so every byte
// is encoded, including bytes that are not valid UTF-8. For valid UTF-8 the result is identical.
std::string encode_uri_component(std::string_view utf8);

// The inverse of encode_uri_component, like JavaScript's decodeURIComponent: each %XX (either hex
// case) becomes its byte and every other byte stays as it is. The result is bytes; invalid UTF-8
// is not rejected. %00 decodes to a NUL byte: a part may hold one, only its key may not.
// Throws ScopeKeyError naming the offset of a '%' that is not followed by two hex digits.
std::string decode_uri_component(std::string_view encoded);

// Encodes each part and joins them with one ':'. REQUIRES nothing of the parts (any bytes, empty
// parts allowed). Throws ScopeKeyError for an empty list: an ADR scope key always has parts, and
// no key could tell zero parts from one empty part.
std::string make_scope_key(std::span<const std::string> parts);
std::string make_scope_key(std::initializer_list<std::string_view> parts);

// The scope key of a lease: make_scope_key({tenant_id, lease_execution_id}).
std::string make_scope_key(const LeaseKey& key);

// Splits on ':' and decodes each part: split_scope_key(make_scope_key(p)) == p for every p.
// An empty key is one empty part. Throws ScopeKeyError for a malformed escape (offsets count from
// the start of the key) and for a raw NUL byte, which make_scope_key never writes.
std::vector<std::string> split_scope_key(std::string_view key);

}  // namespace fencesim::runtime
