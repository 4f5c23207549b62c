#!/usr/bin/env bash
# The compiler launcher of the mutants' build tree (tools/mutate/run.py): ccache when installed,
# and -Wno-error appended when FENCESIM_MUTATE_NO_WERROR is set, which run.py sets to build again
# a mutant whose objects failed only by -Werror (the flags, and so ccache's hits, are otherwise
# those of preset ci). FENCESIM_MUTATE_SCHEMA_FLAGS holds the flags of a schema build
# (tools/mutate/schema_build.py: the guard header forced in, -Wno-error).
if command -v ccache >/dev/null 2>&1; then
  # The build runs in TREE/build/ci: paths under TREE's parent are hashed relative, as in the
  # worktree's own build (CMakeLists.txt), so that the copy hits the worktree's objects.
  if [ -z "${CCACHE_BASEDIR:-}" ]; then CCACHE_BASEDIR=$(cd ../../.. && pwd); export CCACHE_BASEDIR; fi
  exec ccache "$@" ${FENCESIM_MUTATE_NO_WERROR:+-Wno-error} ${FENCESIM_MUTATE_SCHEMA_FLAGS:-}
fi
exec "$@" ${FENCESIM_MUTATE_NO_WERROR:+-Wno-error} ${FENCESIM_MUTATE_SCHEMA_FLAGS:-}
