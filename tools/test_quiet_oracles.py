#!/usr/bin/env python3
"""tools/quiet-oracles.py finds every reporting site, and silences exactly the one it is given.

Its own verdicts ("83 of 83 held") are only as good as its site matching: a pattern that stops
matching a form (a judge class's `out_`, a Violation built in place, a report helper, the
reference model's messages, a mark rule's reach) leaves those sites out of every run, and the
run still says "all held". So the finder runs over a fixture (tools/testdata/
quiet_oracles_fixture.cpp) whose sites are annotated, and must find exactly them; each site
silenced, the fixture is built and run (with the compiler of $FENCESIM_CXX, or c++) and must print
every report but that site's; and over properties/ itself, every place a violation is built, a
message returned or a mark reached must lie in a found site.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURE = os.path.join(HERE, "testdata", "quiet_oracles_fixture.cpp")

_spec = importlib.util.spec_from_file_location("quiet_oracles",
                                               os.path.join(HERE, "quiet-oracles.py"))
quiet = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(quiet)


def fixture_text():
    with open(FIXTURE) as f:
        return f.read()


def annotated_sites(text):
    """{line: (kind, labels)} from the fixture's `// site: KIND LABELS` comments: on the site's
    line, or alone on the line before it."""
    sites = {}
    for number, line in enumerate(text.splitlines(), start=1):
        note = re.search(r"// site: (push|differ|helper|reach) (\S+)", line)
        if not note:
            continue
        at = number + 1 if line.lstrip().startswith("//") else number
        labels = set() if note.group(2) == "-" else set(note.group(2).split(","))
        sites[at] = (note.group(1), labels)
    return sites


UNCHANGED = "unchanged"


def first_only_annotations(text):
    """{line: labels lost, None for `skipped`, or UNCHANGED} from the `first-only: LABELS` that
    follows a site's annotation."""
    stops = {}
    for number, line in enumerate(text.splitlines(), start=1):
        note = re.search(r"// site: \S+ \S+ first-only: (\S+)", line)
        if not note:
            continue
        at = number + 1 if line.lstrip().startswith("//") else number
        word = note.group(1)
        if word in ("skipped", UNCHANGED):
            stops[at] = None if word == "skipped" else UNCHANGED
        else:
            stops[at] = set() if word == "-" else set(word.split(","))
    return stops


def found_sites(text):
    return quiet.report_sites({"properties/fixture.cpp": text}, set())


class SiteFinder(unittest.TestCase):
    def test_it_finds_exactly_the_annotated_sites_with_their_kinds(self):
        text = fixture_text()
        expected = {line: kind for line, (kind, _) in annotated_sites(text).items()}
        self.assertEqual(len(expected), 24, "the fixture's annotations were read")
        found = {line: kind for _, _, line, kind in found_sites(text)}
        self.assertEqual(found, expected)

    def test_each_site_is_found_once(self):
        offsets = [offset for _, offset, _, _ in found_sites(fixture_text())]
        self.assertEqual(len(offsets), len(set(offsets)))

    def test_the_files_option_keeps_only_the_named_files(self):
        files = {"properties/a.cpp": fixture_text(), "properties/b.cpp": fixture_text()}
        kept = quiet.report_sites(files, {"b.cpp"})
        self.assertTrue(kept)
        self.assertEqual({path for path, _, _, _ in kept}, {"properties/b.cpp"})


def compiler():
    return os.environ.get("FENCESIM_CXX") or shutil.which("c++") or shutil.which("g++")


