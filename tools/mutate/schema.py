"""Mutant schemata: many mutants of one file compiled into one build, each behind a guard that
the environment turns on at run time (FENCESIM_MUTANT=ID, read by tools/mutate/schema_guard.h).

Why: a mutant of a header rebuilds every object that includes it (about 120 for runtime/'s
widely included headers, 9 core-minutes each); a schema build pays that once for all of a file's
mutants. With no guard on, the schema binary must give the unmutated binary's histories
(tools/mutate/run.py checks it at every differential seed before judging anything).

Each mutant sits in a host: the smallest whole expression, condition or statement around its edit
(generate.py records it). Hosts nest or are disjoint (they are syntax nodes); a host is rendered
with its children already guarded, and its mutants become alternatives:
  expr:  (fencesim_mutant_on(7) ? (a <= b) : fencesim_mutant_on(8) ? (a >= b) : (a < b))
  cond:  (fencesim_mutant_on(9) ? !static_cast<bool>(x) : static_cast<bool>(x))
  stmt:  { if (!(fencesim_mutant_on(10))) { lease.assert_held(); } }
Every guard stays on the line its host starts on, so line numbers (and std::source_location in
check failures) are those of the unmutated file. A mutant whose schema does not compile
(a constant expression, a narrowing brace) is found from the compiler's error lines (`sites`)
and left for an ordinary one-mutant build.
"""

import dataclasses

GUARD = "fencesim_mutant_on"


@dataclasses.dataclass
class Host:
    start: int
    end: int
    kind: str
    mutants: list            # (guard id, generate.Mutant)
    children: list = dataclasses.field(default_factory=list)


class Unschemable(Exception):
    """args: the mutant's id, and why it cannot be a guard (it is then built on its own)."""

    def __init__(self, mutant_id, why="overlaps another host"):
        super().__init__(mutant_id, why)
        self.mutant_id, self.why = mutant_id, why

    def __str__(self):
        return self.mutant_id


def _tree(mutants_with_ids):
    """The hosts as a forest ordered by start; raises Unschemable naming a mutant whose host
    overlaps another's without nesting (not a syntax node: a macro's expansion, say)."""
    by_range = {}
    for gid, m in mutants_with_ids:
        if m.host_start < 0:
            raise Unschemable(m.id)
        key = (m.host_start, m.host_end, m.host_kind)
        by_range.setdefault(key, Host(m.host_start, m.host_end, m.host_kind, [])).mutants.append(
            (gid, m))
    hosts = sorted(by_range.values(), key=lambda h: (h.start, -h.end, h.kind))
    roots, stack = [], []
    for h in hosts:
        while stack and stack[-1].end <= h.start:
            stack.pop()
        if stack:
            parent = stack[-1]
            if h.end > parent.end:
                raise Unschemable(h.mutants[0][1].id)
            if (h.start, h.end) == (parent.start, parent.end):
                # The same range as a statement or condition host and an expression host:
                # one host, the expression alternatives inside the condition's.
                pass
            parent.children.append(h)
        else:
            roots.append(h)
        stack.append(h)
    return roots


def _render_range(text, start, end, children, open_mark, close_mark):
    out, at = [], start
    for child in children:
        if child.start < start or child.end > end:
            continue
        out.append(text[at:child.start])
        out.append(_render_host(text, child, open_mark, close_mark))
        at = child.end
    out.append(text[at:end])
    return "".join(out)


