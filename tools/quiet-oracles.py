#!/usr/bin/env python3
"""Shows that every oracle can still fail: each invariant of properties/ made quiet in turn.

For each invariant registered in properties/invariants_registry.cpp, the function that judges
(the `check_...` function its `check(World)` calls, or that method itself when it calls none) gets
`return;` as its first statement; properties_tests is rebuilt and run whole. The oracle is
*held* when some test fails (a failed assertion, or a crash: a test that indexes the violations it
expected and finds none); it is *quiet* when every test passes: nothing in ctest would notice the
oracle going blind, and only a runtime mutant of the nightly could. Each source file is restored
after its run (and on any exit).

Session 23 found six quiet oracles this way (docs/mutants.md, "Six oracles with no test of their
own"); since then all 47 are held. Run it after adding an invariant, or nightly:

    python3 tools/quiet-oracles.py [--build-dir build/ci] [--only NAME[,NAME...]]

Needs a configured build directory (cmake --preset ci) and a clean properties/ (it refuses to edit
files with uncommitted changes). Exit 0 when every oracle is held, 1 when one is quiet, 2 on bad
use or a build failure.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUIET_LINE = "  if (std::uint64_t{1} > 0) return;  // quiet-oracles.py: made quiet\n"


def registered_invariants():
    text = open(os.path.join(ROOT, "properties/invariants_registry.cpp")).read()
    return re.findall(r"std::make_unique<([A-Za-z0-9_]+)>", text)


def sources():
    folder = os.path.join(ROOT, "properties")
    return {os.path.join("properties", name): open(os.path.join(folder, name)).read()
            for name in sorted(os.listdir(folder)) if name.endswith(".cpp")}


def judging_function(invariant, files):
    """(file, offset of the body's first line, name) of what to make quiet, or None."""
    for path, text in files.items():
        adapter = re.search(r"^void " + invariant + r"::check\([^{;]*?\) const \{\n(.*?)^\}",
                            text, re.S | re.M)
        if not adapter:
            continue
        call = re.search(r"\b(check_[a-z0-9_]+)\(", adapter.group(1))
        if call:
            for other, other_text in files.items():
                definition = re.search(r"^void " + call.group(1) + r"\([^{;]*?\)\s*\{\n",
                                       other_text, re.S | re.M)
                if definition:
                    return other, definition.end(), call.group(1)
        return path, adapter.start(1), invariant + "::check"
    return None


def run(cmd, **kwargs):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kwargs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build/ci")
    parser.add_argument("--only", default="", help="comma-separated invariant classes")
    args = parser.parse_args()
    tests = os.path.join(ROOT, args.build_dir, "properties", "properties_tests")
    if not os.path.isdir(os.path.join(ROOT, args.build_dir)):
        print(f"quiet-oracles: no build directory {args.build_dir} (cmake --preset ci first)",
              file=sys.stderr)
        return 2
    if run(["git", "diff", "--quiet", "--", "properties"]).returncode != 0:
        print("quiet-oracles: properties/ has uncommitted changes; commit or stash them first",
              file=sys.stderr)
        return 2
    wanted = set(filter(None, args.only.split(",")))
    invariants = [name for name in registered_invariants() if not wanted or name in wanted]
    if wanted - set(invariants):
        print(f"quiet-oracles: not registered: {', '.join(sorted(wanted - set(invariants)))}",
              file=sys.stderr)
        return 2
    files = sources()
    quiet = []
    for invariant in invariants:
        target = judging_function(invariant, files)
        if target is None:
            print(f"quiet-oracles: {invariant}: no check(World) found", file=sys.stderr)
            return 2
        path, offset, name = target
        original = files[path]
        full = os.path.join(ROOT, path)
        try:
            with open(full, "w") as out:
                out.write(original[:offset] + QUIET_LINE + original[offset:])
            build = run(["cmake", "--build", args.build_dir, "--target", "properties_tests"])
            if build.returncode != 0:
                print(f"quiet-oracles: {invariant}: properties_tests does not build quiet:",
                      file=sys.stderr)
                print(build.stdout[-2000:], file=sys.stderr)
                return 2
            result = run([tests, "--gtest_brief=1"])
        finally:
            with open(full, "w") as out:
                out.write(original)
        failed = sorted(set(re.findall(r"^\[  FAILED  \] ([A-Za-z0-9_./]+)", result.stdout,
                                       re.M)))
        if result.returncode != 0:
            how = f"{len(failed)} failed" if failed else f"crashed (exit {result.returncode})"
            print(f"held   {invariant} ({name}): {how} {' '.join(failed[:3])}".rstrip(),
                  flush=True)
        else:
            print(f"QUIET  {invariant} ({name}): every test passed", flush=True)
            quiet.append(invariant)
    run(["cmake", "--build", args.build_dir, "--target", "properties_tests"])
    print(f"{len(invariants) - len(quiet)} of {len(invariants)} oracles held"
          + (f"; quiet: {', '.join(quiet)}" if quiet else ""))
    return 1 if quiet else 0


if __name__ == "__main__":
    sys.exit(main())
