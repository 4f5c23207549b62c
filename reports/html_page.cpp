// The page skeleton shared by the run and sweep reports, and the two entry points. The
// interactive page is built by its script from the embedded JSON with textContent, never by
// pasting data into markup; the static view (reports/html_static.h), for readers with scripts
// off, escapes every string it writes. No scenario name or message can inject markup.
#include "reports/html_page.h"

#include "reports/html_static.h"
#include "reports/markup_escape.h"
#include "reports/timeline.h"
#include "reports/json_text.h"

namespace fencesim::reports {
namespace html {

std::string escape(std::string_view text) {
  return xml_escape(text);
}

std::string script_json(const nlohmann::ordered_json& json) {
  const std::string text = json_text(json);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (const char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_page(const Page& page) {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // The page loads nothing: the policy refuses any fetch, so a report is self-contained by
  // construction, not only by care.
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + escape(page.title) + "</title>\n<style>\n";
  out += page_style();
  out += "\n</style>\n</head>\n<body data-page=\"" + escape(page.kind) + "\">\n";
  // First, so that an error anywhere in the page's script (even a syntax error) is recorded where
  // a person sees it and a headless browser test can read it.
  out +=
      "<script>window.onerror = function (message, source, line) {"
      " document.body.dataset.error = String(message) + ' (line ' + line + ')';"
      " var box = document.getElementById('fs-error');"
      " if (box) { box.textContent = 'This report failed to draw: ' + message; box.hidden = false; "
      "}"
      " };</script>\n";
  out += "<div id=\"fs-error\" class=\"fs-error\" hidden></div>\n";
  // Without scripts the static view is the page; with them it is replaced by the interactive one.
  out += page.static_markup;
  out += "<noscript><p class=\"muted\">Scripts are off: this is the static view. With "
         "JavaScript the timeline can be zoomed and every event read.</p></noscript>\n";
  out += "<main id=\"app\"></main>\n";
  for (const auto& [id, json] : page.data) {
    out += "<script type=\"application/json\" id=\"" + escape(id) + "\">" + json + "</script>\n";
  }
  out += "<script>\n";
  out += common_script();
  out += timeline_layout_script();
  out += timeline_draw_script();
  out += timeline_items_script();
  out += run_page_script();  // the sweep page draws failures with the run page's code
  if (page.kind == "sweep") out += sweep_page_script();
  out += "\n</script>\n</body>\n</html>\n";
  return out;
}

namespace {

std::string text_of(const nlohmann::ordered_json& json, const char* key) {
  if (!json.is_object() || !json.contains(key)) return "-";
  const nlohmann::ordered_json& value = json[key];
  return value.is_string() ? value.get<std::string>() : json_text(value);
}

}  // namespace
}  // namespace html

std::string render_run_html(const nlohmann::ordered_json& timeline) {
  html::Page page;
  page.title = "fencesim " + html::text_of(timeline, "scenario") + " seed " +
               html::text_of(timeline, "seed_text") + ": " + html::text_of(timeline, "status");
  page.kind = "run";
  page.data.emplace_back("fs-timeline", html::script_json(timeline));
  page.static_markup = html::static_run(timeline);
  return html::render_page(page);
}

std::string render_sweep_html(const nlohmann::ordered_json& summary,
                              const std::vector<nlohmann::ordered_json>& failure_timelines) {
  html::Page page;
  page.title = "fencesim sweep report";
  page.kind = "sweep";
  page.data.emplace_back("fs-summary", html::script_json(summary));
  page.data.emplace_back("fs-timelines",
                         html::script_json(nlohmann::ordered_json(failure_timelines)));
  page.static_markup = html::static_sweep(summary);
  return html::render_page(page);
}

}  // namespace fencesim::reports
