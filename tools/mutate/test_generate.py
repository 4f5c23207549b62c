"""Unit tests of the mutant generator (no build of fencesim needed): a small C++ file, the exact
mutants each operator yields, and diffs that `git apply` takes and that give the mutated text.

Run: tools/mutate.sh test (exit 77, with the reason, when libclang's Python bindings are missing).
"""

import os
import subprocess
import sys
import tempfile
import unittest

try:
    import clang.cindex  # noqa: F401
except ImportError:
    print("SKIP: python3-clang (libclang's Python bindings) is not installed")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402

# Declarations the sample needs, kept out of the mutated file (only the named file is mutated)
# and free of system headers, so the test does not depend on the standard library's layout.
HEADER = """\
#pragma once
namespace std {
template <class T> const T& min(const T& a, const T& b);
template <class T> const T& max(const T& a, const T& b);
}
namespace fmt {
template <class... A> int format(const char* f, A... a);
}
void check(bool condition, const char* what);
struct Lease {
  void assert_held();
  bool held() const;
};
"""

SAMPLE = """\
#include "decl.h"

bool early(int a, int b) { return a < b; }

int smaller(int a, int b) { return std::min(a, b); }

void guard(Lease& lease, int x) {
  check(x >= 1, "x is positive");
  lease.assert_held();
  if (x == 2) lease.assert_held();
}

int count(bool flag, int n) {
  int s = 0;
  while (!flag) {
    flag = true;
  }
  for (int i = 0; i < n; ++i) s += 2;
  return flag ? s : n;
}

int to_string(int x) { return x > 3 ? 1 : 2; }

int message(int x) { return fmt::format("{}", x != 4); }
"""


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def found(mutants):
    return {(m.line, m.operator, m.original, m.replacement) for m in mutants}


class GenerateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="mutate-test-")
        write(os.path.join(cls.dir, "decl.h"), HEADER.encode())
        write(os.path.join(cls.dir, "sample.cpp"), SAMPLE.encode())
        cls.text = SAMPLE.encode()
        cls.mutants = generate.generate(cls.dir, ["sample.cpp"])
        cls.set = found(cls.mutants)

    def on_line(self, line):
        return {m for m in self.set if m[0] == line}

    def test_relational_operator_boundary_negation_and_returned_bool(self):
        self.assertEqual(self.on_line(3), {
            (3, "ror-boundary-lt", "<", "<="),
            (3, "ror-negate-lt", "<", ">="),
            (3, "return-true", "a < b", "true"),
            (3, "return-false", "a < b", "false"),
        })

    def test_min_max_swapped_and_returned_integer_zeroed(self):
        self.assertEqual(self.on_line(5), {
            (5, "minmax-swap", "min", "max"),
            (5, "return-zero", "std::min(a, b)", "0"),
        })

    def test_checking_calls_deleted_with_their_statement(self):
        self.assertEqual(self.on_line(8), {
            (8, "check-delete", '  check(x >= 1, "x is positive");\n', ""),
            (8, "ror-boundary-ge", ">=", ">"),
            (8, "ror-negate-ge", ">=", "<"),
            (8, "const-plus1", "1", "2"),
            (8, "const-minus1", "1", "0"),
        })
        self.assertEqual(self.on_line(9), {(9, "check-delete", "  lease.assert_held();\n", "")})
        # Not alone on its line: the statement becomes an empty block; the comparison is not
        # negated as a condition too (ror-negate covers it).
        self.assertEqual(self.on_line(10), {
            (10, "check-delete", "lease.assert_held();", "{}"),
            (10, "ror-negate-eq", "==", "!="),
            (10, "const-plus1", "2", "3"), (10, "const-minus1", "2", "1"),
        })

    def test_conditions_negated_and_constants_moved(self):
        self.assertEqual(self.on_line(14), {(14, "const-plus1", "0", "1"),
                                            (14, "const-minus1", "0", "-1")})
        self.assertEqual(self.on_line(15), {(15, "cond-negate", "!flag", "flag")})
        self.assertEqual(self.on_line(18), {
            (18, "const-plus1", "0", "1"), (18, "const-minus1", "0", "-1"),
            (18, "ror-boundary-lt", "<", "<="), (18, "ror-negate-lt", "<", ">="),
            (18, "const-plus1", "2", "3"), (18, "const-minus1", "2", "1"),
        })
        self.assertEqual(self.on_line(19), {(19, "cond-negate", "flag", "!(flag)"),
                                            (19, "return-zero", "flag ? s : n", "0")})

    def test_formatting_code_is_skipped(self):
        self.assertEqual(self.on_line(22), set())
        self.assertEqual(self.on_line(24), {(24, "return-zero", 'fmt::format("{}", x != 4)', "0")})

    def test_ids_are_stable_and_unique(self):
        ids = [m.id for m in self.mutants]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertIn("sample.cpp:3:37:ror-boundary-lt", ids)
        again = [m.id for m in generate.generate(self.dir, ["sample.cpp"])]
        self.assertEqual(ids, again)

    def test_every_diff_applies_and_gives_the_mutant(self):
        for m in self.mutants:
            with self.subTest(m.id), tempfile.TemporaryDirectory() as work:
                path = os.path.join(work, "sample.cpp")
                write(path, self.text)
                write(os.path.join(work, "m.diff"), m.diff(self.text).encode())
                subprocess.run(["git", "apply", "m.diff"], cwd=work, check=True,
                               capture_output=True)
                self.assertEqual(generate.read(path), m.apply(self.text))
                self.assertNotEqual(m.apply(self.text), self.text)


if __name__ == "__main__":
    unittest.main()
