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

With --sites it goes a level finer: every place an oracle reports in properties/*.cpp is made a
no-op in turn and properties_tests is run whole. The places are of four kinds (SITE KINDS below):
a violation pushed (`out.push_back(violation(`, `out_.push_back(Violation{`, ...), a call of a
judge's report helper, a message the reference model returns (its disagreement with a store),
and a mark rule's `reach(` (a "sometimes" mark a sweep counts). A push or reach becomes a call of
an empty template inserted after the file's includes, a message returned becomes std::nullopt,
a helper's call is skipped; the statement around each is unchanged. tools/test_quiet_oracles.py
(ctest quiet_oracles_sites) holds the finder to an annotated fixture and to properties/. A site is *held* when some test fails. An oracle can be held through one branch and blind
in another: session 24 found scope-key-injective's two-trees-under-one-lease-key report reached
by no test, though the whole oracle made quiet was held. --files limits the sites to some files.

    python3 tools/quiet-oracles.py --sites [--files invariants_confirm.cpp,...]

With --sites --first-only each push is not silenced but made the judging function's last report:
the push statement becomes `{ PUSH; return; }`, the bug of an oracle that stops after its first
report. A test history with one bad event cannot tell that from the oracle; a site is *held* when
some test fails (a history with two violations the oracle must both report), FIRST-ONLY when all
pass. Sites where a `return;` cannot be placed safely are listed as *skipped*: other kinds than
push, a push inside a lambda (its `return` leaves only the lambda), a function not returning
void, a helper whose whole body is the push, a push its function already returns after (by
design: "one is enough"), and a push that is already the last statement its function runs (the
end of a helper, or of an if/else chain closing it, with no loop or switch around it); in the
last three the edit would change nothing.

Needs a configured build directory (cmake --preset ci) and a clean properties/ (it refuses to edit
files with uncommitted changes). Exit 0 when every oracle (or site) is held, 1 when one is quiet,
2 on bad use or a build failure.
"""
import argparse
import os
import re
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUIET_LINE = "  if (std::uint64_t{1} > 0) return;  // quiet-oracles.py: made quiet\n"


def registered_invariants():
    text = open(os.path.join(ROOT, "properties/invariants_registry.cpp")).read()
    return re.findall(r"std::make_unique<([A-Za-z0-9_]+)>", text)


def sources():
    folder = os.path.join(ROOT, "properties")
    files = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".cpp"):
            with open(os.path.join(folder, name)) as f:
                files[os.path.join("properties", name)] = f.read()
    return files


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


# SITE KINDS: the forms a report takes in properties/.
#   push:   `X.push_back(violation(` or `X.push_back(Violation{` (X any vector: an oracle's `out`,
#           a judge class's `out_`), however the lines break;
#   differ: a `return` of a message (`fmt::format(` or a literal) in a function returning
#           std::optional<std::string>: the reference model's disagreement with a store's reply,
#           which its invariant turns into a violation;
#   helper: a call of a file's reporting helper, a function whose whole body is one push (a judge
#           class's `report(message, events)`): the push inside it silences every caller at once,
#           so each call is a site of its own;
#   reach:  `reach(` in a mark rule (properties/mark_rules.cpp): a run reaching a "sometimes"
#           mark, the sweep's claim that the dangerous moment happened.
PUSH = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\.push_back\(\s*(?:violation\(|Violation\{)")
MESSAGE_FUNCTION = re.compile(
    r"^std::optional<std::string> [A-Za-z0-9_:]+\([^;{]*?\)(?: const)? \{\n(.*?)^\}", re.S | re.M)
MESSAGE_RETURN = re.compile(r"\breturn\s+(?:fmt::format\(|\")")
HELPER = re.compile(r"^ *void ([A-Za-z_][A-Za-z0-9_]*)\([^;{]*?\) \{\n(?:\s*//[^\n]*\n)*\s*"
                    r"(?=[A-Za-z_][A-Za-z0-9_]*\.push_back\(\s*(?:violation\(|Violation\{))", re.M)
