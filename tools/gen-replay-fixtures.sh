#!/usr/bin/env bash
# Writes the replay-file fixtures of tests/fixtures/replay/ with a fencesim binary (docs/replay-
# files.md). Run once per schema version and check the files in: they are what a LATER fencesim
# must still load and replay (cli/tests/replay_fixtures_test.cpp), so never regenerate old ones.
# Usage: tools/gen-replay-fixtures.sh FENCESIM_BINARY [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
F="${1:?usage: tools/gen-replay-fixtures.sh FENCESIM_BINARY [DIR]}"
dir="${2:-tests/fixtures/replay}"
mkdir -p "$dir"
run() {  # NAME ARGS...: a failing run's replay file (exit 1 is the failure it must be)
  local name="$1"; shift
  set +e
  "$F" run "$@" --replay-out "$dir/$name.json" >/dev/null
  local code=$?
  set -e
  [ "$code" -eq 1 ] || { echo "fixture $name: expected a failing run (exit 1), got $code" >&2; exit 1; }
}
run kleppmann-accept-stale-1 --scenario kleppmann-fencing --seed 1 --sink-double accept-stale
run kleppmann-accept-stale-2-pct --scenario kleppmann-fencing --seed 2 --strategy pct \
  --sink-double accept-stale
run spec-stall-and-drift-accept-stale-4 --spec specs/stall-and-drift.toml --seed 4 \
  --sink-double accept-stale
# Schema 1, as fencesim wrote files before the history record: the same file without it.
/usr/bin/python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
with open(f"{d}/kleppmann-accept-stale-1.json") as f:
    doc = json.load(f)
doc["version"] = 1
doc.pop("history", None)
with open(f"{d}/schema1-kleppmann-accept-stale-1.json", "w") as f:
    f.write(json.dumps(doc, indent=2) + "\n")
PY
ls -l "$dir"
