#include "reports/timeline_files.h"

#include <fmt/format.h>

#include <filesystem>

#include "reports/perfetto.h"
#include "reports/run_record.h"
#include "reports/timeline.h"
#include "reports/json_text.h"

namespace fencesim::reports {

namespace {

void check_path(std::string_view option, const std::string& path) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(path, error)) {
    throw ReportFileError(fmt::format("{}: cannot write '{}': it is a folder", option, path));
  }
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, error)) {
    throw ReportFileError(fmt::format("{}: cannot write '{}': folder '{}' does not exist", option,
                                      path, folder.string()));
  }
}

void write_text(std::string_view option, const std::string& path, const std::string& text) {
  try {
    write_file_atomically(path, text);
  } catch (const std::exception& error) {
    throw ReportFileError(fmt::format("{}: {}", option, error.what()));
  }
}

}  // namespace

RunPictures::RunPictures(std::string html_path, std::string perfetto_path)
    : html_path_(std::move(html_path)), perfetto_path_(std::move(perfetto_path)) {}

void RunPictures::check_paths() const {
  check_path("--html", html_path_);
  check_path("--perfetto", perfetto_path_);
}

void RunPictures::capture(const sim::World& world, const properties::RunReport& report) {
  if (!html_path_.empty()) timeline_ = timeline_json(world, report, TimelineContext{});
  if (!perfetto_path_.empty()) trace_ = perfetto_trace(world, report);
}

void RunPictures::write(const std::string& replay_command) const {
  if (!html_path_.empty()) {
    nlohmann::ordered_json timeline = timeline_;
    timeline["replay_command"] = replay_command;
    write_text("--html", html_path_, render_run_html(timeline));
  }
  if (!perfetto_path_.empty()) write_text("--perfetto", perfetto_path_, json_text(trace_) + "\n");
}

}  // namespace fencesim::reports
