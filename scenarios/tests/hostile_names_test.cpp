// Hostile names: drawn the same for the same seed, hostile in the share asked for, never empty,
// distinct within a scope, always valid UTF-8 (ADR-0023's ids are JavaScript strings), and the
// twins of a child's key are the forms a naming scheme could give it.
#include "scenarios/hostile_names.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fencesim::scenarios::hostile_names_test {
namespace {

// Whether `text` is well-formed UTF-8 (no overlong forms, no lone continuation bytes).
bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = byte < 0x80                   ? 1
                         : byte >= 0xC2 && byte < 0xE0 ? 2
                         : byte >= 0xE0 && byte < 0xF0 ? 3
                         : byte >= 0xF0 && byte < 0xF5 ? 4
                                                       : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

TEST(HostileNames, SameSeedSameNames) {
  HostileNames a(sim::Rng(7), 0.5);
  HostileNames b(sim::Rng(7), 0.5);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(a.name("order"), b.name("order"));
}

TEST(HostileNames, DrawnNamesAreHostileInTheirShareDistinctAndValidUtf8) {
  HostileNames names(sim::Rng(3), 0.5);
  std::set<std::string> seen;
  int hostile = 0;
  bool nul = false;
  for (int i = 0; i < 2000; ++i) {
    const std::string name = names.name("step", "level");
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(seen.insert(name).second) << name;
    EXPECT_TRUE(valid_utf8(name)) << name;
    hostile += is_hostile(name) ? 1 : 0;
    nul = nul || name.find('\0') != std::string::npos;
  }
  EXPECT_GT(hostile, 800);
  EXPECT_LT(hostile, 1200);
  EXPECT_TRUE(nul);
  HostileNames plain(sim::Rng(3), 0.0);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(is_hostile(plain.name("step")));
}

TEST(HostileNames, EveryKindHoldsWhatItSays) {
  HostileNames names(sim::Rng(1), 1.0);
  EXPECT_NE(names.of_kind(NameKind::kColon, "a").find(':'), std::string::npos);
  EXPECT_NE(names.of_kind(NameKind::kSlash, "a").find('/'), std::string::npos);
  EXPECT_NE(names.of_kind(NameKind::kPercent, "a").find('%'), std::string::npos);
  EXPECT_NE(names.of_kind(NameKind::kNul, "a").find('\0'), std::string::npos);
  EXPECT_GE(names.of_kind(NameKind::kLong, "a").size(), 256u);
  EXPECT_FALSE(valid_utf8(names.of_kind(NameKind::kNotUtf8, "a")));
}

TEST(HostileNames, TwinsOfAChildKeyAndOfANaiveJoin) {
  const std::vector<std::string> twins = child_key_twins("order-1", "children/invoice");
  EXPECT_EQ(twins.at(0), "order-1/children/invoice");
  EXPECT_EQ(twins.at(1), "order-1%2Fchildren%2Finvoice");
  // The reserved marker of a child's lease id, after the first byte: a root's id may hold it.
  EXPECT_EQ(twins.at(4), "order-1@child:children%2Finvoice");
  const auto [first, second] = naive_join_twins("t", "o");
  EXPECT_EQ(first.tenant_id + ":" + first.lease_execution_id,
            second.tenant_id + ":" + second.lease_execution_id);
  EXPECT_NE(first, second);
}

// A child's path is made of encoded names (runtime::join_path: "a:b" is "a%3Ab"), so it holds '%'
// whenever a name was hostile; the encoded twins encode that '%' again, as encodeURIComponent of
// the whole join would, or they name a key no naming scheme gives.
TEST(HostileNames, TheEncodedTwinsEscapeThePercentOfAnEncodedPath) {
  const std::vector<std::string> twins = child_key_twins("order-1", "children/a%3Ab");
  EXPECT_EQ(twins.at(0), "order-1/children/a%3Ab");
  EXPECT_EQ(twins.at(1), "order-1%2Fchildren%2Fa%253Ab");
  EXPECT_EQ(twins.at(2), "order-1:children%2Fa%253Ab");
  EXPECT_EQ(twins.at(3), "order-1/children%2Fa%253Ab");
  EXPECT_EQ(twins.at(4), "order-1@child:children%2Fa%253Ab");
}

// A path the runtime joined never holds a raw ':' (its names are encoded), but the encoded forms
// are encodeURIComponent's spelling of whatever they are given, ':' as %3A among the rest (red
// team 35b-26: ':' left raw).
TEST(HostileNames, TheEncodedTwinsEscapeARawColon) {
  const std::vector<std::string> twins = child_key_twins("p", "c:d/e");
  EXPECT_EQ(twins.at(1), "p%2Fc%3Ad%2Fe");
  EXPECT_EQ(twins.at(2), "p:c%3Ad%2Fe");
  EXPECT_EQ(twins.at(4), "p@child:c%3Ad%2Fe");
}

// Each form's name (the marks child-key-twin-<form>-ran) names the twin at its index: a list out of
// order blames a form that ran for one that did not (red team 34a: colon-join and encoded-join
// swapped, every claim still met).
TEST(HostileNames, EachTwinFormIsNamedAfterWhatItJoins) {
  const std::vector<std::string> twins = child_key_twins("p", "c/d");
  ASSERT_EQ(twins.size(), kChildKeyTwinForms.size());
  const std::map<std::string_view, std::string> expected{
      {"raw-join", "p/c/d"},           {"encoded-join", "p%2Fc%2Fd"}, {"colon-join", "p:c%2Fd"},
      {"half-encoded-join", "p/c%2Fd"}, {"child-marker", "p@child:c%2Fd"}};
  for (std::size_t form = 0; form < kChildKeyTwinForms.size(); ++form) {
    ASSERT_TRUE(expected.contains(kChildKeyTwinForms[form])) << kChildKeyTwinForms[form];
    EXPECT_EQ(twins[form], expected.at(kChildKeyTwinForms[form])) << kChildKeyTwinForms[form];
  }
}

// A mixed name holds two to four hostile pieces around its plain name, each added to the name
// built so far: at least two bytes besides the plain "a" (every piece has one or more).
TEST(HostileNames, AMixedNameHoldsSeveralPieces) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    HostileNames names(sim::Rng(seed), 1.0);
    const std::string name = names.of_kind(NameKind::kMixed, "a");
    EXPECT_GE(name.size(), 3u) << "seed " << seed << ": '" << name << "'";
    EXPECT_TRUE(is_hostile(name)) << "seed " << seed;
  }
}

// A mixed name's pieces are the short hostile kinds, a NUL among them, and never a long one: it
// stays readable in a trace (red team 34a: the kinds reordered so that NUL fell among the last
// three, a mixed name never held one and could be 700 bytes long; every claim stayed met).
TEST(HostileNames, AMixedNamesPiecesAreTheShortKindsNulAmongThem) {
  bool nul = false;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    HostileNames names(sim::Rng(seed), 1.0);
    const std::string name = names.of_kind(NameKind::kMixed, "a");
    EXPECT_LT(name.size(), 256u) << "seed " << seed;
    nul = nul || name.find('\0') != std::string::npos;
  }
  EXPECT_TRUE(nul) << "no mixed name of 200 held a NUL";
}

}  // namespace
}  // namespace fencesim::scenarios::hostile_names_test
