#!/usr/bin/env python3
"""Checks that every target of a unity build compiles as ONE batch (issue 30).

Usage: tools/build/unity_check.py [--build DIR] [--target TEXT] [--jobs N]
The build (FENCESIM_UNITY, on by default) compiles each target's sources in batches of a few
files, and files of one batch share their anonymous namespaces and using-declarations. Which files
share a batch depends on the folder's file list: a new file moves the boundaries, and two names
that never met may meet. This check parses (-fsyntax-only) together the sources of each target
built in several batches (one batch was compiled as one by the build), with the flags of the
target's own batches, so a collision fails at the change that brings it, not at
a later one that moves a boundary. Exit 1 with the compiler's errors when a target does not
parse as one batch; exit 2 when DIR is not a unity build.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

UNITY = re.compile(r"/(?P<target>[^/]+)\.dir/Unity/unity_\d+_cxx\.cxx$")


def flags_of(entry):
    """The entry's compile command without its output, dependency file and source."""
    words = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif word not in ("-MD", "-MMD", "-c") and word != entry["file"]:
            kept.append(word)
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/ci")
    parser.add_argument("--target", default="", help="only targets whose path contains this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    try:
        entries = json.load(open(os.path.join(args.build, "compile_commands.json")))
    except (OSError, ValueError) as error:
        print(f"unity_check: {args.build}/compile_commands.json: {error}", file=sys.stderr)
        return 2
    batches = collections.defaultdict(list)
    for entry in entries:
        match = UNITY.search(entry["file"])
        if match:
            batches[entry["file"][: match.start()] + "/" + match.group("target")].append(entry)
    if not batches:
        print(f"unity_check: {args.build} is not a unity build (FENCESIM_UNITY=OFF?)",
              file=sys.stderr)
        return 2
    # A target built in one batch already compiled as one: only targets of several are checked.
    targets = sorted(t for t in batches if args.target in t and len(batches[t]) > 1)
    with tempfile.TemporaryDirectory() as scratch:
        def check(target):
            group = batches[target]
            sources = []
            for entry in sorted(group, key=lambda e: e["file"]):
                with open(entry["file"]) as f:
                    sources += re.findall(r'^#include "([^"]+)"', f.read(), flags=re.M)
            whole = os.path.join(scratch, target.replace("/", "_") + ".cxx")
            with open(whole, "w") as f:
                f.writelines(f'#include "{source}"\n' for source in sources)
            command = flags_of(group[0]) + ["-fsyntax-only", whole]
            # A launcher (ccache, `env VAR=... ccache`) is not the compiler: start at the compiler.
            start = next(i for i, w in enumerate(command)
                         if re.search(r"(^|/)(c\+\+|g\+\+|clang\+\+)(-\d+)?$", w))
            proc = subprocess.run(command[start:], cwd=group[0]["directory"],
                                  capture_output=True, text=True)
            return len(sources), proc
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            results = list(pool.map(check, targets))
    failed = 0
    for target, (count, proc) in zip(targets, results):
        name = os.path.relpath(target, os.path.abspath(args.build))
        if proc.returncode != 0:
            failed += 1
            errors = [l for l in proc.stderr.splitlines() if " error: " in l]
            print(f"unity_check: {name}: its {count} sources do not compile as one batch "
                  "(a name at namespace scope used by two files?):")
            print("\n".join(errors[:20]))
        else:
            print(f"unity_check: {name}: {count} sources, one batch: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
