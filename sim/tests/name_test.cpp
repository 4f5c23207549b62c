// Interned names (sim/name.h): a table gives one name per spelling, names compare, order and hash
// by their bytes whatever table (or none) made them, and the history hashes a name's bytes, never
// its identity, so an event hashes alike interned or not.
#include "sim/name.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/history.h"

namespace fencesim::sim::name_test {
namespace {

TEST(Name, ATableGivesOneNamePerSpelling) {
  NameTable table;
  const std::string longest(700, 'x');
  const Name a = table.intern(std::string_view(longest));
  const Name b = table.intern(std::string(longest));
  EXPECT_EQ(a.data(), b.data());  // one copy of the bytes
  EXPECT_EQ(table.size(), 1u);
  EXPECT_NE(table.intern(std::string_view("y")).data(), a.data());
  EXPECT_EQ(table.size(), 2u);
  EXPECT_TRUE(table.intern(std::string_view()).empty());
}

// The table's shortcut for names interned again (recent_, found by a name's size and its first and
// last eight bytes) is only a shortcut: texts that agree there and differ between, or differ only
// past their eighth byte, or are short, interned in turn again and again, each keep a name of their
// own with their own bytes.
TEST(Name, TextsAlikeAtTheirEndsStayDistinct) {
  NameTable table;
  std::vector<std::string> texts;
  for (char middle : std::string("abc")) {
    std::string text(700, 'x');
    text[350] = middle;  // the same size, first and last bytes: only the middle differs
    texts.push_back(text);
  }
  texts.push_back("tenant-1");
  texts.push_back("tenant-2");
  texts.push_back("tenant-10");
  texts.push_back("a");
  texts.push_back("b");
  texts.push_back(std::string("a\0", 2));
  std::map<std::string, const char*> first;
  for (int round = 0; round < 3; ++round) {
    for (const std::string& text : texts) {
      const Name name = table.intern(std::string_view(text));
      EXPECT_EQ(name.view(), text);
      const auto [it, added] = first.emplace(text, name.data());
      EXPECT_EQ(it->second, name.data()) << "a second copy of the bytes of a name seen before";
    }
  }
  EXPECT_EQ(table.size(), texts.size());
}

RC_GTEST_PROP(Name, ATableGivesTheSameNameForTheSameBytesWhateverCameBetween,
              (const std::vector<std::string>& texts)) {
  NameTable table;
  std::map<std::string, const char*> first;
  for (int round = 0; round < 2; ++round) {
    for (const std::string& text : texts) {
      const Name name = table.intern(std::string_view(text));
      RC_ASSERT(name.view() == std::string_view(text));
      if (text.empty()) continue;
      const auto [it, added] = first.emplace(text, name.data());
      RC_ASSERT(it->second == name.data());
    }
  }
  RC_ASSERT(table.size() == first.size());
}

TEST(Name, ComparesOrdersAndHashesByBytes) {
  NameTable one;
  NameTable two;
  const Name a = one.intern(std::string_view("tenant-b"));
  const Name b = two.intern(std::string_view("tenant-b"));
  const Name c("tenant-b");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a.hash(), c.hash());
  EXPECT_EQ(a, "tenant-b");
  EXPECT_EQ(a, std::string("tenant-b"));
  EXPECT_NE(a, Name("tenant-a"));
  // Names order as their strings do, whatever order they were interned in.
  const Name z = one.intern(std::string_view("a-late"));
  EXPECT_LT(z, a);
  std::map<Name, int> by_name{{a, 1}, {z, 2}, {Name("m"), 3}};
  std::string order;
  for (const auto& [name, value] : by_name) order += name.str() + ",";
  EXPECT_EQ(order, "a-late,m,tenant-b,");
  EXPECT_TRUE(Name().empty());
  EXPECT_EQ(Name(""), Name());
}

// The order of names is the order of their bytes, whether their first eight bytes (compared as
// one number) decide it or the bytes after them: strings drawn from few letters, NUL and 0xff,
// so that prefixes tie, one ends inside the other's first eight bytes, or a NUL pads like the
// zero fill.
RC_GTEST_PROP(NameProperty, OrdersAsItsBytes, ()) {
  const auto text = rc::gen::container<std::string>(
      rc::gen::element<char>('a', 'b', '\0', static_cast<char>(0xff)));
  const std::string a = *text;
  const std::string b = *rc::gen::oneOf(text, rc::gen::just(a + "a"), rc::gen::just(a + '\0'),
                                        rc::gen::just(a.substr(0, a.size() / 2)));
  NameTable table;
  const Name interned_a = table.intern(std::string_view(a));
  const Name interned_b = table.intern(std::string_view(b));
  const std::strong_ordering expected = a.compare(b) <=> 0;
  RC_ASSERT((interned_a <=> interned_b) == expected);
  RC_ASSERT((Name(a) <=> Name(b)) == expected);
  RC_ASSERT((interned_a <=> Name(b)) == expected);
  RC_ASSERT((NameKey(Name(a), Name(b)) <=> NameKey(interned_b, interned_a)) == expected);
}

TEST(Name, OutlivesItsTable) {
  Name kept;
  {
    NameTable table;
    kept = table.intern(std::string_view("still here"));
  }
  EXPECT_EQ(kept, "still here");
}

TEST(Name, KeysConvertAndCompareWithLeaseKeys) {
  NameTable table;
  const runtime::LeaseKey lease{"tenant", "order-1"};
  const NameKey key = table.intern(lease);
  EXPECT_EQ(key, lease);
  EXPECT_EQ(runtime::LeaseKey(key), lease);
  EXPECT_LT(key, (runtime::LeaseKey{"tenant", "order-2"}));
}

std::uint64_t hash_of(const RuntimeRecord& record) {
  History history;
  HistoryEvent event;
  event.runtime = record;
  event.detail = Name("detail");
  history.record(std::move(event));
  return history.hash();
}

TEST(Name, TheHistoryHashesBytesNotIdentity) {
  const runtime::RuntimeEvent event{runtime::EventKind::kStepStarted,
                                    "holder",
                                    {std::string(300, 't'), std::string(500, 'e')},
                                    "scope",
                                    7,
                                    "step/1",
                                    "",
                                    3};
  NameTable table;
  const std::uint64_t interned = hash_of(RuntimeRecord(event, table));
  EXPECT_EQ(interned, hash_of(RuntimeRecord(event)));
  runtime::RuntimeEvent other = event;
  other.step = "step/2";
  EXPECT_NE(interned, hash_of(RuntimeRecord(other, table)));
  // Back to the runtime's type, unchanged.
  const runtime::RuntimeEvent back = RuntimeRecord(event, table);
  EXPECT_EQ(back.key, event.key);
  EXPECT_EQ(back.step, event.step);
  EXPECT_EQ(back.token, event.token);
}

}  // namespace
}  // namespace fencesim::sim::name_test