REACH = re.compile(r"(?<![A-Za-z0-9_.>])reach\(")
SITE_TEMPLATE = ("namespace {\n"
                 "template <typename Out, typename Item>\n"
                 "void quiet_site_(Out&, Item&&) {}  // quiet-oracles.py: a site made quiet\n"
                 "}  // namespace\n")
MESSAGE_TEMPLATE = ("namespace {\n"
                    "template <typename Item>\n"
                    "std::nullopt_t quiet_message_(Item&&) {  // quiet-oracles.py: a site made quiet\n"
                    "  return std::nullopt;\n"
                    "}\n"
                    "}  // namespace\n")


def report_sites(files, wanted_files):
    """(file, offset, line, kind) of every site that reports, in file order: `offset` is where
    the site's statement begins (`X.push_back(`, `return`, `reach(`)."""
    sites = []
    for path, text in files.items():
        name = os.path.basename(path)
        if wanted_files and name not in wanted_files:
            continue
        found = [(m.start(), "push") for m in PUSH.finditer(text)]
        for function in MESSAGE_FUNCTION.finditer(text):
            found += [(function.start(1) + m.start(), "differ")
                      for m in MESSAGE_RETURN.finditer(function.group(1))]
        for helper in HELPER.finditer(text):
            body_end = statement_end(text, helper.end()) + 1
            if text[body_end:].lstrip().startswith("}"):  # the push is its whole body
                calls = re.finditer(r"(?<![A-Za-z0-9_.>:])" + helper.group(1) + r"\(", text)
                found += [(m.start(), "helper") for m in calls
                          if not helper.start() <= m.start() < body_end]
        found += [(m.start(), "reach") for m in REACH.finditer(text)]
        for offset, kind in sorted(found):
            sites.append((path, offset, text.count("\n", 0, offset) + 1, kind))
    return sites


def statement_end(text, offset):
    """The offset of the `;` that ends the statement beginning at `offset` (brackets, string and
    character literals skipped)."""
    depth = 0
    i = offset
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i += 1
            while text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth == 0:
            return i
        i += 1
    raise ValueError(f"no end of the statement at offset {offset}")


def quiet_site(text, offset, kind="push"):
    """The file with the site at `offset` made a no-op, its arguments still built (so nothing
    else changes): a push becomes a call of an empty template, a message returned becomes
    std::nullopt, a mark reached becomes a call of the empty template, a helper's call is
    skipped."""
    includes = list(re.finditer(r"^#include .*\n", text, re.M))
    after = includes[-1].end() if includes else 0
    template = SITE_TEMPLATE
    if kind == "push":
        call = PUSH.match(text, offset)
        assert call, f"no push at offset {offset}"
        target = call.group(1)
        prefix = target + ".push_back("
        edited = text[:offset] + f"quiet_site_({target}, " + text[offset + len(prefix):]
    elif kind == "differ":
        assert text.startswith("return", offset), f"no return at offset {offset}"
        end = statement_end(text, offset)
        value = text[offset + len("return"):end].strip()
        edited = text[:offset] + f"return quiet_message_({value})" + text[end:]
        template = MESSAGE_TEMPLATE
    elif kind == "helper":
        # The call never runs (a braced-list argument would not pass through a template); its
        # statement stays one statement, so an `else` after it keeps its `if`.
        assert re.match(r"[A-Za-z_][A-Za-z0-9_]*\(", text[offset:]), f"no call at {offset}"
        end = statement_end(text, offset) + 1
        return (text[:offset] + "{ if (std::uint64_t{1} == 0) " + text[offset:end] + " }"
                + text[end:])
    elif kind == "reach":
        assert text.startswith("reach(", offset), f"no reach at offset {offset}"
        edited = text[:offset] + "quiet_site_(reach, " + text[offset + len("reach("):]
    else:
        raise ValueError(f"unknown kind of site {kind}")
    return edited[:after] + template + edited[after:]


