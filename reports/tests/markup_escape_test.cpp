// xml_escape takes a multi-byte UTF-8 sequence whole only when every byte of it is well formed. A
// sequence whose lead and second byte are right but whose third or fourth is not (a name cut in
// the middle of a character, then followed by ASCII) must not pass: junit.xml and the HTML pages
// would then hold invalid UTF-8, which an XML parser refuses outright. Every byte in order (the
// hostile-bytes tests) never puts a continuation byte after a good lead and second byte, so these
// are written out.
#include <gtest/gtest.h>

#include <string>

#include "reports/markup_escape.h"

namespace fencesim::reports::markup_escape_test {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(MarkupEscape, AThreeByteSequenceWithABadThirdByteIsReplacedBytePerByte) {
  EXPECT_EQ(xml_escape("\xE2\x82\x41"), kReplacement + kReplacement + "A");
  EXPECT_EQ(xml_escape("\xE2\x82\xAC"), "\xE2\x82\xAC");  // the euro sign itself stays
}

TEST(MarkupEscape, AFourByteSequenceWithABadThirdOrFourthByteIsReplaced) {
  EXPECT_EQ(xml_escape("\xF0\x9F\xA7\x41"), kReplacement + kReplacement + kReplacement + "A");
  EXPECT_EQ(xml_escape("\xF0\x9F\x41\xBE"),
            kReplacement + kReplacement + "A" + kReplacement);
  EXPECT_EQ(xml_escape("\xF0\x9F\xA7\xBE"), "\xF0\x9F\xA7\xBE");  // a receipt emoji stays
}

// UTF-8 ends at U+10FFFF (F4 8F BF BF) and has no overlong forms: F4 90 80 80 and F0 80 80 80 are
// no characters and must not reach an XML file (red team 35d-25: the bound past U+10FFFF dropped).
TEST(MarkupEscape, NothingPastUPlus10FFFFAndNoOverlongFourByteForm) {
  EXPECT_EQ(xml_escape("\xF4\x8F\xBF\xBF"), "\xF4\x8F\xBF\xBF");
  EXPECT_EQ(xml_escape("\xF4\x90\x80\x80").find('\xF4'), std::string::npos);
  EXPECT_EQ(xml_escape("\xF0\x80\x80\x80").find('\xF0'), std::string::npos);
}

TEST(MarkupEscape, ASequenceCutByTheEndOfTheTextIsReplaced) {
  EXPECT_EQ(xml_escape("a\xE2\x82"), "a" + kReplacement + kReplacement);
}

}  // namespace
}  // namespace fencesim::reports::markup_escape_test
