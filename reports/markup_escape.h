#pragma once
// Escaping text for markup, shared by junit.xml and the HTML reports (HTML5 reads XML's entities).
#include <string>
#include <string_view>

namespace fencesim::reports {

// Escapes any byte string for XML 1.0 (and HTML) content and attribute values: the five markup
// characters as entities; the characters XML 1.0 cannot carry at all (control characters other
// than tab, newline and carriage return, NUL included; U+FFFE, U+FFFF) and each byte that starts no
// well-formed UTF-8 sequence replaced by U+FFFD, so that the output is always well-formed UTF-8.
std::string xml_escape(std::string_view text);

}  // namespace fencesim::reports
