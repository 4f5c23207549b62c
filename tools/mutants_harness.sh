# Harness mutants (docs/mutants.md, "Harness mutants"): sourced by tools/mutants.sh, which owns the
# snapshot ($work/tree.tar), the shared source copy and build ($shared/src, $shared/build), sync_tree,
# now/elapsed and the configure flags. A harness mutant is a patch to sim/, scenarios/, properties/,
# reports/, cli/ or runtime/testing/ (the leases fixture that the runtime's unit tests run on; never
# to a folder's tests/: the catcher lives there) whose manifest line names the ONE check that must
# catch it:
#   ctest:REGEX                   the GoogleTest names (ctest's test names, Suite.Name) matching
#                                 ^(REGEX)$; the test executables that define those suites (and
#                                 fencesim when cli_tests runs it) are built; caught iff one of them
#                                 fails under the mutant
#   sweep:SCENARIOS:A..B:KIND     `fencesim sweep` of the comma-separated SCENARIOS, seeds A..B,
#                                 --jobs 1 (one order), stopped at the first failure; caught iff that
#                                 failure is KIND: an invariant, a status (violation, liveness,
#                                 harness-error) or nondeterminism; or, every run passing, KIND is
#                                 unproven and the sweep exits 6 (a claim not proven)
# A harness bug passes every other check by construction, so "something failed" proves little: the
# catcher is run on the unpatched tree first and must pass there, then on the patched tree where it
# must fail (for a sweep: with KIND first). Either run not going as required is reported, not
# guessed around.

# The test executable (fencesim_folder_tests target) of each folder whose tests/ define SUITE.
# (A contract's TEST_Ps live in a header of its folder's tests/, instantiated by a test of it.)
h_targets_of_suite() {
  local suite="$1" file folder
  grep -l -E "^(TEST|TEST_F|TEST_P|RC_GTEST_PROP|RC_GTEST_FIXTURE_PROP)\(\s*${suite}\s*," \
    "$root"/*/tests/*_test.cpp "$root"/*/tests/*.h 2>/dev/null | while read -r file; do
    folder=$(basename "$(dirname "$(dirname "$file")")")
    sed -n 's/.*fencesim_folder_tests(\([A-Za-z_]*\).*/\1/p' "$root/$folder/CMakeLists.txt" | head -1
  done | sort -u
}

