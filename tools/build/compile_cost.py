#!/usr/bin/env python3
"""The compiler's CPU time for a sample of a build's objects, with extra flags (issue 30).

Usage: tools/build/compile_cost.py [--build DIR] [--seed N] [--count K] [FLAG...]
Draws K objects (default 24) at random (seed N) from DIR/compile_commands.json and compiles each
again with its own command, without ccache, into a scratch file, one after another; prints each
object's CPU time (user + sys of the compiler) and the total. A FLAG is put before the command's
own flags; a FLAG written +FLAG after them (so `+-g1` overrides the preset's `-g`). Compare
figures taken in one run, back to back: the machine's load moves them. In a unity build
(FENCESIM_UNITY, the default) an entry is a batch of sources; -DFENCESIM_UNITY=OFF for files.
"""
import argparse
import json
import random
import resource
import shlex
import subprocess
import sys
import tempfile


def command_of(entry, before, after, out):
    args = shlex.split(entry["command"])
    start = next(i for i, a in enumerate(args) if a.endswith(("c++", "g++", "clang++")) or "g++-" in a or "clang++-" in a)
    args = args[start:]
    kept, skip = [], 0
    for a in args:
        if skip:
            skip -= 1
            continue
        if a in ("-MT", "-MF", "-o"):
            skip = 1
            continue
        if a == "-MD":
            continue
        kept.append(a)
    return kept[:1] + before + kept[1:] + after + ["-o", out]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/ci")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("flags", nargs="*")
    args = parser.parse_args()
    try:
        entries = json.load(open(f"{args.build}/compile_commands.json"))
    except (OSError, ValueError) as error:
        print(f"compile_cost: {args.build}/compile_commands.json: {error}", file=sys.stderr)
        return 2
    random.seed(args.seed)
    sample = random.sample(entries, min(args.count, len(entries)))
    before = [f for f in args.flags if not f.startswith("+")]
    after = [f[1:] for f in args.flags if f.startswith("+")]
    total = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        for entry in sample:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(command_of(entry, before, after, f"{scratch}/out.o"),
                                  cwd=entry["directory"], capture_output=True, text=True)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            total += cpu
            mark = "" if done.returncode == 0 else "  (failed)"
            print(f"{cpu:7.2f}  {entry['file']}{mark}")
    print(f"total CPU {total:.1f} s over {len(sample)} objects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
