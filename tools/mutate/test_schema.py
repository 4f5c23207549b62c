"""Unit tests of mutant schemata (tools/mutate/schema.py): a small C++ program whose every mechanical
mutant is compiled twice, once on its own and once as the guard of one schema build turned on by
FENCESIM_MUTANT; the two must print the same. With no guard on, the schema build must print what
the unmutated program prints. Also: guards never move a line, and compiler errors map back to the
innermost guard.

Run: tools/mutate.sh test (exit 77, with the reason, when libclang's bindings or g++ are missing).
"""

import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import clang.cindex  # noqa: F401
except ImportError:
    print("SKIP: python3-clang (libclang's Python bindings) is not installed")
    sys.exit(77)
if shutil.which("g++") is None:
    print("SKIP: g++ is not installed")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
import schema  # noqa: E402

# Every operator of generate.py, and hosts that nest: a comparison with a literal operand inside
# a returned bool, a condition around a comparison, a check statement with a comparison inside.
SAMPLE = """\
#include <algorithm>
#include <stdexcept>

inline void check(bool condition, const char* what) {
  if (!condition) throw std::runtime_error(what);
}

struct Lease {
  int epoch = 3;
  bool held() const { return epoch > 2; }
  int next() const { return std::min(epoch + 1, 10); }
};

inline bool early(int a, int b) { return a < b + 1; }

inline int guarded(const Lease& lease, int x) {
  check(x >= 1, "x is positive");
  int s = 0;
  while (!(s > x)) {
    s += 2;
  }
  if (lease.held() && x != 4) s += lease.next();
  if (x == 3) check(s > 0, "s is positive"); else s += 1;
  if (x > 1 &&
      s < 40) s -= 1;
  return x == 0 ? s : s * 2;
}
"""

DRIVER = """\
#include <cstdio>
#include "sample.h"

int main() {
  Lease lease;
  for (int e = 1; e <= 4; ++e) {
    lease.epoch = e;
    for (int x = 0; x <= 5; ++x) {
      std::printf("%d %d %d %d ", lease.held(), lease.next(), early(e, x), x);
      try {
        std::printf("%d\\n", guarded(lease, x));
      } catch (const std::exception& error) {
        std::printf("threw %s\\n", error.what());
      }
    }
  }
}
"""


def build(folder, sample_text, name, guard=False):
    """The driver built against `sample_text` as sample.h, in its own folder (builds run at once)."""
    own = os.path.join(folder, name)
    os.makedirs(own)
    with open(os.path.join(own, "sample.h"), "w") as f:
        f.write(sample_text)
    binary = os.path.join(own, "driver")
    extra = ["-include", os.path.join(HERE, "schema_guard.h")] if guard else []
    subprocess.run(["g++", "-std=c++20", "-O0", "-w", *extra, "-I", own, "-o", binary,
                    os.path.join(folder, "driver.cpp")], check=True)
    return binary


def output(binary, guard_id=None):
    env = dict(os.environ)
    env.pop("FENCESIM_MUTANT", None)
    if guard_id is not None:
        env["FENCESIM_MUTANT"] = str(guard_id)
    return subprocess.run([binary], check=True, capture_output=True, text=True, env=env).stdout


class SchemaTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="schema-test-")
        with open(os.path.join(self.folder, "driver.cpp"), "w") as f:
            f.write(DRIVER)
        # What the generator parses, apart from the driver: `#include "sample.h"` looks in the
        # driver's own folder first, and must find only the build's -I folder.
        source = os.path.join(self.folder, "source")
        os.makedirs(source)
        with open(os.path.join(source, "sample.h"), "w") as f:
            f.write(SAMPLE)
        self.mutants = generate.Generator(source, "sample.h").run()
        self.addCleanup(shutil.rmtree, self.folder)

    def test_every_guard_behaves_as_its_mutant(self):
        operators = {m.operator.split("-")[0] for m in self.mutants}
        self.assertTrue({"ror", "const", "cond", "check", "minmax", "return"} <= operators,
                        operators)
        text = SAMPLE.encode()
        with_ids = list(enumerate(self.mutants, 1))
        rendered, _ = schema.render(text, with_ids)
        jobs = [(self.folder, SAMPLE, "plain"), (self.folder, rendered, "schema", True)]
        jobs += [(self.folder, m.apply(text).decode(), f"m{gid}") for gid, m in with_ids]
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            binaries = list(pool.map(lambda job: build(*job), jobs))
        plain = output(binaries[0])
        self.assertEqual(output(binaries[1]), plain)
        differing = 0
        for (gid, m), alone_binary in zip(with_ids, binaries[2:]):
            alone = output(alone_binary)
            self.assertEqual(output(binaries[1], gid), alone, m.id)
            differing += alone != plain
        # The comparison above must be able to fail: most mutants change what the sample prints.
        self.assertGreater(differing, len(with_ids) // 2)

    def test_guards_keep_every_line_in_place(self):
        rendered, spans = schema.render(SAMPLE.encode(), list(enumerate(self.mutants, 1)))
        self.assertEqual(rendered.count("\n"), SAMPLE.count("\n"))
        self.assertEqual(set(spans), set(range(1, len(self.mutants) + 1)))
        for gid, (first, last, _) in spans.items():
            line = SAMPLE.splitlines()[first - 1]
            self.assertIn(self.mutants[gid - 1].original.strip().splitlines()[0], line
                          if first == last else "\n".join(SAMPLE.splitlines()[first - 1:last]))

    def test_an_error_line_takes_out_the_innermost_guards(self):
        _, spans = schema.render(SAMPLE.encode(), list(enumerate(self.mutants, 1)))
        line = SAMPLE.splitlines().index(
            "inline bool early(int a, int b) { return a < b + 1; }") + 1
        taken = schema.sites(spans, [line])
        names = {self.mutants[g - 1].operator for g in taken}
        # On that line the innermost hosts are the literal `1` (its two moves), not the
        # comparison or the returned bool around it.
        self.assertEqual(names, {"const-plus1", "const-minus1"})

    def test_a_host_that_overlaps_another_is_refused(self):
        m = self.mutants[0]
        odd = generate.Mutant(m.file, m.line, m.column, "cond-negate", m.host_start + 1,
                              m.host_end + 1, "x", "y", m.host_start + 1, m.host_end + 1, "cond")
        with self.assertRaises(schema.Unschemable):
            schema.render(SAMPLE.encode(), [(1, m), (2, odd)])

    def test_a_host_over_lines_with_a_line_comment_is_refused(self):
        # Its newlines cannot become spaces: the comment would swallow the rest of the host.
        text = SAMPLE.replace("if (x > 1 &&\n", "if (x > 1 &&  // and small\n")
        source = os.path.join(self.folder, "commented")
        os.makedirs(source)
        with open(os.path.join(source, "sample.h"), "w") as f:
            f.write(text)
        mutants = generate.Generator(source, "sample.h").run()
        spanning = [m for m in mutants if m.operator == "cond-negate"
                    and "// and small" in text[m.host_start:m.host_end]]
        self.assertEqual(len(spanning), 1, [m.id for m in mutants])
        with self.assertRaises(schema.Unschemable):
            schema.render(text.encode(), [(1, spanning[0])])


if __name__ == "__main__":
    unittest.main()
