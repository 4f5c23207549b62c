#pragma once
// How a body's record names the ExecutionFencedError it was handed (scenarios/reconcile_step.cpp):
// kept apart so that a test can hold it to the ADR's promise without a world around it.
#include <string>

#include "runtime/errors.h"
#include "runtime/types.h"

namespace fencesim::scenarios {

// The error's code; and, when the error does not carry both the token the body reported as
// observed and the fence's own token, " carrying token T and observed token O": the hand-over
// oracle then reads the record as not the hand-over the body asked for. A reported token above
// 2^53-1 is no token: the error carries a safe one in its place, which counts as carried.
// `fence_token` is kTokenNone when the fence could not say its token (its step ended).
std::string fenced_error_text(const runtime::ExecutionFencedError& error, runtime::Token observed,
                              runtime::Token fence_token);

}  // namespace fencesim::scenarios
