#pragma once
// Bytes to lowercase hex and back: lease keys, holders and step paths may hold any byte (NUL,
// invalid UTF-8), so they travel to PostgreSQL as hex text and are stored as bytea
// (decode($1, 'hex')), which needs no binary parameter handling in libpqxx 6.
#include <string>
#include <string_view>

namespace fencesim::stores {

std::string to_hex(std::string_view bytes);
// REQUIRES: `hex` has an even length of [0-9a-f] digits (what PostgreSQL's encode() returns).
std::string from_hex(std::string_view hex);

}  // namespace fencesim::stores
