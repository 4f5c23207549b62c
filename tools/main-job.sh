#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the fence demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
./build/default/runtime/fence_demo
