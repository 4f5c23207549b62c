// The HTML reports are self-contained (nothing fetched, no URL at all), carry their data as JSON
// that parses back to what was drawn, and no string in the data can break out of its script
// element. (That the pages draw without errors is checked in a real browser: browser_test.cpp.)
#include <gtest/gtest.h>

#include "reports/html_page.h"
#include "reports/tests/sweep_sample.h"
#include "reports/tests/timeline_fixture.h"

namespace fencesim::reports::html_test {
namespace {

using nlohmann::ordered_json;

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The text of the <script type="application/json" id=ID> element.
std::string embedded(const std::string& page, const std::string& id) {
  const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
  const auto start = page.find(open);
  EXPECT_NE(start, std::string::npos) << id;
  if (start == std::string::npos) return "";
  const auto end = page.find("</script>", start);
  return page.substr(start + open.size(), end - start - open.size());
}

void expect_self_contained(const std::string& page) {
  EXPECT_EQ(count(page, "http://"), 0u);
  EXPECT_EQ(count(page, "https://"), 0u);
  EXPECT_EQ(count(page, "src="), 0u);
  EXPECT_EQ(count(page, "<link"), 0u);
  EXPECT_EQ(count(page, "@import"), 0u);
  EXPECT_EQ(count(page, "fetch("), 0u);
  EXPECT_EQ(count(page, "XMLHttpRequest"), 0u);
  // CSS url() only for the page's own SVG pattern (a fragment, not a file).
  EXPECT_EQ(count(page, "url("), count(page, "url(#"));
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
}

TEST(HtmlTest, RunPageIsSelfContainedAndCarriesItsTimeline) {
  const ordered_json& timeline = testing::failing_kleppmann().timeline;
  const std::string page = render_run_html(timeline);
  expect_self_contained(page);
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
  EXPECT_EQ(ordered_json::parse(embedded(page, "fs-timeline")), timeline);
  EXPECT_NE(page.find("<title>fencesim kleppmann-fencing seed 1: violation</title>"),
            std::string::npos);
}

// The view written for readers with scripts off ticks every sink write, mark and event a
// violation names, each as what it was: a write the sink refused as refused, one it applied or
// deduplicated (accepted by its idempotency key: gc-stall-write-before-takeover's re-run) not. A
// deduplicated write drawn as refused would show the fence refusing what it let through.
TEST(HtmlTest, TheStaticViewTicksEveryWriteMarkAndViolationAsWhatItWas) {
  const testing::Captured dedup = testing::run_and_capture("gc-stall-write-before-takeover", 1);
  for (const ordered_json* timeline :
       {&dedup.timeline, &testing::failing_kleppmann().timeline,
        &testing::passing_kleppmann().timeline}) {
    const std::string page = render_run_html(*timeline);
    std::size_t refused = 0;
    std::size_t accepted = 0;
    for (const ordered_json& write : (*timeline)["writes"]) {
      ++(write["outcome"] == "refused" ? refused : accepted);
    }
    std::size_t refs = 0;
    for (const ordered_json& violation : (*timeline)["violations"]) refs += violation["refs"].size();
    const std::string which = (*timeline)["scenario"].get<std::string>();
    EXPECT_EQ(count(page, "<line class=\"write refused\""), refused) << which;
    EXPECT_EQ(count(page, "<line class=\"write\""), accepted) << which;
    EXPECT_EQ(count(page, "<line class=\"mark\""), (*timeline)["marks"].size()) << which;
    EXPECT_EQ(count(page, "<line class=\"violation\""), refs) << which;
  }
  std::size_t deduplicated = 0;
  for (const ordered_json& write : dedup.timeline["writes"]) {
    deduplicated += write["outcome"] == "deduplicated";
  }
  EXPECT_GT(deduplicated, 0u) << dedup.timeline["writes"].dump();
  EXPECT_FALSE(testing::failing_kleppmann().timeline["violations"].empty());
}

TEST(HtmlTest, NoStringInTheDataBreaksOutOfItsScript) {
  ordered_json timeline = testing::failing_kleppmann().timeline;
  const std::string plain = render_run_html(timeline);
  const std::string hostile = "</script><script>alert(1)</script><!-- </SCRIPT> & \"'";
  timeline["scenario"] = hostile;
  timeline["violations"][0]["message"] = hostile;
  timeline["events"][0]["detail"] = "\xff\xfe not UTF-8 </script>";
  const std::string page = render_run_html(timeline);
  // As many script ends as the page has without the hostile strings: none came from the data.
  EXPECT_EQ(count(page, "</script>"), count(plain, "</script>"));
  EXPECT_EQ(count(page, "<!--"), count(plain, "<!--"));
  EXPECT_EQ(page.find("<script>alert(1)"), std::string::npos);
  const ordered_json back = ordered_json::parse(embedded(page, "fs-timeline"));
  EXPECT_EQ(back["scenario"], hostile);
  EXPECT_EQ(back["violations"][0]["message"], hostile);
  // Invalid UTF-8 is replaced, not a reason to lose the page.
  EXPECT_NE(back["events"][0]["detail"].get<std::string>().find("</script>"), std::string::npos);
  EXPECT_NE(page.find("<title>fencesim &lt;/script&gt;&lt;script&gt;"), std::string::npos);
}

TEST(HtmlTest, SweepPageIsSelfContainedAndCarriesSummaryAndTimelines) {
  const ordered_json summary = testing::sweep_summary_sample(true);
  const std::vector<ordered_json> timelines{testing::failing_kleppmann().timeline};
  const std::string page = render_sweep_html(summary, timelines);
  expect_self_contained(page);
  EXPECT_EQ(ordered_json::parse(embedded(page, "fs-summary")), summary);
  const ordered_json back = ordered_json::parse(embedded(page, "fs-timelines"));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], timelines[0]);
  EXPECT_NE(page.find("data-page=\"sweep\""), std::string::npos);
}

TEST(HtmlTest, EscapeAndScriptJson) {
  EXPECT_EQ(html::escape("<a href='x'>&\"</a>"),
            "&lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt;");
  const ordered_json value{{"s", "</script>&<!--"}};
  const std::string text = html::script_json(value);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('>'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  EXPECT_EQ(ordered_json::parse(text), value);
}

}  // namespace
}  // namespace fencesim::reports::html_test
