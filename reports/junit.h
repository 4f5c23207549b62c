#pragma once
// junit.xml: a sweep as CI systems display tests: one testsuite, one testcase per scenario
// (classname "fencesim", name = the scenario), a failure element per failing scenario carrying
// each failure's replay command and first violation. Made from the summary (reports/summary.h), so
// it says nothing the summary does not.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "reports/markup_escape.h"

namespace fencesim::reports {

// `summary` as made by sweep_summary.
std::string junit_xml(const nlohmann::ordered_json& summary);

}  // namespace fencesim::reports
