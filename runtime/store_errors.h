#pragma once
// What a store call throws besides its reply (runtime/lease_repository.h, checkpoint_store.h):
// the store could not be reached, or a key's epochs are spent. Apart from the interfaces so that
// the simulated network and the real links, which throw and catch them, need not include those.
#include <stdexcept>

namespace fencesim::runtime {

class TokenOverflowError : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

class StoreUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fencesim::runtime