# The targets a ctest catcher needs: each alternative of the regex starts with its suite name;
# cli_tests runs the fencesim binary, so it needs fencesim too.
h_ctest_targets() {
  local regex="$1" alt suite
  local -a alts
  IFS='|' read -r -a alts <<<"${regex//[()^\$]/}"
  {
    for alt in "${alts[@]}"; do
      # Suite\.Name, or a TEST_P's Instance/Suite\.Name/Param: the suite is before the first '.'.
      suite=${alt%%.*}
      suite=${suite%\\}
      suite=${suite##*/}
      h_targets_of_suite "$suite"
    done
  } | sort -u | awk '{ print } $0 == "cli_tests" || $0 == "real_tests" { print "fencesim" }' | sort -u
}

# Builds $@ in the shared build; a build that fails only by -Werror is built again with
# -Wno-error (a mutant may leave a variable unused). Returns 1 on a real compile error.
h_build() {
  local log="$1"
  shift
  local -a targets=()
  local t
  for t in "$@"; do targets+=(--target "$t"); done
  if [[ ! -f "$shared/build/build.ninja" ]]; then
    cmake -S "$shared/src" -B "$shared/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DFENCESIM_WERROR=ON -DCMAKE_CXX_COMPILER_LAUNCHER="$shared/src/tools/mutate/compile.sh" \
      "${linker[@]}" >"$log" 2>&1 || return 1
  fi
  cmake --build "$shared/build" "${targets[@]}" ${jobs:+-j "$jobs"} >>"$log" 2>&1 && return 0
  grep -q -- '-Werror' "$log" || return 1
  FENCESIM_MUTATE_NO_WERROR=1 cmake --build "$shared/build" "${targets[@]}" ${jobs:+-j "$jobs"} \
    >>"$log" 2>&1
}

# Runs the catcher on what the shared build holds now. Sets h_verdict: pass | fail:WHAT |
# error:WHY (the catcher could not judge: no test matched, no sweep output).
h_run_catcher() {
  local catcher="$1" dir="$2" label="$3" kind="${1%%:*}" rest="${1#*:}" rc=0
  case $kind in
    ctest)
      (cd "$shared/build" && timeout 1800 ctest -R "^(${rest})\$" --no-tests=error \
        --output-on-failure --timeout 600) >"$dir/$label.ctest.log" 2>&1 || rc=$?
      if [[ $rc -eq 0 ]]; then
        h_verdict=pass
      elif grep -q 'No tests were found' "$dir/$label.ctest.log"; then
        h_verdict="error:no test matches ^(${rest})\$"
      else
        local failed
        failed=$(sed -n -E 's/^[[:space:]]*[0-9]+ - ([^ ]+) \(.*/\1/p' "$dir/$label.ctest.log" |
          paste -sd, -)
        h_verdict="fail:${failed:-ctest exit $rc}"
      fi ;;
    sweep)
      local scenarios seeds want binary out
      IFS=':' read -r scenarios seeds want <<<"$rest"
      binary=$(find "$shared/build" -type f -name fencesim -perm -u+x | head -1)
      out="$dir/$label.sweep"
      rm -rf "$out"
      local -a args=()
      local s
      IFS=',' read -r -a names <<<"$scenarios"
      for s in "${names[@]}"; do args+=(--scenario "$s"); done
      (cd "$dir" && timeout 3600 "$binary" sweep "${args[@]}" --seeds "$seeds" --jobs 1 \
        --stop-after-failures 1 --out "$out" >"$dir/$label.sweep.log" 2>&1) || rc=$?
      if [[ ! -f "$out/runs.jsonl" ]]; then
        h_verdict="error:the sweep wrote no runs.jsonl (exit $rc)"
        return
      fi
      local first
      first=$(python3 - "$out/runs.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    r = json.loads(line)
    rerun = r.get("rerun_history_hash")
    if rerun is not None and rerun != r.get("history_hash"):
        print("nondeterminism @ %s seed %s (%s)" % (r["scenario"], r["seed"], r["strategy"]))
        break
    if r["status"] != "pass":
        v = r.get("first_violation") or {}
        print("%s @ %s seed %s (%s)" % (v.get("invariant") or r["status"], r["scenario"],
                                        r["seed"], r["strategy"]))
        break
PY
      )
      # Every run passed, but the sweep exits 6: a claim went unproven (a mark under its floor, a
      # fault kind that could act and never did; reports/claims.h). Its kind is "unproven".
      if [[ -z "$first" && $rc -eq 6 ]]; then
        first="unproven @ $(sed -n '/^UNPROVEN:/{n;s/^ *//;p;q}' "$dir/$label.sweep.log")"
      fi
      if [[ -z "$first" ]]; then h_verdict=pass; else h_verdict="fail:$first"; fi
      # For the caller's check: the failure's kind, before " @ ".
      h_want=$want ;;
    *) h_verdict="error:unknown catcher form '$kind' (ctest:REGEX or sweep:SCENARIOS:A..B:KIND)" ;;
  esac
}

# Syncs the snapshot (patched with $2 when given) into the shared copy and builds $3...
h_prepare() {
  local dir="$1" patch="$2" log="$3"
  shift 3
  rm -rf "$dir/stage"
  mkdir -p "$dir/stage"
  tar -xf "$work/tree.tar" -C "$dir/stage"
  if [[ -n "$patch" ]] &&
    ! (cd "$dir/stage" && GIT_CEILING_DIRECTORIES="$dir" git apply --whitespace=nowarn "$patch") \
      2>"$dir/apply.log"; then
    rm -rf "$dir/stage"
    return 2
  fi
  sync_tree "$dir/stage" "$shared/src"
  rm -rf "$dir/stage"
  h_build "$log" "$@" || return 3
}

declare -A h_clean_verdict  # catcher -> its verdict on the unpatched tree, once per run

