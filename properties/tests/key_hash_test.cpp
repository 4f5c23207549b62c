// KeyHash (properties/key_hash.h): the oracles' hashed maps look keys up by names a world interned
// and by names built outside it (a parent's key converted from a runtime::LeaseKey, a test's own
// names), so a key must hash and compare alike whichever made its names, or a lookup misses a key
// that is there and an oracle goes quiet.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "properties/history_support.h"
#include "properties/key_hash.h"
#include "sim/name.h"

namespace fencesim::properties {
namespace {

TEST(KeyHash, AKeyHashesAlikeInternedOrNot) {
  sim::NameTable table;
  const std::string tenant(700, 'x');
  const sim::NameKey interned{table.intern(std::string_view(tenant)),
                              table.intern(std::string_view("order-1"))};
  const sim::NameKey built(runtime::LeaseKey{tenant, "order-1"});
  const KeyHash hash;
  EXPECT_EQ(hash(interned), hash(built));
  EXPECT_EQ(hash(HeldToken{table.intern(std::string_view("instance-1")), interned, 3}),
            hash(HeldToken{sim::Name("instance-1"), built, 3}));
  EXPECT_EQ(hash(std::make_pair(sim::Name("instance-1"), built)),
            hash(std::make_pair(table.intern(std::string_view("instance-1")), interned)));
  EXPECT_EQ(hash(std::make_tuple(built, std::uint64_t{3}, sim::Name("a/b"))),
            hash(std::make_tuple(interned, std::uint64_t{3}, table.intern(std::string_view("a/b")))));

  std::unordered_map<HeldToken, int, KeyHash> lost;
  lost.try_emplace(HeldToken{table.intern(std::string_view("instance-1")), interned, 3}, 1);
  EXPECT_TRUE(lost.contains(HeldToken{sim::Name("instance-1"), built, 3}));
  EXPECT_FALSE(lost.contains(HeldToken{sim::Name("instance-1"), built, 4}));
  EXPECT_FALSE(lost.contains(HeldToken{sim::Name("instance-2"), built, 3}));
}

TEST(KeyHash, KeysThatDifferInAnyPartAreTold) {
  // Not a promise that hashes never collide: that the parts all reach the hash, so a map of
  // thousands of keys spreads them (a part left out would put every key of one holder in one
  // bucket, and an oracle's walk would be quadratic).
  const KeyHash hash;
  std::unordered_set<std::size_t> seen;
  for (int tenant = 0; tenant < 4; ++tenant) {
    for (int execution = 0; execution < 4; ++execution) {
      for (std::uint64_t token = 1; token <= 4; ++token) {
        for (int holder = 0; holder < 4; ++holder) {
          const sim::NameKey key(runtime::LeaseKey{"tenant-" + std::to_string(tenant),
                                                   "order-" + std::to_string(execution)});
          seen.insert(hash(HeldToken{sim::Name("instance-" + std::to_string(holder)), key, token}));
        }
      }
    }
  }
  EXPECT_EQ(seen.size(), 4u * 4u * 4u * 4u);
}

}  // namespace
}  // namespace fencesim::properties
