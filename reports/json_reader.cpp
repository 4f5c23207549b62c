#include "reports/json_reader.h"

#include <fmt/format.h>

#include <limits>

#include "reports/run_record.h"
#include "scenarios/one_line.h"

namespace fencesim::reports {

using nlohmann::json;

// One line whatever the file holds: quoted control characters are escaped.
void JsonReader::fail(std::string_view what) const {
  throw SweepFileError(scenarios::one_line(fmt::format("{}: {}", source_, what)));
}

void JsonReader::expect_object(const json& object, std::string_view what) const {
  if (!object.is_object()) fail(fmt::format("{} must be a JSON object", what));
}

const json& JsonReader::field(const json& object, std::string_view key) const {
  const auto found = object.find(key);
  if (found == object.end()) fail(fmt::format("field '{}' is missing", key));
  return *found;
}

std::string JsonReader::string(const json& object, std::string_view key) const {
  const json& value = field(object, key);
  if (!value.is_string()) fail(fmt::format("field '{}' must be a string", key));
  return value.get<std::string>();
}

std::uint64_t JsonReader::unsigned_integer(const json& object, std::string_view key) const {
  const json& value = field(object, key);
  // A number parsed from text is unsigned when it is not negative; one built in code may be signed.
  const bool non_negative =
      value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
  if (!non_negative) fail(fmt::format("field '{}' must be an unsigned integer", key));
  return value.get<std::uint64_t>();
}

std::int64_t JsonReader::integer(const json& object, std::string_view key) const {
  const json& value = field(object, key);
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(fmt::format("field '{}' is out of range", key));
  }
  if (!value.is_number_integer()) fail(fmt::format("field '{}' must be an integer", key));
  return value.get<std::int64_t>();
}

double JsonReader::number(const json& object, std::string_view key) const {
  const json& value = field(object, key);
  if (!value.is_number()) fail(fmt::format("field '{}' must be a number", key));
  return value.get<double>();
}

bool JsonReader::boolean(const json& object, std::string_view key) const {
  const json& value = field(object, key);
  if (!value.is_boolean()) fail(fmt::format("field '{}' must be true or false", key));
  return value.get<bool>();
}

const json& JsonReader::array(const json& object, std::string_view key) const {
  const json& value = field(object, key);
  if (!value.is_array()) fail(fmt::format("field '{}' must be an array", key));
  return value;
}

const json& JsonReader::object(const json& object, std::string_view key) const {
  const json& value = field(object, key);
  if (!value.is_object()) fail(fmt::format("field '{}' must be an object", key));
  return value;
}

bool JsonReader::is_null(const json& object, std::string_view key) const {
  return field(object, key).is_null();
}

}  // namespace fencesim::reports
