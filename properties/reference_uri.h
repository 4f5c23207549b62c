#pragma once
// The oracle's own encodeURIComponent and scope-key rules, written from ECMA-262 (Encode with the
// unreserved set A-Z a-z 0-9 - _ . ! ~ * ' ( ), every other byte of the UTF-8 input as %XX in upper
// case) and ADR-0023 (parts joined by one ':'), sharing no code with runtime/scope_key.*. Its unit
// test holds it to the table JavaScript itself produced (properties/tests/data/, made by
// tools/gen-uri-table.js), so the oracle's reference is JavaScript's, not the runtime's.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/types.h"

namespace fencesim::properties {

std::string reference_encode_uri_component(std::string_view bytes);
// The scope key a lease key must have: both parts encoded, joined by ':'.
std::string reference_scope_key(const runtime::LeaseKey& key);
// The parts of a well-formed scope key (only unreserved bytes and %XX escapes in upper-case hex,
// parts separated by ':', every escape one that encodeURIComponent would write), or nullopt.
std::optional<std::vector<std::string>> reference_split_scope_key(std::string_view scope_key);
// A step path as names joined by '/', each name as written or encoded (the runtime may spell a
// name in a path either way; the ADR does not say, so the oracles look both up).
std::string reference_step_path(const std::vector<std::string>& names, bool encoded);

}  // namespace fencesim::properties
