"""Judges the mechanical mutants of runtime/ (tools/mutate/generate.py) against the oracles.

One reusable build tree per worker (a copy of the source tree under --work): a mutant is written
into its file, `fencesim` is built incrementally (ninja rebuilds what includes the file; ccache
serves the rest), judged, and the file is written back. For each mutant:
  1. stillborn: it does not compile;
  2. a quick differential run: every scenario at a fixed set of seeds and strategies, history
     hashes compared with the unmutated binary's; a run that does not pass kills it at once;
  3. a plain `fencesim sweep --budget 30s --jobs 1` of every scenario, stopped at its first
     failure: killed (invariant, seconds), or survived: with a history changed at some
     differential seed (an oracle gap), or with every history unchanged (likely equivalent).
Results go to a JSON file after every mutant, keyed by the content hash of every file that can
change a history (runtime/, and also the simulator, the scenarios and the oracles: the baseline's
hashes are only valid for the tree that made them), so a rerun skips what was judged for the same
tree (resumable); --shard I/N takes every Nth mutant.

With --schema, the mutants are not built one by one: one schema build holds them all, each behind
a guard that FENCESIM_MUTANT turns on (schema.py, schema_build.py), and they are judged --jobs at
once; only those whose guard cannot compile get builds of their own.
"""

import argparse
import concurrent.futures
import datetime
import hashlib
import glob
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402
import schema_build  # noqa: E402

# The order of importance: the fence, the lease, the tree runner, the failure decision, the
# stores; then the rest of runtime/, then headers with inline logic (they rebuild most of the tree).
PRIORITY = [
    "runtime/execution_fence.cpp", "runtime/held_lease.cpp", "runtime/tree_runner.cpp",
    "runtime/errors.cpp", "runtime/memory_lease_repository.cpp", "runtime/checkpoint_store.cpp",
    "runtime/sink.cpp", "runtime/placement_queue.cpp", "runtime/instance.cpp",
    "runtime/scope_key.cpp", "runtime/execution_context.cpp", "runtime/workflow.cpp",
    "runtime/observer.cpp", "runtime/types.cpp", "runtime/check.cpp",
    "runtime/lease_policy.h", "runtime/abort_signal.h", "runtime/fiber_notification.h",
    "runtime/held_lease.h", "runtime/tree_runner.h", "runtime/execution_fence.h",
    "runtime/memory_lease_repository.h", "runtime/scope_key.h", "runtime/types.h",
    "runtime/errors.h", "runtime/frame.h", "runtime/execution_context.h", "runtime/instance.h",
    "runtime/sink.h", "runtime/checkpoint_store.h", "runtime/placement_queue.h",
    "runtime/lease_repository.h", "runtime/env.h", "runtime/workflow.h", "runtime/observer.h",
    "runtime/instance_options.h", "runtime/check.h",
]
# The differential run: every scenario at these (seed, strategy) pairs.
DIFF_RUNS = ((1, "random"), (2, "pct"))
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# The strategy as the sweep prints it: random, pct, or pct-dN (PCT with its depth drawn per seed).
FAILURE_LINE = re.compile(r"^  (\S+) (random|pct(?:-d\d+)?) seed (\d+): (.*)$")


def log(*words):
    print(f"[{datetime.datetime.utcnow():%H:%M:%S}]", *words, file=sys.stderr, flush=True)


def runtime_files(root):
    """The files of runtime/ that are compiled into fencesim (not its tests or test fixtures)."""
    found = [f"runtime/{n}" for n in sorted(os.listdir(os.path.join(root, "runtime")))
             if n.endswith((".cpp", ".h"))]
    ordered = [f for f in PRIORITY if f in found]
    return ordered + [f for f in found if f not in ordered]


def runtime_hash(root):
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "runtime")):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            digest.update(os.path.relpath(path, root).encode() + b"\0")
            digest.update(open(path, "rb").read() + b"\0")
    return digest.hexdigest()[:16]


# Files that cannot change a history or a verdict: a change to them keeps the results.
NOT_JUDGED = ("docs/", "mutants/", ".github/", "corpus/", "fuzz/corpus/", "tests/fixtures/")


def tree_hash(root):
    """The content hash of the tracked files of `root` that can change a history or a verdict."""
    listing = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root,
                             check=True, capture_output=True).stdout.split(b"\0")
    digest = hashlib.sha256()
    for rel in sorted(r.decode() for r in listing if r):
        path = os.path.join(root, rel)
        if rel.startswith(NOT_JUDGED) or rel.endswith(".md") or not os.path.isfile(path):
            continue
        digest.update(rel.encode() + b"\0" + open(path, "rb").read() + b"\0")
    return digest.hexdigest()[:16]


