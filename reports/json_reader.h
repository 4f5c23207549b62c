#pragma once
// Checked reading of the JSON files a sweep writes (runs.jsonl, run_times.jsonl, sweep.json): each
// accessor throws SweepFileError with one line naming the source, the field and what is wrong.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace fencesim::reports {

class JsonReader {
 public:
  explicit JsonReader(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(std::string_view what) const;
  const nlohmann::json& field(const nlohmann::json& object, std::string_view key) const;
  // The object itself must be a JSON object; checked before any field is read.
  void expect_object(const nlohmann::json& object, std::string_view what) const;
  std::string string(const nlohmann::json& object, std::string_view key) const;
  std::uint64_t unsigned_integer(const nlohmann::json& object, std::string_view key) const;
  std::int64_t integer(const nlohmann::json& object, std::string_view key) const;
  double number(const nlohmann::json& object, std::string_view key) const;
  bool boolean(const nlohmann::json& object, std::string_view key) const;
  const nlohmann::json& array(const nlohmann::json& object, std::string_view key) const;
  const nlohmann::json& object(const nlohmann::json& object, std::string_view key) const;
  bool is_null(const nlohmann::json& object, std::string_view key) const;

 private:
  std::string source_;
};

}  // namespace fencesim::reports
