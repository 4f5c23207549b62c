#include "stores/race/named_statements.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fencesim::stores::race {

std::map<std::string, std::string> read_named_statements(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  static constexpr std::string_view kMarker = "-- name: ";
  std::map<std::string, std::string> statements;
  std::string name;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(kMarker)) {
      name = line.substr(kMarker.size());
      statements[name];
    } else if (!name.empty()) {
      statements[name] += line + "\n";
    }
  }
  if (statements.empty()) throw std::runtime_error(path + " names no statement");
  return statements;
}

}  // namespace fencesim::stores::race
