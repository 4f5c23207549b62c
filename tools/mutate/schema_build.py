"""The schema build of tools/mutate/run.py --schema: its own copy of the tree, every selected
mutant guarded in its file (schema.py), built once; mutants whose guard does not compile are
taken out (found from the compiler's error lines) and handed back for one-mutant builds."""

import json
import os
import re
import shlex
import subprocess
import tempfile
import time

import schema

GUARD_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema_guard.h")
# `path:line:col: error:` and its notes (a constant expression's failure in another file notes
# the guard it reached) name a line; warnings are off in a schema build (-w): they never do.
LOCATION = re.compile(r"^(/[^:\s]+):(\d+):(\d+): (?:fatal )?(?:error|note): ")


class SchemaBuild:
    def __init__(self, judge, mutants):
        self.judge = judge
        self.tree = os.path.join(judge.work, "schema", "tree")
        self.build = os.path.join(self.tree, "build", "ci")
        self.binary = os.path.join(self.build, "cli", "fencesim")
        # Guard ids from 1 (0 means none on) in the order given: stable for one run only.
        self.ids = {m.id: n for n, m in enumerate(mutants, 1)}
        self.mutants = {m.id: m for m in mutants}
        self.out = set()          # ids taken out: judged with their own build
        self.env = dict(judge.env, CCACHE_BASEDIR=self.tree,
                        FENCESIM_MUTATE_SCHEMA_FLAGS=f"-include {GUARD_HEADER} -Wno-error -w")
        self.originals = {}
        self.spans = {}           # file -> {guard id: (first line, last line)}

    def log(self, *words):
        self.judge.log(*words)

    def in_schema(self):
        return [m for i, m in self.mutants.items() if i not in self.out]

    # -- rendering --------------------------------------------------------------------------
    def render(self):
        by_file = {}
        for m in self.in_schema():
            by_file.setdefault(m.file, []).append(m)
        for rel in set(self.originals) | set(by_file):
            path = os.path.join(self.tree, rel)
            original = self.originals.setdefault(rel, open(path, "rb").read())
            pending = by_file.get(rel, [])
            while True:
                try:
                    text, spans = schema.render(original, [(self.ids[m.id], m) for m in pending])
                    break
                except schema.Unschemable as e:
                    self.log(f"schema: {e} {e.why}: built on its own")
                    self.out.add(str(e))
                    pending = [m for m in pending if m.id != str(e)]
            self.spans[rel] = spans
            with open(path, "w") as f:
                f.write(text)

    def restore(self):
        for rel, original in self.originals.items():
            with open(os.path.join(self.tree, rel), "wb") as f:
                f.write(original)

    def take_out(self, output):
        """Takes out the mutants whose hosts the compiler's messages point at; returns how many."""
        lines = {}
        for line in output.splitlines():
            m = LOCATION.match(line)
            if not m:
                continue
            for rel in self.spans:
                if os.path.realpath(m.group(1)) == os.path.realpath(os.path.join(self.tree, rel)):
                    lines.setdefault(rel, set()).add(int(m.group(2)))
        by_gid = {g: i for i, g in self.ids.items()}
        taken = set()
        for rel, error_lines in lines.items():
            for gid in schema.sites(self.spans[rel], error_lines):
                if by_gid[gid] not in self.out:
                    taken.add(by_gid[gid])
        for mid in sorted(taken):
            self.log(f"schema: {mid} does not compile as a guard: built on its own")
        self.out |= taken
        return len(taken)

    # -- building ---------------------------------------------------------------------------
    def configure(self):
        self.judge.copy_source(self.tree)
        self.judge.configure(self.tree, self.env)

    def syntax_check(self):
        """Each mutated file parsed alone with the build's flags (seconds, not a build): most
        guards that cannot compile (constant expressions) are found here."""
        entries = json.load(open(os.path.join(self.build, "compile_commands.json")))
        entry = next(e for e in entries if "/runtime/" in e["file"] and e["file"].endswith(".cpp"))
        words = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
        flags, skip = [], False
        for word in words[1:]:
            if skip:
                skip = False
            elif word in ("-o", "-c", "-MF", "-MT", "-MQ"):
                skip = True
            elif word not in ("-MD", "-MMD") and word != entry["file"]:
                flags.append(word)
        output = []
        with tempfile.TemporaryDirectory() as scratch:
            for rel in sorted(self.spans):
                path = os.path.join(self.tree, rel)
                source = path
                if rel.endswith(".h"):
                    source = os.path.join(scratch, "include.cpp")
                    with open(source, "w") as f:
                        f.write(f'#include "{path}"\n')
                proc = subprocess.run([words[0], *flags, "-include", GUARD_HEADER,
                                       "-Wno-error", "-w", "-fsyntax-only", source],
                                      cwd=entry["directory"], capture_output=True, text=True)
                if proc.returncode != 0:
                    output.append(proc.stdout + proc.stderr)
        return "\n".join(output)

    def make(self, rounds=6):
        """Renders, checks and builds until fencesim builds; returns the build's seconds, or
        None when it cannot (every mutant is then left for its own build)."""
        self.configure()
        started = time.monotonic()
        for _ in range(20):
            self.render()
            errors = self.syntax_check()
            if not errors:
                break
            if self.take_out(errors) == 0:
                self.log("schema: the syntax check fails where no guard is:\n" + errors[-1500:])
                self.out = set(self.mutants)
                self.restore()
                return None
        for _ in range(rounds):
            self.render()
            ok, output, _, _ = self.judge.build_fencesim(self.build, self.env)
            if ok:
                return time.monotonic() - started
            if self.take_out(output) == 0:
                self.log("schema: the build fails where no guard is:\n" + output[-1500:])
                break
        self.out = set(self.mutants)
        self.restore()
        return None
