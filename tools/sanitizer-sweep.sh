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
# --run-timeout: a sanitizer build runs several times slower than the default build.
exec build/asan-sweep/cli/fencesim sweep --seeds "$seeds" --out "$out" --run-timeout 300s "$@"
