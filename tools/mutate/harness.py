"""Judges mechanical mutants of the harness (sim/, properties/) rather than of runtime/
(tools/mutate.sh run --harness; docs/mutants.md, "Mechanical mutants of the harness").

A harness mutant cannot be judged like a runtime one: the runtime's history is the harness's
output, so "the history changed" is not the question. The question is whether the mutant changes
a VERDICT, and whether something notices. For each mutant:
  1. stillborn: it does not compile (fencesim and the mutated folder's test executable);
  2. the differential run: every scenario at the fixed (seed, strategy) pairs, each run's verdict
     (status, the invariants of its violations, its marks, its history hash) compared with the
     unmutated binary's; a run that no longer passes kills it at once (a false alarm is loud);
  3. the folder's own GoogleTest executable (sim_tests for sim/, properties_tests for
     properties/): a failing test kills it;
  4. a plain `fencesim sweep --budget Ns --jobs 1` of every scenario, stopped at its first failure.
Outcomes: killed (stage differential, ctest or sweep); survived-changed: some verdict changed and
nothing failed (a gap: a quiet part of the harness whose change no check sees); likely-equivalent:
no verdict changed and nothing failed.
"""

import json
import os
import random
import re
import subprocess
import time

import generate
import run as runner

FOLDERS = ("sim", "properties")  # the default of --folders
# The test executable of each folder (its CMakeLists.txt's fencesim_folder_tests target). The
# reports' and the CLI's mutants change no run's verdict: only their tests can kill them.
TESTS = {"sim": "sim_tests", "properties": "properties_tests", "scenarios": "scenarios_tests",
         "reports": "reports_tests", "cli": "cli_tests"}
# Files the runtime mutants' runner already covers, or that only format text or hold test doubles.
SKIPPED = ("properties/sink_doubles.h",)
FAILED_TEST = re.compile(r"^\[  FAILED  \] (\S+)")


def harness_files(root, folders=FOLDERS):
    """The .cpp files of `folders` (headers rebuild most of the tree: name them)."""
    found = []
    for folder in folders:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            rel = f"{folder}/{name}"
            if name.endswith(".cpp") and rel not in SKIPPED:
                found.append(rel)
    return found


def verdict_key(result):
    """What a run decided, as one comparable value."""
    violations = result.get("violations") or []
    return json.dumps({"status": result.get("status"),
                       "violations": sorted(v.get("invariant", "") for v in violations),
                       "marks": result.get("marks") or {},
                       "hash": result.get("history_hash")}, sort_keys=True)


