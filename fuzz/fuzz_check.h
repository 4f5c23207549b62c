#pragma once
// What every fuzz target checks besides "no crash, no hang, no leak": a parser refuses bad input
// with its own error type and a one-line message (the CLI prints it and exits 2), never with
// another exception, an empty message or a multi-line one; and what it accepts survives a round
// trip. A broken check aborts, which both libFuzzer and fuzz/corpus_main.cpp report as a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace fencesim::fuzz {

[[noreturn]] inline void finding(std::string_view what) {
  std::fprintf(stderr, "fuzz finding: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

inline void check(bool condition, std::string_view what) {
  if (!condition) finding(what);
}

// The message of a refusal: one non-empty line.
inline void check_one_line(const std::exception& error) {
  const std::string_view message = error.what();
  if (message.empty()) finding("a refusal with an empty message");
  if (message.find('\n') != std::string_view::npos) {
    finding(std::string("a refusal of more than one line: ") + std::string(message));
  }
}

// Runs a round trip of something already accepted: any exception out of it is a finding, not a
// refusal (it would otherwise hide behind the first read's catch).
template <typename Body>
void round_trip(Body body) {
  try {
    body();
  } catch (const std::exception& error) {
    finding(std::string("a round trip of accepted input threw: ") + error.what());
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace fencesim::fuzz
