#pragma once
// Typed values out of a spec's TOML, each error one line naming the file, the line and the key
// ("specs/x.toml:7: [[fault]].lasting: '31' needs a unit (ns, us, ms, s, m, h)").
#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "scenarios/spec.h"
#include "scenarios/spec_durations.h"

namespace fencesim::scenarios::spec {

// Both ends inclusive; low == high for a single value.
struct Range {
  std::int64_t low = 0;
  std::int64_t high = 0;
};

struct ProbabilityRange {
  double low = 0;
  double high = 0;
};

class SpecReader {
 public:
  explicit SpecReader(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  [[noreturn]] void fail(std::uint32_t line, std::string_view key, std::string_view what) const;
  [[noreturn]] void fail(const toml::node& at, std::string_view key, std::string_view what) const;
  // Keeps an error and goes on (a stray or unknown key: what follows can still be read).
  void note(std::uint32_t line, std::string_view key, std::string_view what) const;

  // A spec is checked whole: `read` runs, and a SpecError it throws is kept and reading goes on
  // with whatever the caller reads next. Returns whether `read` finished without one.
  template <typename Read>
  bool attempt(Read&& read) const {
    try {
      read();
      return true;
    } catch (const SpecError& error) {
      keep(error);
      return false;
    }
  }
  std::size_t error_count() const { return errors_.size(); }
  // Throws one SpecError holding every error kept, in the order of their lines; nothing if none.
  void throw_if_any() const;

  // Every key of `table` must be one of `known` ("unknown key 'x' (known: a, b)"); `prefix` is
  // the table's path in messages ("options.", "[[fault]].", or "" at the top).
  void only_keys(const toml::table& table, std::string_view prefix,
                 std::initializer_list<std::string_view> known) const {
    only_keys(table, prefix, std::span<const std::string_view>(known.begin(), known.size()));
  }
  void only_keys(const toml::table& table, std::string_view prefix,
                 std::span<const std::string_view> known) const;

  std::string string(const toml::node& node, std::string_view key) const;
  std::int64_t integer(const toml::node& node, std::string_view key, std::int64_t min,
                       std::int64_t max) const;
  double number(const toml::node& node, std::string_view key, double min, double max) const;
  std::int64_t duration(const toml::node& node, std::string_view key, std::int64_t min) const;
  // A value or [low, high] with low <= high.
  Range duration_range(const toml::node& node, std::string_view key, std::int64_t min) const;
  Range integer_range(const toml::node& node, std::string_view key, std::int64_t min,
                      std::int64_t max) const;
  ProbabilityRange probability_range(const toml::node& node, std::string_view key) const;

 private:
  // The two ends of a [low, high] array (or the value itself, twice).
  std::pair<const toml::node*, const toml::node*> ends(const toml::node& node,
                                                       std::string_view key) const;
  void keep(const SpecError& error) const;

  std::string source_;
  // Every error so far, with its line (mutable: the reader is passed as const everywhere).
  mutable std::vector<std::pair<std::uint32_t, std::string>> errors_;
};

}  // namespace fencesim::scenarios::spec
