"""Mechanical mutants of runtime/, found on the syntax tree that libclang parses (never by
matching text): each mutant is one edit of a byte range of one file, named by a stable id
(file:line:column:operator) and shown as a unified diff.

Operators (docs/mutants.md, "Mechanical mutation score"):
  ror-boundary   < <-> <=, > <-> >= (a boundary moved by one)
  ror-negate     < -> >=, <= -> >, > -> <=, >= -> <, == <-> != (the comparison negated)
  const-plus1 / const-minus1
                 an integer literal that is an operand of an arithmetic or comparison operator,
                 a variable's or member's initializer or a returned value, moved by one
  cond-negate    the condition of an if / while / do / for / ?: negated (skipped where the
                 condition is itself a comparison: ror-negate already covers it)
  check-delete   a statement calling a checking function (check, assert_held, throw_if_aborted)
                 deleted
  minmax-swap    std::min <-> std::max
  return-true / return-false / return-zero
                 a returned bool replaced by true or false, a returned integer by 0

Code that only formats text is skipped: the arguments of fmt::format and functions named
to_string (their output never reaches a decision, only messages).
"""

import dataclasses
import difflib
import json
import os
import shlex
import sys

import clang.cindex as ci

K = ci.CursorKind

CHECKING_FUNCTIONS = ("check", "assert_held", "throw_if_aborted")
FORMATTING_CALLS = ("format", "format_to")
FORMATTING_FUNCTIONS = ("to_string",)

BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
NEGATION = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
OPERATOR_NAMES = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}

INTEGER_TYPES = {
    ci.TypeKind.INT, ci.TypeKind.UINT, ci.TypeKind.LONG, ci.TypeKind.ULONG,
    ci.TypeKind.LONGLONG, ci.TypeKind.ULONGLONG, ci.TypeKind.SHORT, ci.TypeKind.USHORT,
}


def read(path):
    with open(path, "rb") as f:
        return f.read()


@dataclasses.dataclass
class Mutant:
    file: str        # path relative to the repository root
    line: int
    column: int
    operator: str
    start: int       # byte offsets of the replaced range in the file
    end: int
    replacement: str
    original: str
    # The smallest syntax node the edit sits in that is a whole expression or statement: a
    # schema build (tools/mutate/schema.py) guards it as a whole. kind: expr, cond or stmt.
    host_start: int = -1
    host_end: int = -1
    host_kind: str = ""

    @property
    def id(self):
        return f"{self.file}:{self.line}:{self.column}:{self.operator}"

    def apply(self, text: bytes) -> bytes:
        return text[: self.start] + self.replacement.encode() + text[self.end:]

    def diff(self, text: bytes) -> str:
        before = text.decode().splitlines(keepends=True)
        after = self.apply(text).decode().splitlines(keepends=True)
        return "".join(difflib.unified_diff(before, after, f"a/{self.file}", f"b/{self.file}", n=3))

    def to_json(self):
        d = dataclasses.asdict(self)
        d["id"] = self.id
        return d


def compile_args(root, path, compile_commands):
    """The flags the build compiles `path` with (from compile_commands.json when there is one),
    keeping what changes parsing: include paths, defines and the language standard."""
    args = None
    if compile_commands and os.path.exists(compile_commands):
        with open(compile_commands) as f:
            entries = json.load(f)
        for entry in entries:
            if os.path.realpath(entry["file"]) == os.path.realpath(path):
                words = entry.get("arguments") or shlex.split(entry["command"])
                args = []
                keep_next = False
                for word in words[1:]:
                    if keep_next:
                        args.append(word)
                        keep_next = False
                    elif word in ("-I", "-isystem", "-D"):
                        args.append(word)
                        keep_next = True
                    elif word.startswith(("-I", "-isystem", "-D", "-std=")):
                        args.append(word)
                break
    if args is None:
        args = ["-std=c++20", f"-I{root}"]
    return ["-x", "c++"] + args


def strip_implicit(cursor):
    """The expression under implicit casts and parentheses (libclang shows both as wrappers)."""
    while cursor.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        children = list(cursor.get_children())
        if len(children) != 1:
            break
        cursor = children[0]
    return cursor


