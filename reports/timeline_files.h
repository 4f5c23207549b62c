#pragma once
// The pictures of one run a person asked for on the command line (`--html FILE`, `--perfetto FILE`
// of `fencesim run` and `fencesim replay`): drawn from the finished world, written once the run's
// replay command is known. Passing runs get them too: a green run can be worth a look.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "properties/run.h"
#include "sim/world.h"

namespace fencesim::reports {

// A report file that cannot be written; what() is one line naming the option and the file.
class ReportFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunPictures {
 public:
  // Either path may be "" (not wanted).
  RunPictures(std::string html_path, std::string perfetto_path);

  // Before the run, so that a typo in a folder name fails at once rather than after a long run:
  // throws ReportFileError when a path names a folder or a folder that does not exist.
  void check_paths() const;
  // From the inspect callback of the run, while its world still exists.
  void capture(const sim::World& world, const properties::RunReport& report);
  // Writes the files asked for, with `replay_command` shown on the page. Throws ReportFileError.
  void write(const std::string& replay_command) const;

 private:
  std::string html_path_;
  std::string perfetto_path_;
  nlohmann::ordered_json timeline_;
  nlohmann::ordered_json trace_;
};

}  // namespace fencesim::reports
