#!/usr/bin/env bash
# Mechanical mutation score of runtime/, and of the harness with --harness (docs/mutants.md).
#   tools/mutate.sh list [FILE...]          the mutants (id, original -> replacement); --diff shows each
#   tools/mutate.sh run [OPTIONS]           judge them (tools/mutate.sh run --help); --harness:
#                                           mutants of sim/ and properties/ (tools/mutate/harness.py)
#   tools/mutate.sh report RESULTS.json...  merge shards' results into the score and a Markdown page
#   tools/mutate.sh test                    the generator's and the schemata's unit tests (exit 77:
#                                           libclang's bindings missing)
# Needs libclang's Python bindings (Debian: python3-clang). The Debian python3 has them; another
# python3 first on PATH (pyenv, a venv) usually does not, so the one that can import them is used.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=python3
if ! python3 -c 'import clang.cindex' 2>/dev/null && [ -x /usr/bin/python3 ]; then
  python=/usr/bin/python3
fi
command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
  list) exec "$python" "$here/mutate/generate.py" --root "$here/.." "$@" ;;
  run) exec "$python" "$here/mutate/run.py" "$@" ;;
  report) exec "$python" "$here/mutate/report.py" "$@" ;;
  test) "$python" "$here/mutate/test_generate.py" "$@" && exec "$python" "$here/mutate/test_schema.py" "$@" ;;
  *) echo "usage: tools/mutate.sh list|run|report|test [ARGS] (see the header of tools/mutate.sh)" >&2; exit 64 ;;
esac
