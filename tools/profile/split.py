#!/usr/bin/env python3
"""Splits a perf profile's self time by who owns the code (issue 30, item 3).

Reads `perf report --no-children -g none --sort sym --stdio -F overhead,sym` on stdin and prints
each part's share of the samples: the runtime under test, the harness (sim, properties, scenarios,
hashing: what the issue's goal counts), the rest of fencesim, and the libraries, which perf
charges to themselves (malloc, memcmp, unwinding, fiber switches), not to their callers.

A symbol belongs to the first fencesim namespace its demangled name names, so a std::map lookup
instantiated over fencesim::sim::NameKey is the simulator's, and one over a runtime type the
runtime's; a std:: symbol naming none is 'std'.
"""
import re
import sys

PROJECT = re.compile(r"fencesim::(runtime|sim|properties|scenarios|reports|cli|explore|stores|real)::")
ALLOC = re.compile(r"^(malloc|free|cfree|realloc|calloc|_int_malloc|_int_free|_int_realloc|"
                   r"malloc_consolidate|tcache_\w+|operator new|operator delete|__libc_malloc|"
                   r"__libc_free|__GI___libc_malloc|__GI___libc_free|unlink_chunk|"
                   r"__malloc_\w+|_int_free_merge_chunk|_int_free_create_chunk|"
                   r"_int_free_maybe_consolidate)")
STRING = re.compile(r"^(__)?(mem|str|wmem)\w*")
UNWIND = re.compile(r"^(_Unwind_|__cxa_|__gxx_personality|_dl_find_object|dl_iterate_phdr|"
                    r"__dl_iterate_phdr|uw_|execute_cfa_program|search_object|"
                    r"linear_search_fdes|read_encoded_value|__register_frame|"
                    r"_dl_find_object|__deregister_frame)")
FIBERS = re.compile(r"^(boost::(fibers|context)|jump_fcontext|ontop_fcontext|make_fcontext)")

HARNESS = ("sim", "properties", "scenarios", "hashing")


def part_of(symbol, kernel):
    if kernel:
        return "kernel"
    match = PROJECT.search(symbol)
    if match:
        return match.group(1)
    if symbol.startswith("XXH"):
        return "hashing"
    if FIBERS.search(symbol):
        return "fibers"
    if ALLOC.search(symbol):
        return "allocation"
    if UNWIND.search(symbol):
        return "unwinding"
    if STRING.search(symbol):
        return "libc strings"
    if symbol.startswith("std::") or symbol.startswith("__gnu_cxx::"):
        return "std"
    return "other"


def main():
    shares = {}
    total = 0.0
    line_re = re.compile(r"^\s*([0-9.]+)%\s+\[([.k])\]\s+(.*)$")
    for line in sys.stdin:
        match = line_re.match(line)
        if not match:
            continue
        share = float(match.group(1))
        part = part_of(match.group(3).strip(), match.group(2) == "k")
        shares[part] = shares.get(part, 0.0) + share
        total += share
    if total == 0:
        print("profile-split: no samples read (is perf report's output on stdin?)", file=sys.stderr)
        return 2
    width = max(len(p) for p in shares)
    for part, share in sorted(shares.items(), key=lambda kv: -kv[1]):
        marker = " (harness)" if part in HARNESS else ""
        print(f"  {part:<{width}}  {share:6.2f}%{marker}")
    harness = sum(shares.get(p, 0.0) for p in HARNESS)
    runtime = shares.get("runtime", 0.0)
    print(f"harness (sim, properties, scenarios, hashing): {harness:.2f}%; runtime: {runtime:.2f}%")
    if runtime > 0:
        print(f"harness / runtime self time: {harness / runtime:.2f} (the issue's goal: at most 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
