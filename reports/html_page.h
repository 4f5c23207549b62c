#pragma once
// How the HTML reports are put together: one page, its style and scripts inline, its data embedded
// as JSON that no string in it can break out of. Internal to reports/.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace fencesim::reports::html {

// `text` escaped for element content and attribute values (reports/markup_escape.h).
std::string escape(std::string_view text);

// `json` serialised for a <script type="application/json"> element: '<', '>' and '&' (which JSON
// allows only inside strings) written as \u escapes, so "</script>" or "<!--" in any string
// cannot end the element; invalid UTF-8 is replaced rather than thrown on.
std::string script_json(const nlohmann::ordered_json& json);

// The scripts and style every page shares (html_*_js.cpp, html_style.cpp). They are C++ raw
// string literals rather than files read at build time: the reports library stays one glob of
// sources with no generated code, and each piece stays under the 64 KiB a literal may portably
// hold.
std::string_view page_style();
std::string_view common_script();
std::string_view timeline_layout_script();
std::string_view timeline_draw_script();
std::string_view timeline_items_script();
std::string_view run_page_script();
std::string_view sweep_page_script();

struct Page {
  std::string title;
  std::string kind;  // "run" or "sweep": which page script starts
  // (element id, data) embedded as JSON.
  std::vector<std::pair<std::string, std::string>> data;
  // What the page shows without scripts (reports/html_static.h); the scripts remove it.
  std::string static_markup;
};

// The whole document.
std::string render_page(const Page& page);

}  // namespace fencesim::reports::html
