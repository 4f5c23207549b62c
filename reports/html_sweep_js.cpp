// The sweep report's script: the failure groups first (one per distinct bug, new or known, the
// smallest example's replay command and timeline, its runs folded underneath), then the totals, a
// table per scenario (marks never reached highlighted, figures), and the drawn failures'
// timelines as on the run page. Written against the summary's documented shape, but every field may be missing.
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
  const claims = FS.arr(s.claims).map(FS.obj);
  if (claims.length) {
    host.appendChild(FS.table(["claim", "floor", "verdict", "what"], claims.map((c) => ({
      attrs: c.status === "missed" ? { class: "warn" } : {},
      cells: [FS.dash(c.kind) + " " + FS.dash(c.name), FS.dash(c.floor), FS.badge(c.status), FS.dash(c.message)] })),
      { class: "claims" }));
  }
  const figures = Object.entries(FS.obj(s.figures));
  if (figures.length) {
    host.appendChild(FS.table(["figure", "runs measured", "total", "max"], figures.map(([name, f]) =>
      [name, FS.obj(f).runs_measured, FS.obj(f).total, FS.obj(f).max])));
  }
};
// The failures' rows (every run that failed), as one table.
FS.failureRows = function (failures) {
  // The failure's own page is a link when its path is relative (beside this report).
  const link = (path) => (typeof path === "string" && !path.includes(":")
    ? FS.el("a", { href: path }, path) : FS.dash(path));
  return FS.table(["scenario", "strategy", "seed", "status", "invariant", "message",
    "replay", "faults (shrunk / original)", "files"], failures.map((f) => {
    f = FS.obj(f);
    const files = ["replay_file", "shrunk_replay_file", "html", "perfetto_file"].filter((k) => f[k])
      .map((k) => FS.el("div", { class: "mono" }, [k.replace("_file", "") + ": ",
        k === "html" ? link(f[k]) : FS.dash(f[k])]));
    return [f.scenario, f.strategy, f.seed, FS.badge(f.status), f.invariant, f.message,
      FS.el("code", {}, FS.dash(f.replay_command)), FS.dash(f.shrunk_faults) + " / " +
      FS.dash(f.original_faults), files.length ? FS.el("div", {}, files) : "-"];
  }));
};
// "1 fault, shrunk from 4", "3 faults, not shrunk", or "not shrunk" when no plan is on record.
FS.faults = (ex) => (!FS.isNum(ex.faults) ? "not shrunk"
  : ex.faults + (ex.faults === 1 ? " fault" : " faults") + (ex.shrunk === true
    ? ", shrunk from " + FS.dash(ex.original_faults) : ", not shrunk"));
FS.groupBadge = (g) => (g.known === true ? FS.el("span", { class: "badge known" }, "known")
  : FS.el("span", { class: "badge new" }, "new"));
