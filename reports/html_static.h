#pragma once
// What a report shows without JavaScript (CI servers that archive HTML reports often serve them
// with scripts blocked): markup written when the page is written, from the same JSON the scripts
// draw. The run page gets its verdict, violations, marks, fault plan and the timeline as inline
// SVG; the sweep page its verdict, groups, claims and scenarios as tables. The scripts remove it
// when they draw the interactive page (reports/html_common_js.cpp, FS.start). Every string goes
// through html::escape.
#include <nlohmann/json.hpp>
#include <string>

namespace fencesim::reports::html {

std::string static_run(const nlohmann::ordered_json& timeline);
std::string static_sweep(const nlohmann::ordered_json& summary);

}  // namespace fencesim::reports::html
