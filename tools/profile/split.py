#!/usr/bin/env python3
"""Splits a perf profile by who owns the code (issue 30, item 3).

Self time (the default): reads `perf report --no-children -g none --sort sym --stdio -F
overhead,sym` on stdin and prints each part's share of the samples: the runtime under test, the
harness (sim, properties, scenarios, hashing: what the issue's goal counts), the rest of fencesim,
and the libraries, which perf charges to themselves (malloc, memcmp, unwinding, fiber switches),
not to their callers. A symbol belongs to the first fencesim namespace its demangled name names,
so a std::map lookup instantiated over fencesim::sim::NameKey is the simulator's, and one over a
runtime type the runtime's, whoever made it; a std:: symbol naming none is 'std'.

By caller (`--callers`): reads `perf script -F ip,sym` of a call-graph profile on stdin and
charges each sample to the innermost fencesim function on its stack, by that function's own
namespace (never its template arguments'), so the libraries' time (allocation, memcmp, the
standard containers) goes to the code that asked for it. The names' and keys' vocabulary (their
comparisons, copies and destructors: Name, NameKey, LeaseKey) is charged to its caller too: an
oracle's lookup in a map of lease keys is the oracle's, not the runtime's. A sample with no
fencesim function on its stack (start-up, the dynamic linker) is 'outside'.
"""
import re
import sys

PROJECT = re.compile(r"fencesim::(runtime|sim|properties|scenarios|reports|cli|explore|stores|real)::")
ALLOC = re.compile(r"^(malloc|free|cfree|realloc|calloc|_int_malloc|_int_free|_int_realloc|"
                   r"malloc_consolidate|tcache_\w+|operator new|operator delete|__libc_malloc|"
                   r"__libc_free|__GI___libc_malloc|__GI___libc_free|unlink_chunk|"
                   r"__malloc_\w+|_int_free_merge_chunk|_int_free_create_chunk|"
                   r"_int_free_maybe_consolidate|"
                   # mimalloc's, which every executable links when it is installed
                   r"_?mi_\w+)")
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


# The names' and keys' vocabulary, charged to its caller (see --callers): the methods of the types
# Name, NameKey and LeaseKey, and the free operators of any fencesim namespace (comparisons of
# names, keys, tokens).
VOCABULARY_TYPES = re.compile(r"^fencesim::(sim::(Name|NameKey)|runtime::LeaseKey)::")
FREE_OPERATOR = re.compile(r"^fencesim::\w+::operator\W")
# An operator's own name, which holds '<', '>' or '(' that are neither templates nor arguments.
OPERATOR_NAME = re.compile(r"operator(<=>|<<=|>>=|<<|>>|<=|>=|->\*|->|<|>|\(\)|\[\])")


def function_name(symbol):
    """The qualified name of a demangled function: no arguments, no return type, no suffix."""
    symbol = re.sub(r"\s*\(inlined\)$", "", symbol.strip())
    symbol = symbol.replace("(anonymous namespace)", "{anonymous}")
    depth = 0
    start = 0
    i = 0
    while i < len(symbol):
        operator = OPERATOR_NAME.match(symbol, i) if symbol.startswith("operator", i) else None
        if operator:
            i = operator.end()
            continue
        ch = symbol[i]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return symbol[start:i]
        elif ch == " " and depth == 0 and not symbol[:i].endswith("operator"):
            # After a return type (function templates print theirs); a conversion operator's
            # type ("operator std::string const&") is part of its name.
            if "operator " not in symbol[start:i]:
                start = i + 1
        i += 1
    return symbol[start:]


def owner_of(symbol):
    """The fencesim part a frame's own function belongs to, or None (a library frame)."""
    if symbol.startswith("XXH"):
        return "hashing"
    name = function_name(symbol)
    # A lambda's frame is named by its enclosing function, whose arguments end the name.
    match = re.match(r"^fencesim::(\w+)::", name)
    if not match:
        return None
    if VOCABULARY_TYPES.match(name) or FREE_OPERATOR.match(name):
        return "vocabulary"
    return match.group(1)


def read_stacks(lines):
    """The samples of `perf script -F ip,sym`: each a list of symbols, innermost first."""
    stack = []
    for line in lines:
        if not line.strip():
            if stack:
                yield stack
            stack = []
            continue
        parts = line.strip().split(None, 1)
        stack.append(parts[1] if len(parts) > 1 else "?")
    if stack:
        yield stack


def by_caller(lines):
    shares = {}
    for stack in read_stacks(lines):
        part = "outside"
        for symbol in stack:
            owner = owner_of(symbol)
            if owner is None or owner == "vocabulary":
                continue
            part = owner
            break
        shares[part] = shares.get(part, 0) + 1
    total = sum(shares.values())
    return {part: 100.0 * count / total for part, count in shares.items()} if total else {}


def report(shares, what):
    width = max(len(p) for p in shares)
    for part, share in sorted(shares.items(), key=lambda kv: -kv[1]):
        marker = " (harness)" if part in HARNESS else ""
        print(f"  {part:<{width}}  {share:6.2f}%{marker}")
    harness = sum(shares.get(p, 0.0) for p in HARNESS)
    runtime = shares.get("runtime", 0.0)
    print(f"harness (sim, properties, scenarios, hashing): {harness:.2f}%; runtime: {runtime:.2f}%")
    if runtime > 0:
        print(f"harness / runtime {what}: {harness / runtime:.2f} (the issue's goal: at most 1)")


def main():
    if sys.argv[1:] == ["--callers"]:
        shares = by_caller(sys.stdin)
        if not shares:
            print("profile-split: no samples read (is perf script's output on stdin?)",
                  file=sys.stderr)
            return 2
        report(shares, "time by caller")
        return 0
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
    report(shares, "self time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
