#pragma once
// Escaping text for markup, shared by junit.xml and the HTML reports (HTML5 reads XML's entities).
#include <string>
#include <string_view>

namespace fencesim::reports {

// Escapes text for XML 1.0 (and HTML) content and attribute values: the five markup characters,
// and the control characters XML 1.0 cannot carry at all (replaced by U+FFFD).
std::string xml_escape(std::string_view text);

}  // namespace fencesim::reports
