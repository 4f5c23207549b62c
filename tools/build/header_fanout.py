#!/usr/bin/env python3
"""How many objects of a build include each header (issue 30: the cost of touching one header).

Usage: tools/build/header_fanout.py [--build DIR] HEADER...
Reads ninja's dependency log (`ninja -t deps`, the compiler's own list of every header each
object read) of DIR (default build/ci) and prints, per header, the objects whose list names it.
In a unity build (FENCESIM_UNITY, the default) an object is a batch of sources: configure a
build with -DFENCESIM_UNITY=OFF to count source files.
"""
import argparse
import subprocess
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/ci")
    parser.add_argument("headers", nargs="+")
    args = parser.parse_args()
    done = subprocess.run(["ninja", "-C", args.build, "-t", "deps"], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"header_fanout: ninja -t deps failed in {args.build}: {done.stderr.strip()}",
              file=sys.stderr)
        return 2
    including = {header: set() for header in args.headers}
    objects = 0
    current = None
    for line in done.stdout.splitlines():
        if line and not line.startswith(" "):
            current = line.split(":")[0]
            objects += 1
        elif line.strip():
            dep = line.strip()
            for header in args.headers:
                if dep == header or dep.endswith("/" + header):
                    including[header].add(current)
    print(f"objects: {objects}")
    for header in args.headers:
        print(f"{len(including[header]):5d}  {header}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