def _render_host(text, host, open_mark, close_mark):
    inner = _render_range(text, host.start, host.end, host.children, open_mark, close_mark)
    ids = [gid for gid, _ in host.mutants]
    if host.kind == "stmt":
        # The statement's own whitespace (a deleted line includes its indentation and newline)
        # stays outside the guard.
        body = inner.strip()
        lead = inner[: len(inner) - len(inner.lstrip())]
        trail = inner[len(inner.rstrip()):]
        guard = " || ".join(f"{GUARD}({g})" for g in ids)
        # Braced as a whole: `if (x) check(...); else ...` must keep its else.
        rendered = f"{lead}{{ if (!({guard})) {{ {body} }} }}{trail}"
    else:
        if host.kind == "cond":
            original = f"static_cast<bool>({inner})"
        else:
            original = f"({inner})"
        alternatives = []
        for gid, m in host.mutants:
            alternative = _one_line(_alternative(text, host, m, inner), m)
            alternatives.append(f"{GUARD}({gid}) ? ({alternative}) : ")
        rendered = "(" + "".join(alternatives) + original + ")"
    return f"{open_mark(ids)}{rendered}{close_mark(ids)}"


def _one_line(alternative, m):
    """An alternative repeats its host's text: a host over several lines would add lines and move
    every line after it (and each `source_location`). Its newlines become spaces, which is the
    same C++ between tokens, except after a line comment, inside a raw string or on a
    preprocessor line: such a mutant is built on its own."""
    if "\n" not in alternative:
        return alternative
    if "//" in alternative or 'R"' in alternative or any(
            line.lstrip().startswith("#") for line in alternative.split("\n")):
        raise Unschemable(m.id, "spans lines around a comment, a raw string or a directive")
    return alternative.replace("\n", " ")


def _alternative(text, host, m, inner):
    if m.operator == "cond-negate":
        return f"!static_cast<bool>({inner})"
    if (m.start, m.end) == (host.start, host.end):
        return m.replacement
    for child in host.children:
        if child.start < m.end and m.start < child.end:
            raise Unschemable(m.id)  # the edit cuts through a nested host
    # The edit strictly inside the host: the host's text around it, its children guarded.
    # Hosts have no markers inside alternatives: the original branch carries them.
    plain = lambda ids: ""  # noqa: E731
    return (_render_range(text, host.start, m.start, host.children, plain, plain) + m.replacement
            + _render_range(text, m.end, host.end, host.children, plain, plain))


def render(text, mutants_with_ids):
    """The file's text with every mutant guarded: (text, {guard id: (first line, last line,
    length)}), the host's lines (1-based) and rendered length, which map compiler errors back
    to mutants (`sites`)."""
    if isinstance(text, bytes):
        text = text.decode()
    roots = _tree(mutants_with_ids)
    # Markers around each host, stripped after the render, give each guard's line span.
    open_mark = lambda ids: "\0" + ",".join(map(str, ids)) + "\1"  # noqa: E731
    close_mark = lambda ids: "\2" + ",".join(map(str, ids)) + "\3"  # noqa: E731
    marked = _render_range(text, 0, len(text), roots, open_mark, close_mark)
    out, spans, line, i, opened = [], {}, 1, 0, {}
    while i < len(marked):
        c = marked[i]
        if c in "\0\2":
            j = marked.index("\1" if c == "\0" else "\3", i)
            for gid in map(int, marked[i + 1:j].split(",")):
                if c == "\0":
                    opened[gid] = (line, len(out))
                else:  # a host's span: its lines, and its length (inner hosts are shorter)
                    first, at = opened.pop(gid)
                    old = spans.get(gid, (first, line, 0))
                    spans[gid] = (min(old[0], first), max(old[1], line),
                                  max(old[2], len(out) - at))
            i = j + 1
            continue
        if c == "\n":
            line += 1
        out.append(c)
        i += 1
    result = "".join(out)
    if result.count("\n") != text.count("\n"):
        raise AssertionError("a schema moved lines")  # guards never add a line
    return result, spans


def sites(spans, error_lines):
    """The guard ids to take out of the schema for compiler errors at `error_lines`: for each
    line, the innermost hosts (the shortest) that cover it. An error in an outer host's own
    alternative then takes a round more: the next build's errors name it."""
    out = set()
    for line in error_lines:
        covering = [(length, gid) for gid, (first, last, length) in spans.items()
                    if first <= line <= last]
        if covering:
            smallest = min(width for width, _ in covering)
            out.update(gid for width, gid in covering if width == smallest)
    return out