class Generator:
    def __init__(self, root, rel, compile_commands=None):
        self.root = root
        self.rel = rel
        self.path = os.path.join(root, rel)
        self.text = read(self.path)
        # Each line's start offset: libclang gives line/column, the edits use byte offsets.
        self.line_starts = [0]
        for i, b in enumerate(self.text):
            if b == 0x0A:
                self.line_starts.append(i + 1)
        index = ci.Index.create()
        self.tu = index.parse(self.path, args=compile_args(root, self.path, compile_commands))
        self.mutants = []
        self.seen = set()

    # -- helpers ---------------------------------------------------------------------------
    def in_file(self, cursor):
        f = cursor.extent.start.file
        return f is not None and os.path.realpath(f.name) == os.path.realpath(self.path)

    def offset(self, location):
        return self.line_starts[location.line - 1] + location.column - 1

    def extent(self, cursor):
        return self.offset(cursor.extent.start), self.offset(cursor.extent.end)

    def source(self, start, end):
        return self.text[start:end].decode()

    def add(self, start, end, replacement, operator, host=None, kind="expr"):
        """One mutant: [start, end) replaced; `host`, the (start, end) of the expression or
        statement it sits in, is [start, end) itself when not given."""
        original = self.source(start, end)
        if original == replacement:
            return
        key = (start, end, replacement)
        if key in self.seen:
            return
        self.seen.add(key)
        line = self.text.count(b"\n", 0, start) + 1
        column = start - self.line_starts[line - 1] + 1
        host_start, host_end = host or (start, end)
        self.mutants.append(Mutant(self.rel, line, column, operator, start, end, replacement,
                                   original, host_start, host_end, kind))

    def operator_token(self, cursor, lhs, rhs):
        """The operator token between the two operands of a binary expression."""
        lhs_end = self.offset(lhs.extent.end)
        rhs_start = self.offset(rhs.extent.start)
        for token in cursor.get_tokens():
            start = self.offset(token.extent.start)
            if token.kind == ci.TokenKind.PUNCTUATION and lhs_end <= start < rhs_start:
                return token, start
        return None, None

    # -- the walk ---------------------------------------------------------------------------
    def run(self):
        for child in self.tu.cursor.get_children():
            if self.in_file(child):
                self.visit(child, None)
        self.mutants.sort(key=lambda m: (m.start, m.operator, m.replacement))
        return self.mutants

    def visit(self, cursor, parent):
        kind = cursor.kind
        if kind in (K.FUNCTION_DECL, K.CXX_METHOD) and cursor.spelling in FORMATTING_FUNCTIONS:
            return
        if kind == K.CALL_EXPR and cursor.spelling in FORMATTING_CALLS:
            return
        if not self.in_file(cursor):
            return
        handler = getattr(self, "on_" + kind.name.lower(), None)
        if handler:
            handler(cursor, parent)
        for child in cursor.get_children():
            self.visit(child, cursor)

    def comparison(self, cursor, lhs, rhs):
        token, start = self.operator_token(cursor, lhs, rhs)
        if token is None or token.spelling not in NEGATION:
            return
        op = token.spelling
        end = start + len(op)
        host = self.extent(cursor)
        if op in BOUNDARY:
            self.add(start, end, BOUNDARY[op], f"ror-boundary-{OPERATOR_NAMES[op]}", host)
        self.add(start, end, NEGATION[op], f"ror-negate-{OPERATOR_NAMES[op]}", host)

    def on_binary_operator(self, cursor, parent):
        children = list(cursor.get_children())
        if len(children) == 2:
            self.comparison(cursor, children[0], children[1])
            for operand in children:
                self.literal(strip_implicit(operand))

    def on_compound_assignment_operator(self, cursor, parent):
        children = list(cursor.get_children())
        if len(children) == 2:
            self.literal(strip_implicit(children[1]))

    def on_call_expr(self, cursor, parent):
        name = cursor.spelling
        # An overloaded comparison (std::string ==, std::optional <, ...) is a call to operatorX.
        if name.startswith("operator") and name[len("operator"):] in NEGATION:
            args = list(cursor.get_arguments())
            if len(args) == 2:
                self.comparison(cursor, args[0], args[1])
            return
        if name in ("min", "max"):
            ref = cursor.referenced
            if ref is not None and ref.semantic_parent is not None and \
                    ref.semantic_parent.spelling == "std":
                for token in cursor.get_tokens():
                    if token.spelling == name:
                        start = self.offset(token.extent.start)
                        self.add(start, start + len(name), "max" if name == "min" else "min",
                                 "minmax-swap", self.extent(cursor))
                        break
        if name in CHECKING_FUNCTIONS and parent is not None and \
                parent.kind in (K.COMPOUND_STMT, K.IF_STMT):
            self.delete_statement(cursor)

    def delete_statement(self, call):
        start = self.offset(call.extent.start)
        end = self.offset(call.extent.end)
        if self.text[end:end + 1] != b";":
            return
        end += 1
        line_start = self.text.rfind(b"\n", 0, start) + 1
        line_end = self.text.find(b"\n", end)
        alone = self.text[line_start:start].strip() == b"" and \
            self.text[end:line_end].strip() == b""
        if alone:  # the whole statement's lines go
            self.add(line_start, line_end + 1, "", "check-delete", kind="stmt")
        else:      # `if (x) lease.assert_held();`: an empty block stays
            self.add(start, end, "{}", "check-delete", kind="stmt")

    def condition(self, cursor, skip_comparison=True):
        """Negate `cursor`, a condition expression."""
        inner = strip_implicit(cursor)
        if inner.kind == K.BINARY_OPERATOR:
            tokens = [t.spelling for t in inner.get_tokens()]
            children = list(inner.get_children())
            if len(children) == 2:
                token, _ = self.operator_token(inner, children[0], children[1])
                if token is not None and token.spelling in NEGATION:
                    return  # ror-negate covers it
        if inner.kind == K.CALL_EXPR and inner.spelling.startswith("operator") and \
                inner.spelling[len("operator"):] in NEGATION:
            return
        start, end = self.offset(cursor.extent.start), self.offset(cursor.extent.end)
        text = self.source(start, end)
        if inner.kind == K.UNARY_OPERATOR and text.startswith("!"):
            self.add(start, end, text[1:].strip(), "cond-negate", kind="cond")
        else:
            self.add(start, end, f"!({text})", "cond-negate", kind="cond")

    def first_expression(self, cursor):
        for child in cursor.get_children():
            if child.kind.is_expression():
                return child
            if child.kind == K.VAR_DECL or child.kind.is_statement() and \
                    child.kind != K.DECL_STMT:
                return None  # `if (auto x = ...)`, or a body: no plain condition
        return None

    def on_if_stmt(self, cursor, parent):
        cond = self.first_expression(cursor)
        if cond is not None:
            self.condition(cond)

    on_while_stmt = on_if_stmt

    def on_do_stmt(self, cursor, parent):
        children = list(cursor.get_children())
        if len(children) == 2 and children[1].kind.is_expression():
            self.condition(children[1])

    def on_for_stmt(self, cursor, parent):
        # for (init; cond; inc): the condition is the expression whose extent follows the first ';'
        tokens = list(cursor.get_tokens())
        semis = [self.offset(t.extent.start) for t in tokens if t.spelling == ";"][:2]
        if len(semis) < 2:
            return
        for child in cursor.get_children():
            if child.kind.is_expression() and semis[0] < self.offset(child.extent.start) < semis[1]:
                self.condition(child)

    def on_conditional_operator(self, cursor, parent):
        children = list(cursor.get_children())
        if len(children) == 3:
            self.condition(children[0])

    def on_return_stmt(self, cursor, parent):
        children = list(cursor.get_children())
        if len(children) != 1:
            return
        expr = children[0]
        kind = expr.type.get_canonical().kind
        start, end = self.offset(expr.extent.start), self.offset(expr.extent.end)
        text = self.source(start, end)
        if kind == ci.TypeKind.BOOL:
            if text != "true":
                self.add(start, end, "true", "return-true")
            if text != "false":
                self.add(start, end, "false", "return-false")
        elif kind in INTEGER_TYPES:
            if text != "0":
                self.add(start, end, "0", "return-zero")
            self.literal(strip_implicit(expr))

    def on_var_decl(self, cursor, parent):
        for child in cursor.get_children():
            if child.kind.is_expression():
                self.literal(strip_implicit(child))

    on_field_decl = on_var_decl

    def literal(self, cursor):
        if cursor.kind != K.INTEGER_LITERAL or not self.in_file(cursor):
            return
        start, end = self.offset(cursor.extent.start), self.offset(cursor.extent.end)
        text = self.source(start, end)
        digits = text.replace("'", "")
        suffix = ""
        while digits and digits[-1] in "uUlL":
            suffix = digits[-1] + suffix
            digits = digits[:-1]
        try:
            value = int(digits, 0)
        except ValueError:
            return
        self.add(start, end, f"{value + 1}{suffix}", "const-plus1")
        if value > 0 or not suffix.lower().startswith("u"):
            self.add(start, end, f"{value - 1}{suffix}", "const-minus1")


def generate(root, files, compile_commands=None):
    mutants = []
    for rel in files:
        mutants.extend(Generator(root, rel, compile_commands).run())
    return mutants


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(description="List the mechanical mutants of files")
    parser.add_argument("--root", default=".")
    parser.add_argument("--compile-commands")
    parser.add_argument("--diff", action="store_true", help="print each mutant's diff")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    for m in generate(args.root, args.files, args.compile_commands):
        print(m.id, repr(m.original), "->", repr(m.replacement))
        if args.diff:
            print(m.diff(read(os.path.join(args.root, m.file))))


if __name__ == "__main__":
    main(sys.argv[1:])
