#!/usr/bin/env bash
# Mutants: proof that the harness bites (DESIGN.md). For each mutant in mutants/manifest.txt:
# copy the working tree (one snapshot per run), apply mutants/NAME.patch to the copy's runtime/,
# build the copy's `fencesim`, and run its scenarios seed by seed until one fails. A mutant that no
# seed of its budget catches survives, and the script exits 1.
#
# Harness mutants (mutants/harness/manifest.txt; tools/mutants_harness.sh) are patches to sim/,
# scenarios/, properties/, reports/, cli/ or explore/, each caught by the one check its manifest line names
# (ctest:REGEX or sweep:SCENARIOS:A..B:KIND), which must pass on the unpatched tree and fail on the
# patched one.
#
# Usage: tools/mutants.sh [--fast] [--runtime|--harness] [--only NAME[,NAME...]] [--budget N] [--jobs N] [--sweep SECONDS [--until-caught]]
#        tools/mutants.sh --check [--runtime|--harness] [--only NAME[,NAME...]]
#   --runtime     only the mutants of runtime/ (mutants/manifest.txt)
#   --harness     only the harness mutants (mutants/harness/manifest.txt); without either, both
#   --check       build and run nothing: only `git apply --check` each selected mutant's patch on the
#                 working tree (after a merge or a runtime change); exit 2 if one no longer applies
#   --fast        only the mutants marked `fast` in the manifest (the CI subset)
#   --sweep S     (runtime mutants only) instead of the manifest's aimed scenarios, a plain
#                 `fencesim sweep --budget Ss --jobs 1` of every scenario per mutant (the proof that
#                 a mutant is caught for real); reports caught/survived, the first failing
#                 invariant and the seconds of runs until the first failure (summed from the
#                 sweep's run_times.jsonl)
#   --until-caught  with --sweep: stop each mutant's sweep at its first failure (the sweep's
#                 --stop-after-failures 1); the first failing invariant and seconds are the same,
#                 the share of runs failed is not measured (a caught mutant costs seconds, not S)
#   --only        only these mutants (repeatable)
#   --budget N    seeds per scenario instead of the manifest's budget
#   --jobs N      build parallelism (default: ninja's)
# Environment: FENCESIM_MUTANTS_DIR (default /tmp/fencesim-mutants) holds ONE copy of the tree and
#   ONE build directory (shared/), built with preset ci's flags (RelWithDebInfo, -Werror): each
#   mutant's patch is synced into the copy and only what it touches is rebuilt (about a minute for
#   a .cpp, a few for a header), and the next mutant's sync restores it (ccache makes that a hit).
#   A mutant whose objects fail only by -Werror is built again with -Wno-error (tools/mutate/
#   compile.sh). Each mutant keeps its logs, its sweep and a stripped copy of its binary in NAME/.
#   FENCESIM_MUTANT_RUN_TIMEOUT: seconds one `fencesim run` may take (default 300).
# Exit: 0 every mutant caught; 1 a mutant survived its budget, or a harness mutant was caught by
#   another check than its catcher; 2 a patch no longer applies or a mutant does not build (the
#   runtime moved on: regenerate the patch), or a harness catcher fails on the unpatched tree or
#   matches no test; 64 bad usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${FENCESIM_MUTANTS_DIR:-/tmp/fencesim-mutants}
run_timeout=${FENCESIM_MUTANT_RUN_TIMEOUT:-300}
manifest="$root/mutants/manifest.txt"
harness_manifest="$root/mutants/harness/manifest.txt"
fast=0
budget_override=""
jobs=""
sweep_seconds=""
until_caught=0
check_only=0
only=()
which=both

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 64; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fast) fast=1 ;;
    --check) check_only=1 ;;
    --runtime) which=runtime ;;
    --harness) which=harness ;;
    --only) [[ $# -ge 2 ]] || usage; IFS=',' read -r -a names <<<"$2"; only+=("${names[@]}"); shift ;;
    --budget) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || usage; budget_override=$2; shift ;;
    --jobs) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || usage; jobs=$2; shift ;;
    --sweep) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ && "$2" -gt 0 ]] || usage; sweep_seconds=$2; shift ;;
    --until-caught) until_caught=1 ;;
    -h|--help) usage ;;
    *) echo "mutants: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done

trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; echo "${s%"${s##*[![:space:]]}"}"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# --- the manifest -----------------------------------------------------------------------------
declare -a m_name m_scenarios m_budget m_ci m_catcher m_harness
wanted_name() {
  [[ ${#only[@]} -eq 0 ]] && return 0
  local o
  for o in "${only[@]}"; do [[ "$o" == "$1" ]] && return 0; done
  return 1
}
# --sweep is the runtime mutants' proof by a plain sweep: harness mutants have their own catchers.
[[ -n "$sweep_seconds" && $which == both ]] && which=runtime
[[ -n "$sweep_seconds" && $which == harness ]] && { echo "mutants: --sweep is for runtime mutants" >&2; exit 64; }
[[ $which == harness ]] || while IFS= read -r line; do
  [[ -z "$(trim "$line")" || "$(trim "$line")" == \#* ]] && continue
  IFS='|' read -r f_name f_scenarios f_budget f_ci f_catcher <<<"$line"
  name=$(trim "$f_name")
  if [[ ${#only[@]} -gt 0 ]]; then
    wanted=0
    for o in "${only[@]}"; do [[ "$o" == "$name" ]] && wanted=1; done
    [[ $wanted == 1 ]] || continue
  fi
  [[ $fast == 1 && "$(trim "$f_ci")" != fast ]] && continue
  m_name+=("$name")
  m_scenarios+=("$(trim "$f_scenarios")")
  m_budget+=("${budget_override:-$(trim "$f_budget")}")
  m_ci+=("$(trim "$f_ci")")
  m_catcher+=("$(trim "$f_catcher")")
  m_harness+=(0)
done <"$manifest"
# mutants/harness/manifest.txt: name | catcher | ci | what the bug is. A ctest catcher's regex
# may hold '|': the catcher is everything between the first field and the last two.
[[ $which == runtime ]] || while IFS= read -r line; do
  [[ -z "$(trim "$line")" || "$(trim "$line")" == \#* ]] && continue
  f_name=${line%%|*}
  rest=${line#*|}
  rest=${rest%|*}
  f_ci=${rest##*|}
  f_catcher=${rest%|*}
  name=$(trim "$f_name")
  wanted_name "$name" || continue
  [[ $fast == 1 && "$(trim "$f_ci")" != fast ]] && continue
  m_name+=("$name")
  m_scenarios+=("")
  m_budget+=("")
  m_ci+=("$(trim "$f_ci")")
  m_catcher+=("$(trim "$f_catcher")")
  m_harness+=(1)
done <"$harness_manifest"
for o in "${only[@]}"; do
  found=0
  for n in "${m_name[@]}"; do [[ "$n" == "$o" ]] && found=1; done
  [[ $found == 1 ]] || { echo "mutants: no mutant '$o' selected from $manifest or $harness_manifest" >&2; exit 64; }
done
[[ ${#m_name[@]} -gt 0 ]] || { echo "mutants: no mutant selected" >&2; exit 64; }

if [[ $check_only == 1 ]]; then
  stale=0
  for i in "${!m_name[@]}"; do
    name=${m_name[$i]}
    file="mutants/$name.patch"
    [[ ${m_harness[$i]} == 1 ]] && file="mutants/harness/$name.patch"
    if (cd "$root" && git apply --check --whitespace=nowarn "$file") 2>/dev/null; then
      echo "applies  $name"
    else
      echo "STALE    $name (regenerate $file)" >&2
      stale=1
    fi
  done
  [[ $stale == 0 ]] || exit 2
  exit 0
fi

# --- helpers ----------------------------------------------------------------------------------
# Takes one snapshot of the WORKING tree (tracked and untracked files, not ignored ones such as
# build/) as a tar file, so that every mutant of a run is built from the same files even while
# others edit the tree.
snapshot_tree() {
  local tarfile="$1" list
  list=$(mktemp)
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [[ -f "$f" ]] && printf '%s\0' "$f"; done) >"$list"
  (cd "$root" && tar --null -T "$list" -cf "$tarfile")
  rm -f "$list"
}

# Makes $2 hold exactly the files of $1, by content: a file whose content changed is copied and so
# gets a fresh modification time (ninja rebuilds what depends on it); an unchanged file is left
# alone (ninja does not). Keeping the snapshot's times instead would hide an edit made between two
# runs from ninja whenever the edit is older than the build.
sync_tree() {
  local from="$1" dest="$2" f
  mkdir -p "$dest"
  (cd "$from" && find . -type f -printf '%P\0') | while IFS= read -r -d '' f; do
    if ! cmp -s "$from/$f" "$dest/$f"; then
      mkdir -p "$(dirname "$dest/$f")"
      cp -f "$from/$f" "$dest/$f"
    fi
  done
  (cd "$dest" && find . -type f -printf '%P\0') | while IFS= read -r -d '' f; do
    [[ -f "$from/$f" ]] || rm -f -- "$dest/$f"
  done
}

# Reads a `fencesim run --json` object on stdin; prints "status<TAB>invariant".
parse_json() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import json, sys
try:
    o = json.loads(sys.stdin.read())
except Exception:
    print("unparsed\t"); sys.exit(0)
v = o.get("violations") or []
inv = v[0].get("invariant", "") if v and isinstance(v[0], dict) else ""
print("%s\t%s" % (o.get("status", "unknown"), inv))'
  else
    local text status inv
    text=$(cat)
    status=$(grep -o '"status" *: *"[^"]*"' <<<"$text" | head -1 | sed 's/.*"\([^"]*\)"$/\1/')
    inv=$(grep -o '"invariant" *: *"[^"]*"' <<<"$text" | head -1 | sed 's/.*"\([^"]*\)"$/\1/')
    printf '%s\t%s\n' "${status:-unknown}" "$inv"
  fi
}

# Paths relative to $work and no working directory in the hash: a file restored to its unpatched
# content hits the cache entry of its first build. compile.sh runs ccache when it is installed.
export CCACHE_BASEDIR="$work" CCACHE_NOHASHDIR=true
shared="$work/shared"
# Every mutant relinks fencesim (150 MB with its debug sections): lld does it in a fraction of
# ld.bfd's time.
linker=()
command -v ld.lld >/dev/null 2>&1 && linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)

# --- one mutant -------------------------------------------------------------------------------
# Sets r_caught_by, r_seeds, r_seconds, r_build, r_outcome (caught|survived|broken), r_replay.
run_mutant() {
  local name="$1" scenarios_csv="$2" budget="$3"
  local dir="$work/$name" patch="$root/mutants/$name.patch"
  r_caught_by="" r_seeds="" r_seconds="" r_build="" r_outcome="" r_replay="" r_note="" r_shrunk=""
  echo "== $name: copy, patch, build" >&2
  [[ -f "$patch" ]] || { r_outcome=broken; r_caught_by="NO PATCH FILE"; return; }
  # The patch is applied to a fresh staging copy, which is then synced into the build's source
  # copy: the patched file keeps its time from one rerun to the next, and is rebuilt only if it
  # changed. The copy has no .git: GIT_CEILING_DIRECTORIES keeps git from finding a repository
  # above it (paths would then be taken relative to that repository's top).
  rm -rf "$dir/stage"
  mkdir -p "$dir/stage"
  tar -xf "$work/tree.tar" -C "$dir/stage"
  if ! (cd "$dir/stage" && GIT_CEILING_DIRECTORIES="$dir" git apply --whitespace=nowarn "$patch") \
    2>"$dir/apply.log"; then
    cat "$dir/apply.log" >&2
    echo "mutants: $name: mutants/$name.patch no longer applies: the runtime moved on;" \
      "regenerate the patch" >&2
    r_outcome=broken; r_caught_by="PATCH DOES NOT APPLY"; return
  fi
  # One source copy and one build for every mutant: sync_tree copies only the files whose content
  # differs from the copy's (this mutant's patched files, the last mutant's restored ones), so
  # ninja rebuilds only what they touch.
  sync_tree "$dir/stage" "$shared/src"
  rm -rf "$dir/stage"
  local t0 t1
  t0=$(now)
  # Unity batches (the default), as the worktree builds: the first build of the copy compiles
  # fencesim's 31 batches (154 s on an idle 2-core machine; ccache does not hit the worktree's
  # objects, whose batch files name the worktree's paths), and a mutant rebuilds its file's batch.
  if [[ ! -f "$shared/build/build.ninja" ]]; then
    if ! cmake -S "$shared/src" -B "$shared/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DFENCESIM_WERROR=ON -DCMAKE_CXX_COMPILER_LAUNCHER="$shared/src/tools/mutate/compile.sh" \
      "${linker[@]}" >"$dir/configure.log" 2>&1; then
      tail -30 "$dir/configure.log" >&2
      r_outcome=broken; r_caught_by="CONFIGURE FAILED"; return
    fi
  fi
  if ! cmake --build "$shared/build" --target fencesim ${jobs:+-j "$jobs"} >"$dir/build.log" 2>&1; then
    # A mutant may leave a variable unused or a branch unreachable: a warning, not a broken
    # mutant. Build again without -Werror; a real compile error fails here too.
    if ! grep -q -- '-Werror' "$dir/build.log" ||
      ! FENCESIM_MUTATE_NO_WERROR=1 cmake --build "$shared/build" --target fencesim \
        ${jobs:+-j "$jobs"} >>"$dir/build.log" 2>&1; then
      grep -m 20 -E 'error|Error' "$dir/build.log" >&2 || tail -30 "$dir/build.log" >&2
      echo "mutants: $name: the mutant does not build (log: $dir/build.log)" >&2
      r_outcome=broken; r_caught_by="BUILD FAILED"; return
    fi
    r_note="built with -Wno-error"
  fi
  t1=$(now)
  r_build=$(elapsed "$t0" "$t1")
  # The shared build is overwritten by the next mutant: keep this one's binary (without its
  # debug sections: 10x smaller) so its replay line stays true.
  local built binary="$dir/fencesim"
  built=$(find "$shared/build" -type f -name fencesim -perm -u+x | head -1)
  [[ -n "$built" ]] || { r_outcome=broken; r_caught_by="NO fencesim BINARY"; return; }
  objcopy --strip-debug "$built" "$binary" 2>/dev/null || cp -f "$built" "$binary"

  if [[ -n "$sweep_seconds" ]]; then
    local -a stop_early=()
    [[ $until_caught -eq 1 ]] && stop_early=(--stop-after-failures 1)
    local sweep_timeout=$((sweep_seconds * 3 + 300))
    sweep_mutant "$name" "$binary" "$dir" "a ${sweep_seconds}s sweep" \
      --budget "${sweep_seconds}s" "${stop_early[@]}"
    return
  fi
  # sweep:A,B,...: the scenarios' seeds 1..budget in ONE worker process, as a night runs them. A
  # bug whose run depends on the runs before it in the same process (state that outlives a world:
  # a static, a cache) never shows in `fencesim run`, one seed per process.
  if [[ $scenarios_csv == sweep:* ]]; then
    local -a in_one_worker=() listed=()
    local listed_one
    IFS=',' read -r -a listed <<<"${scenarios_csv#sweep:}"
    for listed_one in "${listed[@]}"; do in_one_worker+=(--scenario "$listed_one"); done
    echo "== $name: built in ${r_build}s; seeds 1..$budget of ${listed[*]} in one worker" >&2
    local sweep_timeout=$((run_timeout * 4))
    sweep_mutant "$name" "$binary" "$dir" "seeds 1..$budget of ${listed[*]} in one worker" \
      "${in_one_worker[@]}" --seeds "1..$budget" --stop-after-failures 1
    return
  fi
  local -a scenarios live=()
  IFS=',' read -r -a scenarios <<<"$scenarios_csv"
  local missing=()
  echo "== $name: built in ${r_build}s; seeds 1..$budget of ${scenarios[*]}" >&2
  t0=$(now)
  local seed scenario out rc status invariant runs=0
  for seed in $(seq 1 "$budget"); do
    for scenario in "${scenarios[@]}"; do
      # A scenario found missing at seed 1 is skipped for the rest.
      if [[ $seed -gt 1 ]]; then
        local is_live=0 s
        for s in "${live[@]}"; do [[ "$s" == "$scenario" ]] && is_live=1; done
        [[ $is_live == 1 ]] || continue
      fi
      runs=$((runs + 1))
      rc=0
      rm -f "$dir/catch.replay.json"
      # NAME@STRATEGY runs the scenario under that scheduling strategy (a catch some strategies
      # reach and the default does not).
      local -a strategy=()
      [[ $scenario == *@* ]] && strategy=(--strategy "${scenario#*@}")
      out=$(cd "$dir" && timeout "$run_timeout" "$binary" run --scenario "${scenario%@*}" \
        "${strategy[@]}" --seed "$seed" --json --replay-out "$dir/catch.replay.json" \
        2>"$dir/last-run.stderr") || rc=$?
      case $rc in
        0) [[ $seed -eq 1 ]] && live+=("$scenario"); continue ;;
        2|64)
          if [[ $seed -eq 1 ]]; then missing+=("$scenario"); continue; fi
          status="usage-error"; invariant="" ;;
        124) status="timeout"; invariant="" ;;
        *) IFS=$'\t' read -r status invariant < <(parse_json <<<"$out") || true ;;
      esac
      t1=$(now)
      r_seconds=$(elapsed "$t0" "$t1")
      r_seeds=$seed
      case $rc in
        1) r_caught_by="${invariant:-violation}" ;;
        3) r_caught_by="liveness" ;;
        5) r_caught_by="harness-error" ;;
        124) r_caught_by="timeout (${run_timeout}s)" ;;
        1[2-9][0-9]|2[0-9][0-9]) r_caught_by="crash (exit $rc)" ;;
        *) r_caught_by="${status:-crash} (exit $rc)" ;;
      esac
      r_caught_by="$r_caught_by @ $scenario"
      r_outcome=caught
      # The shrunk plan's size: how small the story that catches this mutant can be.
      r_shrunk="-"
      if [[ -f "$dir/catch.replay.json" ]]; then
        local shrunk_line
        shrunk_line=$(timeout "$run_timeout" "$binary" shrink "$dir/catch.replay.json" \
          --out "$dir/catch.shrunk.json" --max-runs 200 2>/dev/null | grep -m1 '^faults: ') || true
        [[ -n "$shrunk_line" ]] && r_shrunk=$(sed 's/^faults: \([0-9]* -> [0-9]*\).*/\1/' <<<"$shrunk_line")
      fi
      r_replay="(cd $dir && $binary run --scenario ${scenario%@*} ${strategy[*]} --seed $seed)"
      echo "== $name: caught by $r_caught_by, seed $seed, ${r_seconds}s ($runs runs)" >&2
      return
    done
    if [[ $seed -eq 1 && ${#live[@]} -eq 0 && ${#missing[@]} -gt 0 ]]; then break; fi
  done
  t1=$(now)
  r_seconds=$(elapsed "$t0" "$t1")
  r_outcome=survived
  r_seeds="${budget} x ${#live[@]}"
  r_caught_by="SURVIVED"
  [[ ${#missing[@]} -gt 0 ]] && r_note="${r_note:+$r_note; }missing scenario: ${missing[*]}"
  echo "== $name: survived ${budget} seeds of ${live[*]:-no scenario} (${r_seconds}s)" >&2
}

# One sweep, in one worker, for the mutant's binary: --sweep's plain sweep of every scenario, or a
# manifest's sweep: catcher. Usage: sweep_mutant NAME BINARY DIR WHAT SWEEP-ARGS... Sets the same
# r_* as run_mutant. The seconds are the summed wall seconds of the runs up to and including the
# first failure, in the order the sweep recorded them (one job, so the order it ran them).
sweep_mutant() {
  local name="$1" binary="$2" dir="$3" what="$4" rc=0 line
  shift 4
  rm -rf "$dir/sweep"
  echo "== $name: fencesim sweep $* --jobs 1" >&2
  (cd "$dir" && timeout "$sweep_timeout" "$binary" sweep "$@" \
    --jobs 1 --out "$dir/sweep" >"$dir/sweep.log" 2>&1) || rc=$?
  if [[ ! -f "$dir/sweep/runs.jsonl" ]]; then
    tail -5 "$dir/sweep.log" >&2
    r_outcome=broken; r_caught_by="SWEEP GAVE NO runs.jsonl (exit $rc)"; return
  fi
  line=$(python3 - "$dir/sweep" <<'PY'
import json, sys
d = sys.argv[1]
times = {}
try:
    for l in open(d + "/run_times.jsonl"):
        if l.strip():
            t = json.loads(l)
            times[(t["scenario"], t["strategy"], t["seed"])] = t["wall_seconds"]
except FileNotFoundError:
    pass
total, runs, failures, first = 0.0, 0, 0, None
for l in open(d + "/runs.jsonl"):
    if not l.strip():
        continue
    r = json.loads(l)
    runs += 1
    if first is None:
        total += times.get((r["scenario"], r["strategy"], r["seed"]), 0.0)
    if r["status"] != "pass":
        failures += 1
        if first is None:
            v = r.get("first_violation") or {}
            what = v.get("invariant") or r["status"]
            first = "%s @ %s seed %s (%s)" % (what, r["scenario"], r["seed"], r["strategy"])
# "-" for no failure: `read` with a tab IFS would swallow an empty first field.
print("%s\t%.1f\t%d\t%d" % (first or "-", total, runs, failures))
PY
  )
  local first seconds runs failures
  IFS=$'\t' read -r first seconds runs failures <<<"$line"
  r_seconds=$seconds
  r_seeds="$failures/$runs runs failed"
  if [[ "$first" != "-" ]]; then
    r_outcome=caught; r_caught_by="$first"
    r_replay="(see $dir/sweep/summary.json)"
    echo "== $name: caught by $first after ${seconds}s of runs ($failures of $runs runs failed)" >&2
  else
    r_outcome=survived; r_caught_by="SURVIVED"
    echo "== $name: survived $what ($runs runs)" >&2
  fi
}

source "$root/tools/mutants_harness.sh"

# --- all of them ------------------------------------------------------------------------------
mkdir -p "$work"
total0=$(now)
snapshot_tree "$work/tree.tar"
results="$work/results.tsv"
printf 'mutant\toutcome\tcaught_by\tseeds\tseconds\tshrunk_faults\tbuild_seconds\tnote\n' >"$results"
rows=()
survivors=()
replays=()
worst=0
for i in "${!m_name[@]}"; do
  if [[ ${m_harness[$i]} == 1 ]]; then
    run_harness_mutant "${m_name[$i]}" "${m_catcher[$i]}"
  elif [[ ${m_scenarios[$i]} == ctest:* ]]; then
    run_harness_mutant "${m_name[$i]}" "${m_scenarios[$i]}" runtime
  else
    run_mutant "${m_name[$i]}" "${m_scenarios[$i]}" "${m_budget[$i]}"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${m_name[$i]}" "$r_outcome" "$r_caught_by" \
    "$r_seeds" "$r_seconds" "${r_shrunk:--}" "$r_build" "$r_note" >>"$results"
  rows+=("| ${m_name[$i]} | $r_caught_by | ${r_seeds:--} | ${r_seconds:--} | ${r_shrunk:--} | ${r_build:--} |")
  case $r_outcome in
    caught) replays+=("${m_name[$i]}: $r_replay") ;;
    survived|wrong-catcher)
      survivors+=("${m_name[$i]}: would be caught by ${m_catcher[$i]}${r_note:+ [$r_note]}")
      [[ $worst -lt 1 ]] && worst=1 ;;
    *) worst=2 ;;
  esac
done
total=$(elapsed "$total0" "$(now)")

echo
echo "| mutant | caught by | seeds | seconds | shrunk plan (faults) | build s |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "total: ${total}s for ${#m_name[@]} mutants (results: $results)"
if [[ ${#replays[@]} -gt 0 ]]; then
  echo; echo "replay a catch:"; printf '  %s\n' "${replays[@]}"
fi
if [[ ${#survivors[@]} -gt 0 ]]; then
  echo; echo "survivors:"; printf '  %s\n' "${survivors[@]}"
fi
[[ $worst -eq 2 ]] && echo "mutants: a patch no longer applies or a mutant does not build" >&2
exit "$worst"
