#!/usr/bin/env bash
# The sanitizer sweep (docs/sanitizers.md): builds the `asan-sweep` preset (GCC, -O2, ASan for
# heap and globals without stack instrumentation, UBSan; Boost.Context's stack switches defeat
# ASan's stack checks) and sweeps every scenario under it. Any sanitizer finding is a harness-error
# failure of the seed that did it, with the finding in its record and the report in
# OUT/failures/<scenario>-<strategy>-<seed>.sanitizer.txt; the sweep then exits non-zero.
# Usage: tools/sanitizer-sweep.sh [SEEDS] [OUT] [extra sweep options...]
#   SEEDS  default 1..10000 (every scenario, one strategy drawn per seed); OUT default fencesim-asan-out
# e.g.  tools/sanitizer-sweep.sh 1..500 asan-out --strategy random --jobs 1
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-1..10000}"
out="${2:-fencesim-asan-out}"
shift $(( $# > 2 ? 2 : $# ))
bash tools/install-deps.sh
cmake --preset asan-sweep >/dev/null
cmake --build --preset asan-sweep --target fencesim
# A leak at a worker's _exit is no finding: workers end without unwinding, on purpose.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
# First the proof that the build bites (red team 42c-11: the planted overflow made to stay in range
# passed every test and every night, since the tests that would see it skip outside a sanitizer
# build and no job ran them in one): the bugs scenarios/planted_bugs.cpp plants in simulated
# fibers must come back as harness errors that name each sanitizer's finding. A build whose
# sanitizers are off, or whose findings stopped reaching the runs' records, fails here, before a
# night of green runs that could not have failed.
proof=$(mktemp -d)
trap 'rm -rf "$proof"' EXIT
for planted in "planted-use-after-free|AddressSanitizer: heap-use-after-free" \
               "planted-signed-overflow|UndefinedBehaviorSanitizer: signed integer overflow"; do
  scenario=${planted%%|*}
  finding=${planted#*|}
  FENCESIM_TEST_PLANTED_BUGS=1 build/asan-sweep/cli/fencesim sweep --scenario "$scenario" \
    --seeds 1..8 --strategy random --jobs 1 --draw-limit 0 --run-timeout 300s \
    --out "$proof/$scenario" >"$proof/$scenario.log" 2>&1 || true
  if ! grep -q "\"detail\":\"sanitizer: $finding" "$proof/$scenario/runs.jsonl" 2>/dev/null; then
    echo "sanitizer-sweep: $scenario's planted bug was not reported as '$finding':" \
      "the sanitizers do not bite, so a green sweep would prove nothing" >&2
    tail -n 5 "$proof/$scenario.log" >&2
    exit 1
  fi
  echo "sanitizer-sweep: $scenario reported ($finding)"
done
rm -rf "$proof"  # exec below ends this shell without its EXIT trap
trap - EXIT
# --run-timeout: a sanitizer build runs several times slower than the default build.
exec build/asan-sweep/cli/fencesim sweep --seeds "$seeds" --out "$out" --run-timeout 300s "$@"