class HarnessJudge(runner.Judge):
    def __init__(self, args):
        super().__init__(args)
        self.folders = tuple(f for f in (args.folders or ",".join(FOLDERS)).split(",") if f)
        unknown = [f for f in self.folders if f not in TESTS]
        if unknown:
            raise SystemExit(f"--folders: unknown folder {unknown[0]} (known: {', '.join(TESTS)})")
        if args.files:
            self.folders = tuple(sorted({f.split("/")[0] for f in args.files}))
        self.folder_targets = sorted({TESTS[f] for f in self.folders})

    def build_targets(self, targets):
        """Builds `targets` like build_fencesim builds fencesim (-Werror lifted on demand)."""
        started = time.monotonic()
        env = dict(self.env)
        lifted = False
        output = ""
        for _ in range(2):
            cmd = ["cmake", "--build", self.build]
            for t in targets:
                cmd += ["--target", t]
            try:
                proc = subprocess.run(cmd + ["-j", str(self.args.build_jobs), "--", "-k", "0"],
                                      env=env, capture_output=True, text=True,
                                      timeout=self.args.build_timeout)
            except subprocess.TimeoutExpired:
                return False, "build timed out", time.monotonic() - started, lifted
            ok, output = proc.returncode == 0, runner.ANSI.sub("", proc.stdout + proc.stderr)
            errors = [l for l in output.splitlines() if " error: " in l]
            if ok or lifted or not errors or not all("[-Werror" in l for l in errors):
                break
            env["FENCESIM_MUTATE_NO_WERROR"] = "1"
            lifted = True
        return ok, output, time.monotonic() - started, lifted

    def build_fencesim(self, build=None, env=None):
        return self.build_targets(["fencesim", *self.folder_targets])

    def run_one(self, scenario, seed, strategy, where=None):
        scratch = os.path.join(self.work, "runs")
        os.makedirs(scratch, exist_ok=True)
        try:
            proc = subprocess.run(
                [self.binary, "run", "--scenario", scenario, "--seed", str(seed), "--strategy",
                 strategy, "--json"], cwd=scratch, capture_output=True, text=True,
                timeout=self.args.run_timeout)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "invariant": "timeout", "hash": None}
        try:
            result = json.loads(proc.stdout)
        except ValueError:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return {"status": "crash", "invariant": f"crash (exit {proc.returncode})",
                    "hash": None, "detail": tail[:200]}
        violations = result.get("violations") or []
        invariant = violations[0]["invariant"] if violations else result.get("status")
        # "hash" is what the differential compares: here the whole verdict, not only the history.
        return {"status": result.get("status"), "invariant": invariant,
                "hash": verdict_key(result), "detail": result.get("detail", "")[:200]}

    def folder_tests(self, folder):
        """Runs the folder's GoogleTest executable; returns (killed_by or None, seconds)."""
        exe = os.path.join(self.build, folder, TESTS[folder])
        started = time.monotonic()
        try:
            proc = subprocess.run([exe, "--gtest_brief=1"], capture_output=True, text=True,
                                  timeout=self.args.ctest_timeout
                                  or (1800 if folder == "cli" else 300), cwd=self.work)
        except subprocess.TimeoutExpired:
            return ({"invariant": f"ctest:{TESTS[folder]}", "detail": "timed out"},
                    time.monotonic() - started)
        seconds = time.monotonic() - started
        if proc.returncode == 0:
            return None, seconds
        failed = sorted({m.group(1) for l in proc.stdout.splitlines()
                         if (m := FAILED_TEST.match(l))})
        detail = ", ".join(failed)[:200] or f"exit {proc.returncode}"
        return {"invariant": f"ctest:{TESTS[folder]}", "tests": failed, "detail": detail}, seconds

    def verdict(self, record, baseline, pairs, where=None):
        killed, changed, record["diff_s"] = self.differential(baseline, pairs)
        record["changed"] = changed
        if killed:
            record.update(outcome="killed", stage="differential", killed_by=killed,
                          seconds=record["diff_s"])
            return record
        folder = record["file"].split("/")[0]
        killed, record["ctest_s"] = self.folder_tests(folder)
        if killed:
            record.update(outcome="killed", stage="ctest", killed_by=killed,
                          seconds=record["ctest_s"])
            return record
        killed, record["sweep_s"] = self.sweep()
        if killed:
            record.update(outcome="killed", stage="sweep", killed_by=killed,
                          seconds=record["sweep_s"])
        elif changed:
            record.update(outcome="survived-changed")
        else:
            record.update(outcome="likely-equivalent")
        return record

    def main(self):
        a = self.args
        if a.schema:
            runner.log("--harness judges each mutant with its own build: --schema is ignored")
            a.schema = False
        self.prepare()
        # Results of other folders are another set: keyed apart, so a sample of one never counts
        # as judged in the other.
        key = "harness-" + runner.tree_hash(a.source)
        if self.folders != FOLDERS:
            key += "-" + "-".join(self.folders)
        data = self.load(key)
        data["source_commit"] = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=a.source, capture_output=True,
            text=True).stdout.strip()
        files = a.files or harness_files(self.tree, self.folders)
        ok, output, build_s, _ = self.build_fencesim()
        if not ok:
            runner.log("the unmutated tree does not build:\n" + output[-2000:])
            return 2
        if "baseline" not in data:
            for folder in sorted({f.split("/")[0] for f in files}):
                killed, seconds = self.folder_tests(folder)
                if killed:
                    runner.log(f"the unmutated {TESTS[folder]} fails ({killed}): nothing judged")
                    return 2
            baseline = {}
            for scenario in self.scenarios():
                for seed, strategy in runner.DIFF_RUNS:
                    r = self.run_one(scenario, seed, strategy)
                    if r["status"] == "pass":
                        baseline[f"{scenario}/{seed}/{strategy}"] = r["hash"]
            killed, seconds = self.sweep()
            if killed:
                runner.log(f"the unmutated tree fails its sweep ({killed}): nothing judged")
                return 2
            data["baseline"] = {"hashes": baseline}
            self.save(data)
        baseline = data["baseline"]["hashes"]
        pairs = [(k.split("/")[0], int(k.split("/")[1]), k.split("/")[2]) for k in baseline]
        ccdb = os.path.join(self.build, "compile_commands.json")
        mutants = generate.generate(self.tree, files, ccdb)
        shard_i, shard_n = a.shard
        mutants = [m for i, m in enumerate(mutants) if i % shard_n == shard_i]
        if a.only:
            wanted = set(a.only.split(","))
            mutants = [m for m in mutants if m.id in wanted]
        todo = [m for m in mutants if m.id not in data["mutants"]]
        runner.log(f"{len(mutants)} harness mutants in {len(files)} files, "
                   f"{len(mutants) - len(todo)} already judged, {len(todo)} to go")
        if a.shuffle is not None:
            # Judged in an order drawn from the seed: a run that --stop-at or --limit cuts short
            # is a uniform sample of every file's mutants, not the first files' all.
            random.Random(a.shuffle).shuffle(todo)
        if a.limit is not None:
            todo = todo[: a.limit]
        for n, m in enumerate(todo, 1):
            if a.stop_at and runner.datetime.datetime.utcnow().strftime("%H:%M") >= a.stop_at:
                runner.log(f"--stop-at {a.stop_at}: stopping with {len(todo) - n + 1} to go")
                break
            r = self.judge(m, baseline, pairs)
            if r["outcome"] != "build-timeout":
                data["mutants"][m.id] = r
            runner.log(f"{n}/{len(todo)} {m.id}: {r['outcome']} "
                       f"{r.get('killed_by', {}).get('invariant', '')} ({r['total_s']:.0f}s)")
            self.save(data)
        self.build_fencesim()
        return 0