# --first-only: a push site made the last report of its judging function. The statement becomes
# `{ STATEMENT return; }` (a braced block, so a push that is a bare `if`'s body stays that `if`'s
# body and an `else` keeps its `if`). Only when the innermost function around the site returns
# void: a lambda's `return` would leave the lambda, not the oracle, and a non-void function needs
# a value this tool cannot pick, so those sites are skipped with the reason.
CONTROL_WORDS = {"if", "for", "while", "switch", "catch"}


def matching_open(text, close):
    """The offset of the `(` matching the `)` at `close` (string literals not skipped: the
    signatures and conditions this walks over hold none that matter)."""
    depth = 0
    for i in range(close, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"no `(` for the `)` at {close}")


def enclosing_function(text, offset):
    """('void', name, brace), ('lambda', None, brace) or ('other', declaration, brace) for the
    innermost function around `offset` (brace: the offset of its body's `{`), or None when no
    function is found. Walks outward over the unmatched `{` before the site, skipping control
    blocks (if/for/while/switch/catch, else, do, try, bare blocks)."""
    code = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), text[:offset])
    code = re.sub(r'"(?:\\.|[^"\\\n])*"', lambda m: " " * len(m.group(0)), code)
    depth = 0
    for i in range(len(code) - 1, -1, -1):
        c = code[i]
        if c == "}":
            depth += 1
        elif c == "{" and depth > 0:
            depth -= 1
        elif c == "{":
            before = code[:i].rstrip()
            before = re.sub(r"(?:\s+(?:const|override|noexcept|mutable|final))+$", "", before)
            before = re.sub(r"\s*->\s*[A-Za-z0-9_:<>, ]+$", "", before)
            if not before.endswith(")"):
                continue  # else, do, try, a bare block, an initializer: look further out
            start = matching_open(code, len(before) - 1)
            head = code[:start].rstrip()
            if head.endswith("]"):
                return ("lambda", None, i)
            word = re.search(r"([A-Za-z_][A-Za-z0-9_:~]*)$", head)
            if word and word.group(1) in CONTROL_WORDS:
                continue
            if not word:
                return ("other", head[-60:], i)
            declaration_start = max(head.rfind(";"), head.rfind("}"), head.rfind("{")) + 1
            declaration = head[declaration_start:].strip()
            declaration = re.sub(r"^(?:(?:public|private|protected)\s*:\s*)?"
                                 r"(?:template\s*<[^>]*>\s*)?", "", declaration)
            kind = "void" if re.match(r"(?:(?:static|inline|virtual|constexpr)\s+)*void\s",
                                      declaration) else "other"
            return (kind, word.group(1) if kind == "void" else declaration, i)
    return None


def first_only_site(text, offset, kind="push"):
    """The file with the judging function stopped right after the report at `offset`, or
    (None, reason) when that cannot be done safely. Returns (text, None) on success."""
    if kind != "push":
        return None, f"a {kind} site: only pushes are made first-only"
    assert PUSH.match(text, offset), f"no push at offset {offset}"
    around = enclosing_function(text, offset)
    if around is None:
        return None, "no enclosing function found"
    if around[0] == "lambda":
        return None, "inside a lambda: a return would leave only the lambda"
    if around[0] != "void":
        return None, f"the enclosing function does not return void ({around[1][:50]!r})"
    end = statement_end(text, offset) + 1
    body = text[offset:end]
    # A helper whose whole body is this push: returning from it changes nothing.
    after = re.sub(r"^(?:\s*//[^\n]*)*\s*", "", text[end:])
    if re.match(r"return\s*;", after):
        return None, "already returns right after its report: the edit would change nothing"
    between = re.sub(r"//[^\n]*", "", text[around[2] + 1:offset]).strip()
    if not between and text[end:].lstrip().startswith("}"):
        return None, f"the whole body of {around[1]}: its callers are the sites"
    if runs_last(text, offset, end, around[2]):
        return None, (f"the last statement {around[1]} runs (no loop around it, nothing after "
                      "it): the edit would change nothing")
    return first_only_edit(text, offset), None


