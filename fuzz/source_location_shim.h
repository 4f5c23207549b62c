#pragma once
// Force-included in the `fuzz` preset only (clang 14 with GCC 12's libstdc++): that libstdc++ makes
// std::source_location only with __builtin_source_location, which clang gets in version 15. This
// stands in for it with the builtins clang 14 has; the project's code is unchanged.
#include <version>
#if defined(__clang__) && !defined(__cpp_lib_source_location)
#include <cstdint>
#define _GLIBCXX_SRCLOC 1  // libstdc++'s own <source_location> is then skipped whole
namespace std {
struct source_location {
  static constexpr source_location current(
      const char* file = __builtin_FILE(), const char* function = __builtin_FUNCTION(),
      std::uint_least32_t line = __builtin_LINE(),
      std::uint_least32_t column = __builtin_COLUMN()) noexcept {
    source_location where;
    where.file_ = file;
    where.function_ = function;
    where.line_ = line;
    where.column_ = column;
    return where;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }
  constexpr std::uint_least32_t column() const noexcept { return column_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  std::uint_least32_t line_ = 0;
  std::uint_least32_t column_ = 0;
};
}  // namespace std
#endif
