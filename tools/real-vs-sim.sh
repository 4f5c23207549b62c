#!/usr/bin/env bash
# The simulation's case in one figure (issue 10, section 4): one scenario in simulation and in real
# mode (real processes, real SIGSTOP, SQLite), measured in the same minute on this machine: seeds
# per minute, and catches per minute of a broken sink (a run that fails its invariants).
# The broken sink is `--sink-double accept-stale` in both modes: a sink without the token check,
# the sink-no-token-check mutant's bug (the mutant itself patches runtime/'s in-memory sink, which
# a real run does not use: its sinks are SQLite tables).
#
# Usage: tools/real-vs-sim.sh FENCESIM [--scenario NAME] [--real-seeds N] [--sim-seconds S]
#   FENCESIM         the fencesim binary to measure
#   --scenario       default kleppmann-fencing
#   --real-seeds N   real runs per binary (default 20; each takes about a second)
#   --sim-seconds S  wall seconds of simulated sweep per binary (default 20)
# Prints one line per measure and the ratios. Real runs are wall-time bound (they sleep through
# scaled leases) and simulated ones CPU bound: on a loaded machine the ratio is an underestimate.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 64; }
[[ $# -ge 1 ]] || usage
binary=$1; shift
scenario=kleppmann-fencing
real_seeds=20
sim_seconds=20
while [[ $# -gt 0 ]]; do
  case "$1" in
    --scenario) [[ $# -ge 2 ]] || usage; scenario=$2; shift ;;
    --real-seeds) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ && "$2" -gt 0 ]] || usage; real_seeds=$2; shift ;;
    --sim-seconds) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ && "$2" -gt 0 ]] || usage; sim_seconds=$2; shift ;;
    *) echo "real-vs-sim: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[[ -x "$binary" ]] || { echo "real-vs-sim: '$binary' is not an executable fencesim" >&2; exit 2; }
command -v python3 >/dev/null || { echo "real-vs-sim: needs python3" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

# Prints "<runs> <failed> <wall seconds>" for a simulated sweep of S wall seconds.
# Arguments: extra options of the sweep (the sink double).
sim_measure() {
  local out="$work/sim-$RANDOM" t0 t1
  t0=$(now)
  "$binary" sweep --scenario "$scenario" --budget "${sim_seconds}s" --jobs 1 --out "$out" "$@" \
    >"$out.log" 2>&1 || true
  t1=$(now)
  python3 - "$out/summary.json" "$t0" "$t1" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
t = s.get("totals", s)
runs = t.get("runs", t.get("passed", 0) + t.get("failed", 0))
print(runs, t.get("failed", 0), float(sys.argv[3]) - float(sys.argv[2]))
EOF
}

# Prints "<runs> <failed> <wall seconds>" for N real runs, one after another. Arguments: extra
# options of `fencesim real` (the sink double).
real_measure() {
  local failed=0 seed t0 t1 rc
  t0=$(now)
  for ((seed = 1; seed <= real_seeds; ++seed)); do
    rc=0
    "$binary" real --scenario "$scenario" --seed "$seed" "$@" >"$work/real-$seed.log" 2>&1 || rc=$?
    if [[ $rc == 1 ]]; then
      failed=$((failed + 1))
    elif [[ $rc != 0 ]]; then
      echo "real-vs-sim: real run of seed $seed exited $rc (log below)" >&2
      tail -5 "$work/real-$seed.log" >&2
      exit 2
    fi
  done
  t1=$(now)
  echo "$real_seeds $failed $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}

per_minute() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", n * 60 / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "-" }'; }

echo "scenario: $scenario; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
read -r sim_runs sim_failed sim_wall < <(sim_measure)
read -r real_runs real_failed real_wall < <(real_measure)
sim_rate=$(per_minute "$sim_runs" "$sim_wall")
real_rate=$(per_minute "$real_runs" "$real_wall")
echo "healthy sink, simulation: $sim_runs runs in ${sim_wall}s, $sim_failed failed: $sim_rate seeds/min"
echo "healthy sink, real mode:  $real_runs runs in ${real_wall}s, $real_failed failed: $real_rate seeds/min"
echo "seeds per minute, simulation / real: $(ratio "$sim_rate" "$real_rate")"
read -r msim_runs msim_failed msim_wall < <(sim_measure --sink-double accept-stale)
read -r mreal_runs mreal_failed mreal_wall < <(real_measure --sink-double accept-stale)
msim_rate=$(per_minute "$msim_failed" "$msim_wall")
mreal_rate=$(per_minute "$mreal_failed" "$mreal_wall")
echo "stale-accepting sink, simulation: $msim_runs runs in ${msim_wall}s, $msim_failed caught: $msim_rate catches/min"
echo "stale-accepting sink, real mode:  $mreal_runs runs in ${mreal_wall}s, $mreal_failed caught: $mreal_rate catches/min"
echo "catches per minute, simulation / real: $(ratio "$msim_rate" "$mreal_rate")"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