def first_only_edit(text, offset):
    """The push statement at `offset` made `{ PUSH; return; }`, whatever runs after it (the edit
    --first-only plants; tools/test_quiet_oracles.py also plants it where the mode skips, to show
    that it changes nothing there)."""
    end = statement_end(text, offset) + 1
    return (text[:offset] + "{ " + text[offset:end] + " return; }  // quiet-oracles.py: first "
            "report only" + text[end:])


# A push that is already the last statement its function runs: a `return;` after it changes
# nothing, so running the site would only list it FIRST-ONLY for a bug that is not there
# (session 25 found eight such by hand, e.g. the ends of an if/else-if chain closing a helper).
# Proven only in the plain forms: nothing but the closing braces of if/else branches and bare
# blocks (or a `return;`) between the push and its function's closing brace, and no loop or
# switch around the push (a loop runs its body again; a switch's `break` or fall-through is not
# followed here). Anything else is run, not skipped.
LOOPS = re.compile(r"\b(for|while|do|switch)\b")


def blanked(text):
    """`text` with comments and string and character literals made spaces, of the same length:
    brackets inside them no longer count."""
    def spaces(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', spaces, text,
                  flags=re.S)


def matching_close(code, open_at):
    """The offset of the bracket closing the one at `open_at` in blanked code."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] in pairs:
            depth += 1
        elif code[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"no close for the bracket at {open_at}")


def skip_space(code, at):
    while at < len(code) and code[at].isspace():
        at += 1
    return at


def word_at(code, at):
    m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", code[at:])
    return m.group(0) if m else ""


def statement_after(code, at):
    """The offset just past the statement that begins at (or after blanks from) `at` in blanked
    code: a block, an if with its else, a loop, a do-while, a try with its catches, or a plain
    statement to its `;`."""
    at = skip_space(code, at)
    word = word_at(code, at)
    if code.startswith("{", at):
        return matching_close(code, at) + 1
    if word == "if":
        at = skip_space(code, at + 2)
        if word_at(code, at) == "constexpr":
            at = skip_space(code, at + len("constexpr"))
        at = statement_after(code, matching_close(code, at) + 1)
        following = skip_space(code, at)
        if word_at(code, following) == "else":
            at = statement_after(code, following + 4)
        return at
    if word in ("for", "while", "switch"):
        at = skip_space(code, at + len(word))
        return statement_after(code, matching_close(code, at) + 1)
    if word == "do":
        at = skip_space(code, statement_after(code, at + 2))  # then `while (...)`
        at = skip_space(code, matching_close(code, skip_space(code, at + 5)) + 1)
        return at + 1  # its `;`
    if word == "try":
        at = statement_after(code, at + 3)
        while word_at(code, skip_space(code, at)) == "catch":
            at = skip_space(code, skip_space(code, at) + 5)
            at = statement_after(code, matching_close(code, at) + 1)
        return at
    return statement_end(code, at) + 1


def block_kind(code, brace):
    """What the `{` at `brace` opens: "if" (an if's or else's branch), "bare" (a plain block),
    or "other" (a loop, a switch, a try or catch, a lambda, an initializer...)."""
    before = code[:brace].rstrip()
    if re.search(r"\belse$", before):
        return "if"
    if before.endswith(")"):
        head = code[:matching_open(code, len(before) - 1)].rstrip()
        head = re.sub(r"\s*\bconstexpr$", "", head)
        return "if" if re.search(r"\bif$", head) else "other"
    if not before or before[-1] in ";{}":
        return "bare"
    return "other"


def runs_last(text, offset, end, function_brace):
    """Whether the statement text[offset:end] is the last its function runs: no loop or switch
    around it within the function, and from it to the function's closing brace nothing but the
    ends of if/else branches and bare blocks (their skipped else branches aside) or a `return;`."""
    code = blanked(text)
    for loop in LOOPS.finditer(code, function_brace, offset):
        if loop.group(1) == "do":
            body = (skip_space(code, loop.end()), statement_after(code, loop.end()))
        else:
            head = skip_space(code, loop.end())
            if not code.startswith("(", head):
                continue
            body = (matching_close(code, head) + 1,
                    statement_after(code, matching_close(code, head) + 1))
        if body[0] <= offset < body[1]:
            return False
    at = end
    while True:
        at = skip_space(code, at)
        word = word_at(code, at)
        if word == "else":
            at = statement_after(code, at + 4)
        elif re.match(r"return\s*;", code[at:]):
            return True
        elif code.startswith("}", at):
            brace = matching_open_brace(code, at)
            if brace == function_brace:
                return True
            if block_kind(code, brace) == "other":
                return False
            at += 1
        else:
            return False


def matching_open_brace(code, close):
    depth = 0
    for i in range(close, -1, -1):
        if code[i] == "}":
            depth += 1
        elif code[i] == "{":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"no `{{` for the `}}` at {close}")


def run(cmd, **kwargs):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kwargs)


def stop_on_terminate(signum, _frame):
    """A killed run (SIGTERM, SIGHUP) unwinds like an interrupted one: the `finally` that restores
    the edited source runs, so properties/ is never left with a site made quiet."""
    raise SystemExit(128 + signum)


def main():
    for stop in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, stop_on_terminate)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build/ci")
    parser.add_argument("--only", default="", help="comma-separated invariant classes")
    parser.add_argument("--sites", action="store_true",
                        help="make each reporting site quiet in turn, not each oracle")
    parser.add_argument("--first-only", action="store_true",
                        help="with --sites: make each push the last report of its function "
                             "(`return;` after it), not silence it")
    parser.add_argument("--files", default="",
                        help="with --sites: comma-separated file names of properties/")
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
    if args.sites:
        return check_sites(args, tests)
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


def check_sites(args, tests):
    files = sources()
    wanted_files = set(filter(None, args.files.split(",")))
    missing = {name for name in wanted_files if os.path.join("properties", name) not in files}
    if missing:
        print(f"quiet-oracles: no such file in properties/: {', '.join(sorted(missing))}",
              file=sys.stderr)
        return 2
    sites = report_sites(files, wanted_files)
    if not sites:
        print("quiet-oracles: no reporting site found", file=sys.stderr)
        return 2
    quiet = []
    skipped = []
    blind = "FIRST-ONLY" if args.first_only else "QUIET"
    for path, offset, line, kind in sites:
        original = files[path]
        full = os.path.join(ROOT, path)
        where = f"{path}:{line} ({kind})"
        if args.first_only:
            edited, reason = first_only_site(original, offset, kind)
            if edited is None:
                print(f"skipped {where}: {reason}", flush=True)
                skipped.append(where)
                continue
        else:
            edited = quiet_site(original, offset, kind)
        try:
            with open(full, "w") as out:
                out.write(edited)
            build = run(["cmake", "--build", args.build_dir, "--target", "properties_tests"])
            if build.returncode != 0:
                print(f"quiet-oracles: {where}: properties_tests does not build edited:",
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
            print(f"held   {where}: {how} {' '.join(failed[:3])}".rstrip(), flush=True)
        else:
            print(f"{blind:<6} {where}: every test passed", flush=True)
            quiet.append(where)
    run(["cmake", "--build", args.build_dir, "--target", "properties_tests"])
    tried = len(sites) - len(skipped)
    print(f"{tried - len(quiet)} of {tried} reporting sites held"
          + (f"; {blind.lower()}: {', '.join(quiet)}" if quiet else "")
          + (f"; {len(skipped)} skipped" if skipped else ""))
    return 1 if quiet else 0


if __name__ == "__main__":
    sys.exit(main())