def copy_tree(source, tree):
    """The tracked and untracked (not ignored) files of `source`, copied into `tree`; files whose
    content is unchanged are left alone so the build tree stays incremental."""
    listing = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=source,
                             check=True, capture_output=True).stdout.split(b"\0")
    for rel in (r.decode() for r in listing if r):
        src, dst = os.path.join(source, rel), os.path.join(tree, rel)
        if not os.path.isfile(src):
            continue
        data = open(src, "rb").read()
        if os.path.exists(dst) and open(dst, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)


class Judge:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.tree = os.path.join(self.work, "tree")
        # Preset ci's flags: the same as the worktrees' builds, so ccache serves the unmutated tree.
        # Its -Werror is lifted per object when a mutant only adds a warning (build_fencesim).
        self.build = os.path.join(self.tree, "build", "ci")
        self.binary = os.path.join(self.build, "cli", "fencesim")
        self.env = dict(os.environ, CCACHE_BASEDIR=self.tree, CCACHE_NOHASHDIR="true")
        self.results_path = os.path.abspath(args.results)

    # -- the build tree ---------------------------------------------------------------------
    def log(self, *words):
        log(*words)

    def prepare(self):
        self.copy_source(self.tree)
        self.configure(self.tree, self.env)

    def copy_source(self, tree):
        os.makedirs(tree, exist_ok=True)
        copy_tree(self.args.source, tree)

    def configure(self, tree, env):
        # One object per source (no unity batches): a mutant rebuilds its own file's object, and
        # compile_commands.json names every source, which the generator parses with its flags.
        flags = ["-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DFENCESIM_UNITY=OFF"]
        # ccache when installed, and -Wno-error on demand (build_fencesim).
        flags.append("-DCMAKE_CXX_COMPILER_LAUNCHER=" +
                     os.path.join(os.path.dirname(os.path.abspath(__file__)), "compile.sh"))
        if shutil.which("ld.lld"):  # every mutant relinks fencesim: lld links it in a fraction
            flags.append("-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld")
        subprocess.run(["cmake", "--preset", "ci", *flags], cwd=tree, env=env,
                       check=True, stdout=subprocess.DEVNULL)

    def build_fencesim(self, build=None, env=None):
        """Builds fencesim; returns (ok, output, seconds, warnings_lifted). A build that fails only
        by -Werror (a deleted check leaves a variable unused, a comparison becomes always true)
        is run again with -Wno-error on the failed objects (tools/mutate/compile.sh): such a
        mutant is judged, not discarded."""
        started = time.monotonic()
        env = dict(env or self.env)
        lifted = False
        for _ in range(2):
            try:
                proc = subprocess.run(["cmake", "--build", build or self.build, "--target",
                                       "fencesim",
                                       "-j", str(self.args.build_jobs), "--", "-k", "0"],
                                      env=env, capture_output=True, text=True,
                                      timeout=self.args.build_timeout)
                # The project asks gcc for colours (-fdiagnostics-color=always): drop them.
                ok, output = proc.returncode == 0, ANSI.sub("", proc.stdout + proc.stderr)
            except subprocess.TimeoutExpired:
                return False, "build timed out", time.monotonic() - started, lifted
            errors = [l for l in output.splitlines() if " error: " in l]
            if ok or lifted or not errors or not all("[-Werror" in l for l in errors):
                break
            env["FENCESIM_MUTATE_NO_WERROR"] = "1"  # only the failed objects are built again
            lifted = True
        return ok, output, time.monotonic() - started, lifted

    # -- runs -------------------------------------------------------------------------------
    def scenarios(self):
        out = subprocess.run([self.binary, "list"], check=True, capture_output=True, text=True)
        return [line.split()[0] for line in out.stdout.splitlines() if line.strip()]

    def run_one(self, scenario, seed, strategy, where=None):
        """One run; `where` is (binary, scratch folder, environment) for a schema build."""
        binary, scratch, env = where or (self.binary, os.path.join(self.work, "runs"), None)
        os.makedirs(scratch, exist_ok=True)
        try:
            proc = subprocess.run(
                [binary, "run", "--scenario", scenario, "--seed", str(seed), "--strategy",
                 strategy, "--json", "--replay-out", os.path.join(scratch, "replay.json")],
                cwd=scratch, capture_output=True, text=True, timeout=self.args.run_timeout,
                env=env)
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
        return {"status": result.get("status"), "invariant": invariant,
                "hash": result.get("history_hash"), "detail": result.get("detail", "")[:200]}

    def differential(self, baseline, pairs, where=None):
        """Runs `pairs` until one does not pass; returns (killed_by or None, changed, seconds)."""
        started = time.monotonic()
        changed = []
        for scenario, seed, strategy in pairs:
            r = self.run_one(scenario, seed, strategy, where)
            if r["status"] != "pass":
                return ({"invariant": r["invariant"], "scenario": scenario, "seed": seed,
                         "strategy": strategy, "detail": r.get("detail", "")},
                        changed, time.monotonic() - started)
            if r["hash"] != baseline[f"{scenario}/{seed}/{strategy}"]:
                changed.append(f"{scenario}/{seed}/{strategy}")
        return None, changed, time.monotonic() - started

    def sweep(self, where=None):
        """A plain sweep of every scenario, stopped at the first failure it prints."""
        binary, scratch, env = where or (self.binary, self.work, None)
        out = os.path.join(scratch, "sweep")
        shutil.rmtree(out, ignore_errors=True)
        started = time.monotonic()
        # The shipped specs too, as the main job sweeps them: their stories and mark floors
        # (specs/*.toml) are checks a mutant must also get past.
        specs = []
        for spec in sorted(glob.glob(os.path.join(self.tree, "specs", "*.toml"))):
            specs += ["--with-spec", spec]
        proc = subprocess.Popen(
            [binary, "sweep", "--budget", f"{self.args.sweep_seconds}s", "--jobs", "1",
             "--out", out, "--progress-every", "5s", *specs],
            cwd=scratch, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True, env=env)
        killed = None
        deadline = started + self.args.sweep_seconds * 3 + 120
        tail = []
        try:
            for line in proc.stdout:
                tail = (tail + [line.rstrip()])[-5:]
                m = FAILURE_LINE.match(line.rstrip("\n"))
                if m:
                    what = m.group(4)
                    if what.startswith("nondeterministic"):
                        invariant = "nondeterminism"
                    else:
                        head = what.split(": ", 1)[0].split(" ")
                        invariant = head[1] if len(head) > 1 else head[0]
                    killed = {"invariant": invariant, "scenario": m.group(1),
                              "strategy": m.group(2), "seed": int(m.group(3)),
                              "detail": what[:200]}
                    break
                if time.monotonic() > deadline:
                    killed = {"invariant": "sweep-timeout", "detail": "the sweep did not end"}
                    break
        finally:
            seconds = time.monotonic() - started
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            proc.stdout.close()
        if killed is None and proc.returncode not in (0,):
            killed = {"invariant": f"sweep-exit-{proc.returncode}", "detail": " | ".join(tail)}
        return killed, seconds

    # -- results ----------------------------------------------------------------------------
    def load(self, thash):
        if os.path.exists(self.results_path):
            data = json.load(open(self.results_path))
            if data.get("tree_hash") == thash:
                return data
            log(f"{self.results_path} is for tree {data.get('tree_hash')}, not {thash}: "
                "starting over")
        return {"tree_hash": thash, "mutants": {}}

    def save(self, data):
        tmp = self.results_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.results_path)

    # -- the loop ---------------------------------------------------------------------------
    def main(self):
        a = self.args
        self.prepare()
        rhash = runtime_hash(self.tree)
        data = self.load(tree_hash(self.args.source))
        data["source_commit"] = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=a.source, capture_output=True,
            text=True).stdout.strip()
        files = a.files or runtime_files(self.tree)
        ok, output, build_s, _ = self.build_fencesim()
        if not ok:
            log("the unmutated tree does not build:\n" + output[-2000:])
            return 2
        log(f"unmutated fencesim built in {build_s:.0f}s")
        if "baseline" not in data:
            scenarios = self.scenarios()
            baseline = {}
            for scenario in scenarios:
                for seed, strategy in DIFF_RUNS:
                    r = self.run_one(scenario, seed, strategy)
                    if r["status"] == "pass":
                        baseline[f"{scenario}/{seed}/{strategy}"] = r["hash"]
                    else:
                        log(f"unmutated {scenario} seed {seed} {strategy}: {r['status']}: "
                            "left out of the differential run")
            killed, seconds = self.sweep()
            if killed:
                log(f"the unmutated runtime fails its sweep ({killed}): no mutant can be judged")
                return 2
            data["baseline"] = {"hashes": baseline, "scenarios": scenarios}
            self.save(data)
        baseline = data["baseline"]["hashes"]
        pairs = [tuple(k.split("/")[:1]) + (int(k.split("/")[1]), k.split("/")[2])
                 for k in baseline]
        ccdb = os.path.join(self.build, "compile_commands.json")
        # Generating takes a minute or two (libclang parses every file): kept per runtime/ content.
        cache = os.path.join(self.work, f"mutants-v2-{rhash}.json")  # v2: with hosts
        cached = json.load(open(cache)) if os.path.exists(cache) else {}
        if cached.get("files") == files:
            mutants = [generate.Mutant(**{k: v for k, v in m.items() if k != "id"})
                       for m in cached["mutants"]]
        else:
            mutants = generate.generate(self.tree, files, ccdb)
            with open(cache, "w") as f:
                json.dump({"files": files, "mutants": [m.to_json() for m in mutants]}, f)
        shard_i, shard_n = a.shard
        mutants = [m for i, m in enumerate(mutants) if i % shard_n == shard_i]
        if a.only:
            wanted = set(a.only.split(","))
            mutants = [m for m in mutants if m.id in wanted]
        todo = [m for m in mutants if m.id not in data["mutants"]]
        log(f"{len(mutants)} mutants in {len(files)} files (shard {shard_i}/{shard_n}), "
            f"{len(mutants) - len(todo)} already judged, {len(todo)} to go")
        if a.limit is not None:
            todo = todo[: a.limit]
        if a.schema and todo:
            todo = self.judge_schema(todo, baseline, pairs, data)
        for n, m in enumerate(todo, 1):
            if a.stop_at and datetime.datetime.utcnow().strftime("%H:%M") >= a.stop_at:
                log(f"--stop-at {a.stop_at}: stopping with {len(todo) - n + 1} mutants to go")
                break
            r = self.judge(m, baseline, pairs)
            if r["outcome"] != "build-timeout":
                data["mutants"][m.id] = r
            log(f"{n}/{len(todo)} {m.id}: {r['outcome']} {r.get('killed_by', {}).get('invariant', '')}"
                f" ({r['total_s']:.0f}s)")
            self.save(data)
        # Rebuild the unmutated binary, so the tree is left as it was copied.
        self.build_fencesim()
        return 0

    def judge(self, m, baseline, pairs):
        path = os.path.join(self.tree, m.file)
        original = open(path, "rb").read()
        record = m.to_json()
        record["diff"] = m.diff(original)
        started = time.monotonic()
        try:
            with open(path, "wb") as f:
                f.write(m.apply(original))
            ok, output, record["build_s"], record["warnings_lifted"] = self.build_fencesim()
            if not ok and output == "build timed out":
                # Not the mutant's fault (a loaded machine): left unjudged, so a rerun retries it.
                record.update(outcome="build-timeout")
                return record
            if not ok:
                errors = [l for l in output.splitlines() if " error: " in l][:3]
                record.update(outcome="stillborn", build_error="\n".join(errors)[:600])
                return record
            return self.verdict(record, baseline, pairs)
        finally:
            with open(path, "wb") as f:
                f.write(original)
            record["total_s"] = time.monotonic() - started


    def verdict(self, record, baseline, pairs, where=None):
        """The differential run, then the sweep: the outcome written into `record`."""
        killed, changed, record["diff_s"] = self.differential(baseline, pairs, where)
        record["changed"] = changed
        if killed:
            record.update(outcome="killed", stage="differential", killed_by=killed,
                          seconds=record["diff_s"])
            return record
        killed, record["sweep_s"] = self.sweep(where)
        if killed:
            record.update(outcome="killed", stage="sweep", killed_by=killed,
                          seconds=record["sweep_s"])
        elif changed:
            record.update(outcome="survived-changed")
        else:
            record.update(outcome="likely-equivalent")
        return record

    # -- schema mode --------------------------------------------------------------------------
    def judge_schema(self, todo, baseline, pairs, data):
        """Judges `todo` from one schema build (schema_build.py), --jobs at once; returns the
        mutants left for their own builds (their guards do not compile, or the schema binary
        does not give the baseline's histories with no guard on)."""
        build = schema_build.SchemaBuild(self, todo)
        build_s = build.make()
        if build_s is None:
            return todo
        try:
            # No guard on: the histories must be the unmutated binary's, or nothing is judged.
            plain = (build.binary, os.path.join(self.work, "schema", "plain"),
                     dict(os.environ, FENCESIM_MUTANT="0"))
            for scenario, seed, strategy in pairs:
                r = self.run_one(scenario, seed, strategy, plain)
                if r["hash"] != baseline[f"{scenario}/{seed}/{strategy}"]:
                    log(f"schema: with no guard on, {scenario} seed {seed} {strategy} gives "
                        f"another history ({r['status']}): every mutant built on its own")
                    return todo
            judged = build.in_schema()
            log(f"schema build of {len(judged)} mutants in {build_s:.0f}s "
                f"({len(build.out)} left for their own builds); no guard on: every history "
                f"the baseline's")
            lock = threading.Lock()
            slots = queue.Queue()
            for k in range(self.args.jobs):
                slots.put(os.path.join(self.work, "schema", f"worker-{k}"))

            def one(m):
                if self.args.stop_at and \
                        datetime.datetime.utcnow().strftime("%H:%M") >= self.args.stop_at:
                    return  # left for a rerun, like the one-build loop's
                scratch = slots.get()
                try:
                    started = time.monotonic()
                    record = m.to_json()
                    record["diff"] = m.diff(build.originals[m.file])
                    record.update(build_s=0.0, schema_build_s=round(build_s), schema=True,
                                  warnings_lifted=False)
                    env = dict(os.environ, FENCESIM_MUTANT=str(build.ids[m.id]))
                    self.verdict(record, baseline, pairs, (build.binary, scratch, env))
                    record["total_s"] = time.monotonic() - started
                    with lock:
                        data["mutants"][m.id] = record
                        self.save(data)
                        log(f"{len(data['mutants'])} {m.id}: {record['outcome']} "
                            f"{record.get('killed_by', {}).get('invariant', '')} "
                            f"({record['total_s']:.0f}s, schema)")
                finally:
                    slots.put(scratch)

            with concurrent.futures.ThreadPoolExecutor(self.args.jobs) as pool:
                for future in [pool.submit(one, m) for m in judged]:
                    future.result()
            return [m for m in todo if m.id in build.out]
        finally:
            build.restore()


