// ADR-0023 scope keys: each part encodeURIComponent-encoded and joined by one ':'. No cross-tenant
// collision, decodable, unchanged for plain and UUID ids, no NUL.
#include "runtime/scope_key.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

namespace fencesim::runtime::scope_key_test {
namespace {

using Parts = std::vector<std::string>;

// Any byte, with the bytes the encoding must treat specially drawn more often than chance would.
rc::Gen<char> gen_byte() {
  return rc::gen::weightedOneOf<char>({
      {3,
       rc::gen::map(rc::gen::inRange(0, 256),
                    [](int byte) { return static_cast<char>(static_cast<unsigned char>(byte)); })},
      {2, rc::gen::elementOf(std::string(":%\0 aZ09-~", 11))},
  });
}

rc::Gen<Parts> gen_parts(rc::Gen<char> byte) {
  return rc::gen::nonEmpty(rc::gen::container<Parts>(rc::gen::container<std::string>(byte)));
}

// Where every comparison of distinct inputs is a near miss: few bytes, short parts, few parts.
rc::Gen<Parts> gen_colliding_parts() {
  const auto byte = rc::gen::elementOf(std::string(":%3Aa"));
  const auto part = rc::gen::resize(4, rc::gen::container<std::string>(byte));
  return rc::gen::resize(3, rc::gen::nonEmpty(rc::gen::container<Parts>(part)));
}

TEST(ScopeKey, PlainAndUuidIdsAreUnchanged) {
  EXPECT_EQ(make_scope_key({"tenant-1", "3f2504e0-4f89-11d3-9a0c-0305e82c3301"}),
            "tenant-1:3f2504e0-4f89-11d3-9a0c-0305e82c3301");
  EXPECT_EQ(make_scope_key({"Acme_Corp.eu", "run42"}), "Acme_Corp.eu:run42");
}

TEST(ScopeKey, LeaseKeyGivesTenantThenLeaseExecutionId) {
  EXPECT_EQ(make_scope_key(LeaseKey{"t:1", "e 1"}), "t%3A1:e%201");
}

TEST(ScopeKey, EncodesExactlyLikeEncodeUriComponent) {
  // Expected values are the output of encodeURIComponent in Node.js.
  EXPECT_EQ(encode_uri_component("a b"), "a%20b");
  EXPECT_EQ(encode_uri_component("é"), "%C3%A9");
  EXPECT_EQ(encode_uri_component("日本"), "%E6%97%A5%E6%9C%AC");
  EXPECT_EQ(encode_uri_component("😀"), "%F0%9F%98%80");
  EXPECT_EQ(encode_uri_component("!~*'()"), "!~*'()");
  EXPECT_EQ(encode_uri_component(":"), "%3A");
  EXPECT_EQ(encode_uri_component("%"), "%25");
  EXPECT_EQ(encode_uri_component(std::string("\0", 1)), "%00");
  EXPECT_EQ(encode_uri_component("a b:c%d/e?f#g&h=i+j"), "a%20b%3Ac%25d%2Fe%3Ff%23g%26h%3Di%2Bj");
  EXPECT_EQ(encode_uri_component(""), "");
}

TEST(ScopeKey, KeepsExactlyTheUnreservedAsciiCharacters) {
  // The characters Node.js's encodeURIComponent leaves alone, out of all 128 ASCII characters.
  const std::string unreserved =
      "!'()*-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~";
  std::string kept;
  for (int byte = 0; byte < 128; ++byte) {
    const std::string one(1, static_cast<char>(byte));
    if (encode_uri_component(one) == one) kept += one;
  }
  EXPECT_EQ(kept, unreserved);
}

TEST(ScopeKey, EncodesEveryNonAsciiByteInUpperCaseHex) {
  EXPECT_EQ(encode_uri_component("\xff\x80\xab"), "%FF%80%AB");
}

TEST(ScopeKey, NoCrossTenantCollision) {
  const std::string key_a = make_scope_key({"a:b", "c"});
  const std::string key_b = make_scope_key({"a", "b:c"});
  EXPECT_NE(key_a, key_b);
  EXPECT_EQ(key_a, "a%3Ab:c");
  EXPECT_EQ(key_b, "a:b%3Ac");
}

TEST(ScopeKey, NeverContainsNul) {
  const std::string key = make_scope_key({std::string("a\0b", 3), std::string("\0", 1)});
  EXPECT_EQ(key.find('\0'), std::string::npos);
  EXPECT_EQ(key, "a%00b:%00");
  EXPECT_EQ(split_scope_key(key), (Parts{std::string("a\0b", 3), std::string("\0", 1)}));
}

TEST(ScopeKey, EmptyKeyIsOneEmptyPart) {
  EXPECT_EQ(make_scope_key({""}), "");
  EXPECT_EQ(split_scope_key(""), Parts{""});
  EXPECT_EQ(make_scope_key({"", ""}), ":");
  EXPECT_EQ(split_scope_key(":"), (Parts{"", ""}));
}

TEST(ScopeKey, KeyWithoutPartsIsAnError) {
  EXPECT_THROW(make_scope_key(std::span<const std::string>()), ScopeKeyError);
  EXPECT_THROW(make_scope_key(std::initializer_list<std::string_view>{}), ScopeKeyError);
}

TEST(ScopeKey, DecodeAcceptsEitherHexCaseLikeDecodeUriComponent) {
  EXPECT_EQ(decode_uri_component("%c3%A9"), "é");
  EXPECT_EQ(decode_uri_component("a%20b"), "a b");
  EXPECT_EQ(decode_uri_component("%3a"), ":");
}

// Expects ScopeKeyError whose message says `what` went wrong and names `offset`.
void expect_malformed(std::string_view input, std::size_t offset, std::string_view what,
                      bool as_key = false) {
  try {
    if (as_key) {
      split_scope_key(input);
    } else {
      decode_uri_component(input);
    }
    ADD_FAILURE() << "no ScopeKeyError for \"" << input << "\"";
  } catch (const ScopeKeyError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_NE(message.find("offset " + std::to_string(offset)), std::string::npos) << message;
  }
}

TEST(ScopeKey, MalformedDecodeNamesTheOffset) {
  expect_malformed("%", 0, "truncated");
  expect_malformed("%4", 0, "truncated");
  expect_malformed("ab%4", 2, "truncated");
  expect_malformed("%G0", 0, "malformed");
  expect_malformed("%0G", 0, "malformed");
  expect_malformed("a%%41", 1, "malformed");
  expect_malformed("%41%zz", 3, "malformed");
}

TEST(ScopeKey, MalformedSplitNamesTheOffsetInTheKey) {
  expect_malformed("tenant:ab%4", 9, "truncated", true);
  expect_malformed("a:b:%x1", 4, "malformed", true);
  expect_malformed(std::string_view("a:\0", 3), 2, "NUL", true);
}

RC_GTEST_PROP(ScopeKey, EncodingDecodesBackAndHoldsNoSeparatorOrNul, ()) {
  const auto bytes = *rc::gen::container<std::string>(gen_byte());
  const std::string encoded = encode_uri_component(bytes);
  RC_ASSERT(decode_uri_component(encoded) == bytes);
  RC_ASSERT(encoded.find(':') == std::string::npos);
  RC_ASSERT(encoded.find('\0') == std::string::npos);
}

RC_GTEST_PROP(ScopeKey, SplitInvertsMake, ()) {
  const Parts parts = *gen_parts(gen_byte());
  const std::string key = make_scope_key(parts);
  RC_ASSERT(key.find('\0') == std::string::npos);
  RC_ASSERT(split_scope_key(key) == parts);
}

RC_GTEST_PROP(ScopeKey, DifferentPartsGiveDifferentKeys, ()) {
  const Parts a = *gen_colliding_parts();
  const Parts b = *gen_colliding_parts();
  RC_CLASSIFY(a == b, "same parts");
  RC_ASSERT((make_scope_key(a) == make_scope_key(b)) == (a == b));
}

}  // namespace
}  // namespace fencesim::runtime::scope_key_test
