#!/usr/bin/env bash
# The main job: installs what is missing, builds, runs the real-time fence demo, then sweeps every
# scenario over seeds 1..1000 with both scheduling strategies (failures' replay files go to
# fencesim-out/). Exit code: the sweep's (0 pass, 1 violation, 3 liveness, 4 nondeterminism,
# 5 harness error).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
./build/default/runtime/fence_demo
./build/default/cli/fencesim sweep --seeds "${FENCESIM_SEEDS:-1..1000}" --out fencesim-out