// One distinct failure: its signature, where and how often, the smallest example with its replay
// command and timeline, and its runs folded underneath.
FS.sweepGroup = function (host, g, failures) {
  g = FS.obj(g);
  const ex = FS.obj(g.example);
  const first = FS.obj(g.first);
  const box = FS.el("section", { class: "group", id: "group-" + FS.str(g.id), "data-group": FS.str(g.id) });
  box.appendChild(FS.el("h3", {}, [FS.groupBadge(g), " ", FS.badge(g.status), " ",
    FS.el("span", { class: "mono signature" }, FS.dash(g.signature))]));
  const timeline = typeof ex.html === "string" && !ex.html.includes(":")
    ? FS.el("a", { href: ex.html, class: "timeline-link" }, ex.html) : FS.dash(ex.html);
  box.appendChild(FS.metaTable([["runs", g.count],
    ["scenarios", FS.arr(g.scenarios).map(FS.str).join(", ")],
    ["strategies", FS.arr(g.strategies).map(FS.str).join(", ")],
    ["first seed", FS.dash(first.seed) + " (" + FS.dash(first.scenario) + ", " + FS.dash(first.strategy) + ")"],
    [ex.shrunk === true ? "smallest example" : "example", FS.dash(ex.scenario) + " " +
      FS.dash(ex.strategy) + " seed " + FS.dash(ex.seed) + ": " + FS.faults(ex)],
    ["what failed", FS.dash(ex.message)],
    ["timeline", timeline]]));
  box.appendChild(FS.command(ex.replay_command));
  const rows = FS.arr(g.failures).filter((i) => FS.isNum(i) && i >= 0 && i < failures.length)
    .map((i) => failures[i]);
  const details = FS.el("details", { class: "group-runs" },
    FS.el("summary", {}, rows.length + " run" + (rows.length === 1 ? "" : "s") + " of this failure"));
  details.appendChild(FS.failureRows(rows));
  box.appendChild(details);
  host.appendChild(box);
};
FS.sweepFailures = function (host, summary) {
  const failures = FS.arr(summary.failures);
  const groups = FS.arr(summary.groups);
  if (failures.length === 0 && groups.length === 0) {
    host.appendChild(FS.el("p", { class: "big" }, "No failures: every run passed its invariants, " +
      "finished in its liveness budget and, where re-run, repeated its history hash."));
    return;
  }
  const fresh = groups.filter((g) => FS.obj(g).known !== true).length;
  const known = FS.obj(summary.known);
  host.appendChild(FS.el("p", { class: "big" }, groups.length + " distinct failure" +
    (groups.length === 1 ? "" : "s") + " in " + failures.length + " failed run" +
    (failures.length === 1 ? "" : "s") + ": " + fresh + " new, " + (groups.length - fresh) + " known"));
  host.appendChild(FS.el("p", { class: "muted" }, summary.known && typeof summary.known === "object"
    ? "New or known against " + FS.arr(known.sources).map(FS.str).join(", ") + " (" +
      FS.dash(known.signatures) + " known signatures)."
    : "No --known folder was given: every group counts as new."));
  if (groups.length) {
    host.appendChild(FS.table(["new / known", "signature", "runs", "scenarios", "first seed", "smallest"],
      groups.map((g) => {
        g = FS.obj(g);
        return [FS.groupBadge(g), FS.el("a", { href: "#group-" + FS.str(g.id), class: "mono" },
          FS.dash(g.signature)), g.count, FS.arr(g.scenarios).map(FS.str).join(", "),
          FS.dash(FS.obj(g.first).seed), FS.faults(FS.obj(g.example))];
      }), { class: "groups" }));
  }
  for (const g of groups) FS.sweepGroup(host, g, failures);
  // Failures no group names (a summary older than groups): listed as they are.
  const grouped = new Set();
  for (const g of groups) for (const i of FS.arr(FS.obj(g).failures)) grouped.add(i);
  const rest = failures.filter((f, i) => !grouped.has(i));
  if (rest.length) host.appendChild(FS.failureRows(rest));
};
// The claims the sweep did not prove (a declared mark under its floor, a fault kind that could act
// and never did): a sweep that missed one fails, because it did not test what it says.
FS.sweepClaims = function (host, summary) {
  const claims = FS.obj(summary.claims);
  const unproven = FS.arr(claims.unproven).map(FS.obj);
  const notJudged = FS.arr(claims.not_judged).map(FS.obj);
  host.appendChild(FS.el("p", { class: unproven.length ? "big bad" : "big" }, unproven.length
    ? unproven.length + " claim" + (unproven.length === 1 ? "" : "s") + " not proven: the sweep did not test what these scenarios are about"
    : "Every claim judged was proven (" + FS.dash(claims.met) + " met)."));
  const rows = unproven.concat(notJudged);
  if (rows.length) {
    host.appendChild(FS.table(["verdict", "scenario", "claim", "what"], rows.map((c) => [FS.badge(c.status),
      FS.dash(c.scenario), FS.dash(c.kind) + " " + FS.dash(c.name), FS.dash(c.message)]), { class: "unproven" }));
  }
};
FS.sweepPage = function () {
  const summary = FS.obj(FS.readJson("fs-summary"));
  const timelines = FS.arr(FS.readJson("fs-timelines"));
  const app = document.getElementById("app");
  const totals = FS.obj(summary.totals);
  const failed = FS.isNum(totals.failed) ? totals.failed : FS.arr(summary.failures).length;
  const missed = FS.isNum(FS.obj(summary.claims).missed) ? FS.obj(summary.claims).missed : 0;
  // A run that passed but replayed to another history is not counted in "failed": a night of
  // nondeterminism must not wear the green badge.
  const nondeterministic = FS.isNum(totals.nondeterministic) ? totals.nondeterministic : 0;
  app.appendChild(FS.el("h1", {}, ["fencesim sweep ",
    FS.badge(failed > 0 ? "violation" : nondeterministic > 0 ? "nondeterministic"
      : missed > 0 ? "unproven" : "pass")]));
  // A sweep stopped by a signal holds only what ran before it: said before anything else.
  if (summary.interrupted) {
    const stop = FS.obj(summary.interrupted);
    app.appendChild(FS.el("p", { class: "big bad interrupted" }, "Interrupted by " + FS.dash(stop.signal) +
      ": only the runs made before it are here. Seeds not run: " + FS.dash(stop.seeds_not_run_text) +
      ". Continue it with fencesim sweep --resume on this folder."));
  }
  // The distinct failures first: what a person reading last night's sweep wants before anything.
  FS.section(app, "Failures");
  FS.sweepFailures(app, summary);
  if (summary.claims) {
    FS.section(app, "Claims");
    FS.sweepClaims(app, summary);
  }
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
