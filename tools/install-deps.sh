#!/usr/bin/env bash
# Installs what fencesim needs on a fresh Debian 12 machine: compiler, CMake, Ninja and the
# libraries. Does nothing when everything is already there. Needs root (or sudo) to install.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config clang-format ccache
  # LLVM's linker: every change to a library relinks up to 38 executables, and ld.bfd spends most
  # of a one-file rebuild doing that (CMakeLists.txt uses lld when it is installed).
  lld
  # mimalloc, every executable's allocator (CMakeLists.txt links it when it is installed): a
  # run allocates per event, and glibc's malloc and free were 12% of a sweep's instructions.
  libmimalloc-dev
  libboost-fiber-dev libboost-context-dev libfmt-dev libgtest-dev libgmock-dev librapidcheck-dev
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libxxhash-dev libbenchmark-dev
  # The HTML reports' test opens them in a real headless browser (reports/tests/browser_test.cpp).
  chromium
  # stores/: SQLite (embedded) and PostgreSQL; the server runs only when tools/postgres-scratch.sh
  # starts a throw-away cluster (CI does; without one the PostgreSQL tests skip).
  libsqlite3-dev libpqxx-dev postgresql-15
  # tools/mutate/: the mechanical mutants are found with libclang's Python bindings (the nightly
  # mutation score; ctest runs the generator's unit tests).
  python3-clang
)

# `tools/install-deps.sh fuzz`: also clang and libFuzzer, for the `fuzz` preset (tools/fuzz.sh and
# the nightly fuzz job; docs/fuzzing.md). Ordinary builds replay the fuzz corpora without them.
if [ "${1:-}" = "fuzz" ]; then
  packages+=(clang-14 libclang-rt-14-dev libfuzzer-14-dev)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
