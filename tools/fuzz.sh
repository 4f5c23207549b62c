#!/usr/bin/env bash
# Fuzzes one target (docs/fuzzing.md): builds the `fuzz` preset (clang, libFuzzer, ASan, UBSan),
# runs fuzz_<target> for a time on one core, starting from the checked-in corpus, then merges
# what it found into a minimized corpus in fuzz/corpus/<target>/ (review and commit it).
# Usage: tools/fuzz.sh TARGET [SECONDS]    (targets: the names in fuzz/CMakeLists.txt)
# A crash, a leak or a hang (over 10 s for one input) stops the run: libFuzzer writes the input to
# build/fuzz-work/<target>/crash-*; fix the parser, add the input to the corpus, run again.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: tools/fuzz.sh TARGET [SECONDS]}"
seconds="${2:-600}"
bash tools/install-deps.sh fuzz
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "fuzz_${target}"
work="build/fuzz-work/${target}"
corpus="fuzz/corpus/${target}"
mkdir -p "$work/found" "$corpus"
binary="build/fuzz/fuzz/fuzz_${target}"
# One process, one core: -jobs/-workers 1. -timeout: one input may take 10 s at most (a hang).
"$binary" -jobs=1 -workers=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/found" "$corpus"
# The checked-in corpus stays small: only inputs that add a covered edge are added to it
# (-use_counters=0: edges, not hit counts); what is in it stays (named seeds, past findings).
mkdir -p "$work/minimized"
rm -f "$work/minimized"/*
"$binary" -merge=1 -use_counters=0 -rss_limit_mb=2048 "$work/minimized" "$corpus" "$work/found"
cp -n "$work/minimized"/* "$corpus"/ 2>/dev/null || true
echo "corpus ${corpus}: $(ls "$corpus" | wc -l) inputs"
