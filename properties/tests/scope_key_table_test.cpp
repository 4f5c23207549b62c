// Scope keys against JavaScript itself: properties/tests/data/encode_uri_component.tsv holds
// thousands of strings (NUL, control characters, reserved characters, '%', ':', '/', non-ASCII,
// emoji) and what node's encodeURIComponent made of them (tools/gen-uri-table.js). The runtime's
// encoder, its scope keys and the oracle's reference encoder must all agree with it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "properties/reference_uri.h"
#include "runtime/scope_key.h"
#include "tests/paths.h"

namespace fencesim::properties::scope_key_table_test {
namespace {

struct Case {
  std::string input;    // bytes
  std::string encoded;  // what JavaScript made of them
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::vector<Case> load_table() {
  std::ifstream in(fencesim::testing::source_dir() +
                   "/properties/tests/data/encode_uri_component.tsv");
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos || tab % 2 != 0) {
      ADD_FAILURE() << "malformed line: " << line;
      continue;
    }
    Case c;
    for (std::size_t i = 0; i < tab; i += 2) {
      const int high = hex_digit(line[i]);
      const int low = hex_digit(line[i + 1]);
      if (high < 0 || low < 0) ADD_FAILURE() << "bad hex in: " << line;
      c.input += static_cast<char>(high * 16 + low);
    }
    c.encoded = line.substr(tab + 1);
    cases.push_back(std::move(c));
  }
  return cases;
}

const std::vector<Case>& table() {
  static const std::vector<Case> cases = load_table();
  return cases;
}

TEST(EncodeUriComponentTable, HoldsThousandsOfHostileCases) {
  ASSERT_GE(table().size(), 5000u);
  std::size_t nul = 0, colon = 0, percent = 0, slash = 0, four_byte = 0, control = 0;
  for (const Case& c : table()) {
    nul += c.input.find('\0') != std::string::npos;
    colon += c.input.find(':') != std::string::npos;
    percent += c.input.find('%') != std::string::npos;
    slash += c.input.find('/') != std::string::npos;
    control += c.input.find('\x1b') != std::string::npos || c.input.find('\n') != std::string::npos;
    four_byte += c.input.find('\xf0') != std::string::npos;
  }
  EXPECT_GT(nul, 100u);
  EXPECT_GT(colon, 100u);
  EXPECT_GT(percent, 100u);
  EXPECT_GT(slash, 100u);
  EXPECT_GT(control, 100u);
  EXPECT_GT(four_byte, 100u);
}

TEST(EncodeUriComponentTable, TheRuntimesEncoderIsJavaScripts) {
  std::size_t wrong = 0;
  for (const Case& c : table()) {
    const std::string got = runtime::encode_uri_component(c.input);
    if (got != c.encoded && ++wrong <= 5) {
      ADD_FAILURE() << "'" << c.input << "': runtime " << got << ", JavaScript " << c.encoded;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(EncodeUriComponentTable, TheOraclesReferenceEncoderIsJavaScripts) {
  for (const Case& c : table()) {
    ASSERT_EQ(reference_encode_uri_component(c.input), c.encoded) << c.input;
    const auto parts = reference_split_scope_key(c.encoded);
    ASSERT_TRUE(parts.has_value()) << c.encoded;
    ASSERT_EQ(*parts, std::vector<std::string>{c.input});
  }
}

TEST(EncodeUriComponentTable, ScopeKeysAreTheEncodedPartsJoinedByOneColon) {
  const std::vector<Case>& cases = table();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& tenant = cases[i];
    const Case& execution = cases[(i * 7919 + 13) % cases.size()];
    const std::string expected = tenant.encoded + ":" + execution.encoded;
    ASSERT_EQ(runtime::make_scope_key(runtime::LeaseKey{tenant.input, execution.input}), expected)
        << "tenant '" << tenant.input << "', execution '" << execution.input << "'";
    ASSERT_EQ(reference_scope_key({tenant.input, execution.input}), expected);
  }
}

TEST(ReferenceScopeKey, MalformedKeysAreRefused) {
  EXPECT_FALSE(reference_split_scope_key("a%3").has_value());
  EXPECT_FALSE(reference_split_scope_key("a%3a").has_value());  // lower-case hex: never written
  EXPECT_FALSE(reference_split_scope_key("a%41").has_value());  // 'A' is never escaped
  EXPECT_FALSE(reference_split_scope_key("a b").has_value());
  EXPECT_FALSE(reference_split_scope_key(std::string("a\0b", 3)).has_value());
  EXPECT_EQ(reference_split_scope_key("a:%3A:"), (std::vector<std::string>{"a", ":", ""}));
  // Either digit of an escape not hex (mechanical mutants of session 43: the high digit's check
  // made never true passed every test).
  EXPECT_FALSE(reference_split_scope_key("a%G1").has_value());
  EXPECT_FALSE(reference_split_scope_key("a%1G").has_value());
  // An escape cut short by the key's end, where the bytes past the end would complete it: the
  // split reads no byte outside the key (the end's check one byte short passed the test above only
  // because a literal's next byte is a NUL).
  const std::string longer = "a%3A";
  EXPECT_FALSE(reference_split_scope_key(std::string_view(longer.data(), 3)).has_value());
  EXPECT_FALSE(reference_split_scope_key(std::string_view(longer.data(), 2)).has_value());
}

}  // namespace
}  // namespace fencesim::properties::scope_key_table_test