# Sets the same r_* as run_mutant (r_outcome: caught | survived | wrong-catcher | broken).
# With a third argument `runtime`, NAME is a runtime mutant (mutants/NAME.patch, runtime/ only)
# whose manifest names a ctest catcher instead of scenarios: a path no simulated run can reach
# (a key whose epochs are spent), judged the same way.
run_harness_mutant() {
  local name="$1" catcher="$2" kind="${3:-harness}"
  local dir="$work/$name" patch="$root/mutants/harness/$name.patch"
  local folders='^(sim|scenarios|properties|reports|cli|explore|runtime/testing)/'
  if [[ $kind == runtime ]]; then
    patch="$root/mutants/$name.patch"
    folders='^runtime/'
  fi
  r_caught_by="" r_seeds="" r_seconds="" r_build="" r_outcome="" r_replay="" r_note="" r_shrunk=""
  mkdir -p "$dir"
  [[ -f "$patch" ]] || { r_outcome=broken; r_caught_by="NO PATCH FILE"; return; }
  local bad
  bad=$(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$patch" | grep -v -E "$folders" || true)
  bad+=$(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$patch" | grep -E '/tests/' || true)
  if [[ -n "$bad" ]]; then
    r_outcome=broken; r_caught_by="PATCH TOUCHES $(echo $bad) (its own folders only, no tests/)"
    return
  fi
  local -a targets
  case ${catcher%%:*} in
    ctest) mapfile -t targets < <(h_ctest_targets "${catcher#ctest:}") ;;
    *) targets=(fencesim) ;;
  esac
  if [[ ${catcher%%:*} == ctest && ${#targets[@]} -lt 1 ]]; then
    r_outcome=broken; r_caught_by="CATCHER NAMES NO TEST SUITE OF THIS TREE"; return
  fi
  local t0 rc=0
  t0=$(now)
  if [[ -z "${h_clean_verdict[$catcher]:-}" ]]; then
    echo "== $name: the catcher on the unpatched tree (${targets[*]})" >&2
    h_prepare "$dir" "" "$dir/build-clean.log" "${targets[@]}" || rc=$?
    if [[ $rc -ne 0 ]]; then
      r_outcome=broken; r_caught_by="THE UNPATCHED TREE DOES NOT BUILD"; return
    fi
    h_run_catcher "$catcher" "$dir" clean
    h_clean_verdict[$catcher]=$h_verdict
  fi
  if [[ "${h_clean_verdict[$catcher]}" != pass ]]; then
    r_outcome=broken
    r_caught_by="CATCHER FAILS UNPATCHED: ${h_clean_verdict[$catcher]#*:}"
    return
  fi
  echo "== $name: patch, build ${targets[*]}, run $catcher" >&2
  h_prepare "$dir" "$patch" "$dir/build.log" "${targets[@]}" || rc=$?
  case $rc in
    0) ;;
    2) cat "$dir/apply.log" >&2
       r_outcome=broken; r_caught_by="PATCH DOES NOT APPLY"; return ;;
    *) grep -m 20 -E 'error' "$dir/build.log" >&2 || true
       r_outcome=broken; r_caught_by="BUILD FAILED"; return ;;
  esac
  r_build=$(elapsed "$t0" "$(now)")
  h_want=""
  h_run_catcher "$catcher" "$dir" mutant
  r_seconds=$(elapsed "$t0" "$(now)")
  r_seeds="-"
  case $h_verdict in
    pass) r_outcome=survived; r_caught_by="SURVIVED" ;;
    error:*) r_outcome=broken; r_caught_by="CATCHER ERROR: ${h_verdict#error:}" ;;
    fail:*)
      local what="${h_verdict#fail:}"
      if [[ -n "$h_want" && "${what%% @ *}" != "$h_want" ]]; then
        r_outcome=wrong-catcher; r_caught_by="$what (not $h_want)"
      else
        r_outcome=caught; r_caught_by="$what"
      fi ;;
  esac
  r_replay="$catcher (logs: $dir/mutant.*)"
  echo "== $name: $r_outcome: $r_caught_by" >&2
}
