#pragma once
// summary.md: the sweep's summary as GitHub-flavoured Markdown tables, for a CI job's summary page
// ($GITHUB_STEP_SUMMARY): the verdict, the failure groups (new or known, counts, where, the
// smallest example's replay command), the totals, per scenario its runs and the marks it never
// reached, and the figures. Made from summary.json alone, so a merge writes the same.
#include <nlohmann/json.hpp>
#include <string>

namespace fencesim::reports {

// Rows shown per table at most; the rest are counted in a line under it (a summary page has a
// size limit, and a person reads the first rows).
inline constexpr std::size_t kMarkdownRowsMax = 50;

std::string summary_markdown(const nlohmann::ordered_json& summary);

// `text` made safe for one cell of a Markdown table: '|' and '\' escaped, line breaks and other
// control characters as spaces, and the characters Markdown would read as markup ('`', '*', '_',
// '<', '[', ...) escaped, so that a scenario name or a message shows as written.
std::string markdown_cell(std::string_view text);
// `text` as inline code in a table cell: in a code span, with '|' escaped (GitHub's tables split
// on it even inside code) and a backtick run longer than any in the text as the fence.
std::string markdown_code(std::string_view text);

}  // namespace fencesim::reports