def shard(text):
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError("--shard is I/N")
    if not 0 <= i < n:
        raise argparse.ArgumentTypeError("--shard I/N needs 0 <= I < N")
    return i, n


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(prog="tools/mutate.sh run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", default=root, help="the worktree to mutate (default: this one)")
    p.add_argument("--work", default="/tmp/mutscore", help="build tree and scratch folder")
    p.add_argument("--results", default="/tmp/mutscore/results.json")
    p.add_argument("--shard", type=shard, default=(0, 1), help="I/N: every Nth mutant from I")
    p.add_argument("--files", nargs="*",
                   help="files to mutate, in order (default all of runtime/, or with --harness "
                        "every .cpp of sim/ and properties/)")
    p.add_argument("--only", help="mutant ids, comma separated")
    p.add_argument("--limit", type=int, help="judge at most this many mutants")
    p.add_argument("--shuffle", type=int, metavar="SEED",
                   help="--harness: judge in an order drawn from SEED, so that a run cut short "
                        "(--stop-at, --limit) is a uniform sample of all the files' mutants")
    p.add_argument("--stop-at", help="HH:MM UTC: start no mutant after it")
    p.add_argument("--sweep-seconds", type=int, default=30)
    p.add_argument("--run-timeout", type=int, default=60)
    p.add_argument("--build-jobs", type=int, default=2)
    p.add_argument("--build-timeout", type=int, default=1800)
    p.add_argument("--schema", action="store_true",
                   help="judge the mutants from one schema build (all guarded, one on at a time) "
                        "instead of one build each; the rest are built one by one")
    p.add_argument("--jobs", type=int, default=1,
                   help="mutants of a schema build judged at once (each a --jobs 1 sweep)")
    p.add_argument("--harness", action="store_true",
                   help="mutate the harness (sim/, properties/; --files narrows) and judge each "
                        "mutant by the verdicts it changes, the folder's GoogleTest executable "
                        "and the sweep (tools/mutate/harness.py)")
    p.add_argument("--folders", default=None,
                   help="with --harness: the folders whose .cpp files are mutated, comma "
                        "separated (default sim,properties; also scenarios, reports, cli)")
    p.add_argument("--ctest-timeout", type=int, default=None,
                   help="--harness: seconds the folder's test executable may take (default 300, "
                        "cli_tests 1800: a mutant that makes a test loop is killed, not waited on)")
    args = p.parse_args(argv)
    args.source = os.path.abspath(args.source)

    # A terminated run still writes the mutated file back (judge's finally); a rerun would also
    # copy the source over it.
    def terminate(signum, frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, terminate)
    if args.harness:
        import harness  # noqa: E402 (it imports this module)
        return harness.HarnessJudge(args).main()
    return Judge(args).main()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
