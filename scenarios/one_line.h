#pragma once
// Error messages of parsers are one line (the CLI prints one line and exits 2), yet they quote what
// they were given, which may hold a newline or another control character: those are written as
// escapes (\n, \r, \t, \xNN), so that the message stays one line and still shows the bytes.
// Found by fuzzing (fuzz/corpus/replay_file/finding-strategy-with-newline.json).
#include <cstdio>
#include <string>
#include <string_view>

namespace fencesim::scenarios {

inline std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(byte));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace fencesim::scenarios
