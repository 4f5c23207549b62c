// The sweep report's script: the totals, a table per scenario (marks never reached highlighted,
// figures), the failures with their replay commands, and each failure's timeline drawn as on the
// run page. Written against the summary's documented shape, but every field may be missing.
#include "reports/html_page.h"

namespace fencesim::reports::html {

std::string_view sweep_page_script() {
  return R"JS(
FS.sweepScenario = function (host, s) {
  s = FS.obj(s);
  host.appendChild(FS.el("h3", {}, [FS.dash(s.name), " ", FS.el("span", { class: "muted" }, FS.dash(s.description))]));
  const failures = FS.isNum(s.failures) ? s.failures : 0;
  host.appendChild(FS.table(["runs", "failures", "nondeterministic", "determinism re-runs",
    "seeds / s", "virtual s / wall s"], [{ attrs: failures > 0 ? { class: "warn" } : {},
    cells: [s.runs, s.failures, s.nondeterministic, s.determinism_reruns, FS.fixed(s.seeds_per_second, 1),
      FS.fixed(s.virtual_per_wall, 1)] }]));
  const never = new Set(FS.arr(s.marks_never_reached).map(FS.str));
  const marks = Object.entries(FS.obj(s.marks));
  for (const name of never) if (!marks.some(([m]) => m === name)) marks.push([name, 0]);
  if (marks.length) {
    host.appendChild(FS.table(["mark", "runs reaching it"], marks.map(([name, count]) => ({
      attrs: never.has(name) ? { class: "warn", title: "never reached: the danger was not exercised" } : {},
      cells: [never.has(name) ? FS.el("span", { class: "bad" }, name + " (never reached)") : name, count] }))));
  } else {
    host.appendChild(FS.el("p", { class: "muted" }, "no marks declared or reached"));
  }
  const figures = Object.entries(FS.obj(s.figures));
  if (figures.length) {
    host.appendChild(FS.table(["figure", "runs measured", "total", "max"], figures.map(([name, f]) =>
      [name, FS.obj(f).runs_measured, FS.obj(f).total, FS.obj(f).max])));
  }
};
FS.sweepFailures = function (host, failures) {
  if (failures.length === 0) {
    host.appendChild(FS.el("p", { class: "big" }, "No failures: every run passed its invariants, " +
      "finished in its liveness budget and, where re-run, repeated its history hash."));
    return;
  }
  host.appendChild(FS.table(["scenario", "strategy", "seed", "status", "invariant", "message",
    "replay", "faults (shrunk / original)", "files"], failures.map((f) => {
    f = FS.obj(f);
    // The failure's own page is a link when its path is relative (beside this report).
    const link = (path) => (typeof path === "string" && !path.includes(":")
      ? FS.el("a", { href: path }, path) : FS.dash(path));
    const files = ["replay_file", "shrunk_replay_file", "html", "perfetto_file"].filter((k) => f[k])
      .map((k) => FS.el("div", { class: "mono" }, [k.replace("_file", "") + ": ",
        k === "html" ? link(f[k]) : FS.dash(f[k])]));
    return [f.scenario, f.strategy, f.seed, FS.badge(f.status), f.invariant, f.message,
      FS.el("code", {}, FS.dash(f.replay_command)), FS.dash(f.shrunk_faults) + " / " +
      FS.dash(f.original_faults), files.length ? FS.el("div", {}, files) : "-"];
  })));
};
FS.sweepPage = function () {
  const summary = FS.obj(FS.readJson("fs-summary"));
  const timelines = FS.arr(FS.readJson("fs-timelines"));
  const app = document.getElementById("app");
  const totals = FS.obj(summary.totals);
  const failed = FS.isNum(totals.failed) ? totals.failed : FS.arr(summary.failures).length;
  app.appendChild(FS.el("h1", {}, ["fencesim sweep ", FS.badge(failed > 0 ? "violation" : "pass")]));
  app.appendChild(FS.metaTable([["runs", totals.runs], ["passed", totals.passed], ["failed", totals.failed],
    ["nondeterministic", totals.nondeterministic], ["harness errors", totals.harness_errors],
    ["wall time", FS.fixed(totals.wall_seconds, 1) + " s"], ["virtual time", FS.fixed(totals.virtual_seconds, 1) + " s"],
    ["seeds per second", FS.fixed(totals.seeds_per_second, 1)],
    ["budget", summary.budget ? FS.fixed(FS.obj(summary.budget).used_seconds, 1) + " s used of " +
      FS.fixed(FS.obj(summary.budget).requested_seconds, 1) + " s" : "-"],
    ["fencesim", summary.fencesim_version]]));
  const configuration = Object.entries(FS.obj(summary.configuration));
  if (configuration.length) {
    const details = FS.el("details", {}, FS.el("summary", {}, "Configuration"));
    details.appendChild(FS.metaTable(configuration));
    app.appendChild(details);
  }
  FS.section(app, "Failures");
  FS.sweepFailures(app, FS.arr(summary.failures));
  FS.section(app, "Scenarios");
  const scenarios = FS.arr(summary.scenarios);
  if (scenarios.length === 0) app.appendChild(FS.el("p", { class: "muted" }, "no scenarios in the summary"));
  for (const s of scenarios) FS.sweepScenario(app, s);
  if (timelines.length) FS.section(app, "Failure timelines");
  for (const t of timelines) {
    const box = FS.el("section", { class: "failure" });
    app.appendChild(box);
    FS.renderRun(box, t, { heading: "h3", collapseEvents: true });
  }
  if (FS.arr(summary.failures).length > timelines.length) {
    app.appendChild(FS.el("p", { class: "muted" }, (FS.arr(summary.failures).length - timelines.length) +
      " failures are not drawn here; each has its own page (the html file listed above)."));
  }
  // The summary's tables count as drawn even when no failure has a timeline.
  FS.noteRendered(app.querySelectorAll("table").length);
};
if (document.body.dataset.page === "sweep") FS.start(FS.sweepPage);
)JS";
}

}  // namespace fencesim::reports::html
