#!/usr/bin/env bash
# The profile split of issue 30: where a sweep's CPU goes, the runtime under test against the
# harness that runs it (tools/profile/split.py says how each symbol is charged).
#
# Usage: tools/profile-split.sh [--callers] [BINARY] [SWEEP ARGS...]
#   --callers  also record call graphs (perf's DWARF unwinding, at 499 Hz) and print the split by
#              caller: each sample charged to the innermost fencesim function on its stack, so the
#              libraries' time (allocation, memcmp, the containers) goes to who asked for it
#              (tools/profile/split.py says how). The self-time split is printed first either way.
#   BINARY     a fencesim binary (default build/ci/cli/fencesim)
#   SWEEP ARGS default: --scenario nightly-mix --seeds 1..150 (every invariant on), always --jobs 1
# Needs perf (apt-get install linux-perf) and permission to record (root, or
# kernel.perf_event_paranoid <= 1). Compare two builds by running it on each binary in turn on the
# same machine: the shares are ratios, but the machine's load shifts them a little.
set -euo pipefail
cd "$(dirname "$0")/.."
callers=0
if [[ ${1:-} == --callers ]]; then callers=1; shift; fi
binary=build/ci/cli/fencesim
if [[ $# -gt 0 && -x "$1" && ! -d "$1" ]]; then binary=$1; shift; fi
args=("$@")
if [[ ${#args[@]} -eq 0 ]]; then args=(--scenario nightly-mix --seeds 1..150); fi
if ! command -v perf >/dev/null; then
  echo "profile-split: perf is not installed (apt-get install linux-perf)" >&2
  exit 2
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# A sweep with one worker: the worker process is followed (perf record inherits into children).
record=(-F 1999)
if [[ $callers == 1 ]]; then record=(-F 499 --call-graph dwarf,16384); fi
perf record -q "${record[@]}" -o "$scratch/perf.data" -- \
  "$binary" sweep "${args[@]}" --jobs 1 --out "$scratch/out" >"$scratch/sweep.txt" 2>&1 || {
  echo "profile-split: the sweep failed (or perf could not record):" >&2
  tail -n 5 "$scratch/sweep.txt" >&2
  exit 1
}
grep -E "^[a-z].*: [0-9]+ runs" "$scratch/sweep.txt" || true
perf report -i "$scratch/perf.data" --no-children -g none --sort sym --stdio -F overhead,sym \
  2>/dev/null | python3 tools/profile/split.py
if [[ $callers == 1 ]]; then
  echo "by caller:"
  perf script -i "$scratch/perf.data" -F ip,sym 2>/dev/null | python3 tools/profile/split.py --callers
fi
