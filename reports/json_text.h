#pragma once
// The one way reports write JSON: names in a run (tenant and execution ids, step paths, marks)
// are byte strings a workload chose, and may hold invalid UTF-8. nlohmann's default dump throws
// on those (type_error.316); a report must never crash on what it reports, so every JSON file and
// line the harness writes goes through here: each invalid UTF-8 byte becomes U+FFFD, everything
// else (NUL and control characters included, as \u escapes) is kept.
#include <nlohmann/json.hpp>
#include <string>

namespace fencesim::reports {

std::string json_text(const nlohmann::ordered_json& value, int indent = -1);
std::string json_text(const nlohmann::json& value, int indent = -1);

}  // namespace fencesim::reports