@unittest.skipIf(compiler() is None, "no C++ compiler")
class SilencedSite(unittest.TestCase):
    """Each site silenced, the fixture still builds with warnings as errors and reports all but
    that site's reports: a silencing that reached the wrong call, or broke an `if`'s `else`, or
    left the site reporting, prints another list."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="quiet-oracles-test-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def reports(self, text, name):
        source = os.path.join(self.scratch, name + ".cpp")
        binary = os.path.join(self.scratch, name)
        with open(source, "w") as f:
            f.write(text)
        build = subprocess.run([compiler(), "-std=c++20", "-Wall", "-Wextra", "-Werror", "-o",
                                binary, source], capture_output=True, text=True)
        self.assertEqual(build.returncode, 0, f"{name} does not build:\n{build.stderr[-3000:]}")
        run = subprocess.run([binary], capture_output=True, text=True, check=True)
        return run.stdout.split()

    def test_silencing_a_site_drops_exactly_its_reports(self):
        text = fixture_text()
        annotated = annotated_sites(text)
        every = self.reports(text, "whole")
        self.assertEqual(len(every), len(set(every)), "each report is printed once")
        labels = set().union(*(labels for _, labels in annotated.values()))
        self.assertEqual(set(every), labels, "the fixture's run makes every annotated report")
        for _, offset, line, kind in found_sites(text):
            with self.subTest(line=line, kind=kind):
                silenced = quiet.quiet_site(text, offset, kind)
                self.assertNotEqual(silenced, text)
                left = self.reports(silenced, f"line{line}")
                self.assertEqual(left, [r for r in every if r not in annotated[line][1]])

    def test_first_only_stops_the_function_right_after_the_push(self):
        """--first-only: each push site annotated with the reports its function then loses
        builds with warnings as errors and loses exactly those; a site annotated `skipped` (or
        not a push) is refused with a reason. An edit that returned before the push, or left the
        function running, or broke a bare `if`, prints another list."""
        text = fixture_text()
        stops = first_only_annotations(text)
        self.assertEqual(len(stops), 17, "the fixture's first-only annotations were read")
        every = self.reports(text, "whole")
        for _, offset, line, kind in found_sites(text):
            with self.subTest(line=line, kind=kind):
                edited, reason = quiet.first_only_site(text, offset, kind)
                if stops.get(line) == UNCHANGED:
                    continue  # test_a_push_that_runs_last_is_skipped_and_its_edit_is_a_no_op
                if stops.get(line) is None:
                    self.assertIsNone(edited, f"line {line} should be skipped")
                    self.assertTrue(reason)
                    continue
                self.assertIsNotNone(edited, f"line {line} skipped: {reason}")
                left = self.reports(edited, f"first{line}")
                self.assertEqual(left, [r for r in every if r not in stops[line]])


    def test_a_push_that_runs_last_is_skipped_and_its_edit_is_a_no_op(self):
        """--first-only skips a push already the last statement its function runs (the end of a
        helper, of an if/else-if chain closing it, of a bare block there): a `return;` after it
        changes nothing, and running the site would only list it FIRST-ONLY. Each such push is
        skipped with that reason, and the edit planted anyway must print every report: a skip of
        a push that is not last (in a loop, before a statement, in a switch) would lose one. The
        near misses (annotated with what they lose) are run, not skipped, by the test above."""
        text = fixture_text()
        stops = first_only_annotations(text)
        unchanged = [line for line, stop in stops.items() if stop == UNCHANGED]
        self.assertEqual(len(unchanged), 4, "the fixture's unchanged annotations were read")
        every = self.reports(text, "whole")
        for _, offset, line, kind in found_sites(text):
            if stops.get(line) != UNCHANGED:
                continue
            with self.subTest(line=line):
                edited, reason = quiet.first_only_site(text, offset, kind)
                self.assertIsNone(edited, f"line {line} should be skipped as last")
                self.assertIn("the last statement", reason)
                planted = quiet.first_only_edit(text, offset)
                self.assertNotEqual(planted, text)
                self.assertEqual(self.reports(planted, f"last{line}"), every)


class PropertiesTree(unittest.TestCase):
    """Over properties/ as it is: no place that builds a report lies outside every found site."""

    def setUp(self):
        self.files = quiet.sources()
        self.sites = quiet.report_sites(self.files, set())

    def statements(self, path, kinds):
        text = self.files[path]
        return [(offset, quiet.statement_end(text, offset))
                for site_path, offset, _, kind in self.sites
                if site_path == path and kind in kinds]

    def assert_within(self, pattern, kinds, what, only=None):
        seen = 0
        for path, text in self.files.items():
            if only and os.path.basename(path) != only:
                continue
            spans = self.statements(path, kinds)
            for m in re.finditer(pattern, text):
                seen += 1
                line = text.count("\n", 0, m.start()) + 1
                self.assertTrue(any(start <= m.start() < end for start, end in spans),
                                f"{path}:{line}: {what} outside every site quiet-oracles finds")
        self.assertGreater(seen, 0, f"no {what} in properties/: the pattern is stale")

    def test_every_violation_built_is_within_a_push_site(self):
        self.assert_within(r"\bviolation\(|\bViolation\{", {"push"}, "a violation built")

    def test_every_mark_reached_is_a_reach_site(self):
        self.assert_within(r"(?<![A-Za-z0-9_])reach\((?!\))", {"reach"}, "a mark reached",
                           only="mark_rules.cpp")

    def test_every_message_of_the_reference_model_is_a_differ_site(self):
        text = self.files["properties/reference_model.cpp"]
        optional_functions = list(quiet.MESSAGE_FUNCTION.finditer(text))
        self.assertGreaterEqual(len(optional_functions), 9, "handle and each operation's judge")
        spans = self.statements("properties/reference_model.cpp", {"differ"})
        for function in optional_functions:
            for m in re.finditer(r"\breturn\s+(?!std::nullopt|[a-z_]+\(call\))", function.group(1)):
                offset = function.start(1) + m.start()
                self.assertIn(offset, [start for start, _ in spans],
                              f"reference_model.cpp:{text.count(chr(10), 0, offset) + 1}")

    def test_first_only_finds_the_pushes_that_end_their_helpers(self):
        """Session 25 found eight pushes by hand that end their helpers (scope_key.cpp's
        scope_seen and pair_seen, belief.cpp's judge_belief, fence.cpp's judge_scoped, yield.cpp's
        judge_release and work_after_release); the mode must find at least those itself."""
        last = {(os.path.basename(path), line) for path, offset, line, kind in self.sites
                if kind == "push"
                and "the last statement" in (quiet.first_only_site(self.files[path], offset,
                                                                   kind)[1] or "")}
        functions = {"invariants_scope_key.cpp": 3, "invariants_belief.cpp": 1,
                     "invariants_fence.cpp": 2, "invariants_yield.cpp": 2}
        for name, count in functions.items():
            self.assertGreaterEqual(len([site for site in last if site[0] == name]), count,
                                    f"{name}: {sorted(last)}")

    def test_a_report_helper_called_in_several_places_makes_each_call_a_site(self):
        helpers = [(path, line) for path, _, line, kind in self.sites if kind == "helper"]
        self.assertGreaterEqual(len({path for path, _ in helpers}), 2, helpers)


if __name__ == "__main__":
    sys.exit(unittest.main())
