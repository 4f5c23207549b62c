#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs every test (CTest).
# Usage: tools/test.sh [preset]   (default: ci; also: default, debug, asan)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
bash tools/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)"
