#include "scenarios/hand_over_text.h"

#include <fmt/format.h>

namespace fencesim::scenarios {

std::string fenced_error_text(const runtime::ExecutionFencedError& error, runtime::Token observed,
                              runtime::Token fence_token) {
  std::string text(error.code());
  const bool observed_carried = observed > runtime::kTokenMax
                                    ? error.observed_token() <= runtime::kTokenMax
                                    : error.observed_token() == observed;
  // Either token wrong is enough: a fence that hands over someone else's token stops the wrong
  // holder as surely as one that loses the downstream's.
  if (!observed_carried || error.token() != fence_token) {
    text += fmt::format(" carrying token {} and observed token {}", error.token(),
                        error.observed_token());
  }
  return text;
}

}  // namespace fencesim::scenarios
