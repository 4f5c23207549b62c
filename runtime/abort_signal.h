#pragma once
// The cancel signal of a step (AbortSignal/AbortController as in JavaScript). A lease that is lost
// aborts the signal of every step running under it, with the reason why.
#include <exception>
#include <memory>

namespace fencesim::runtime {

class AbortSignal {
 public:
  bool aborted() const { return state_ && state_->reason != nullptr; }
  // The reason it was aborted with; null while not aborted.
  std::exception_ptr reason() const { return state_ ? state_->reason : nullptr; }
  void throw_if_aborted() const {
    if (aborted()) std::rethrow_exception(state_->reason);
  }

 private:
  friend class AbortController;
  struct State {
    std::exception_ptr reason;
  };
  std::shared_ptr<State> state_;
};

class AbortController {
 public:
  AbortController() { signal_.state_ = std::make_shared<AbortSignal::State>(); }
  // The first reason wins: a later abort does not replace it.
  void abort(std::exception_ptr reason) {
    if (!signal_.state_->reason) signal_.state_->reason = std::move(reason);
  }
  const AbortSignal& signal() const { return signal_; }

 private:
  AbortSignal signal_;
};

}  // namespace fencesim::runtime
