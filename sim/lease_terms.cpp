#include "sim/lease_terms.h"

namespace fencesim::sim {

runtime::LeasePolicy LeaseTerms::runtime_policy() const {
  const LeaseTerms adr;
  runtime::LeasePolicy policy;
  if (ttl_ns != adr.ttl_ns) policy.ttl_ns = ttl_ns;
  if (renew_interval_ns != adr.renew_interval_ns) policy.renew_interval_ns = renew_interval_ns;
  if (drift_bound_ppm != adr.drift_bound_ppm) policy.drift_bound_ppm = drift_bound_ppm;
  if (drift_margin_min_ns != adr.drift_margin_min_ns) {
    policy.drift_margin_min_ns = drift_margin_min_ns;
  }
  return policy;
}

}  // namespace fencesim::sim
