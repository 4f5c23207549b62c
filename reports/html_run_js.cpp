// The run report's script: what ran and how it ended, the replay command, the violations, the
// timeline, the plans (as run and as shrunk), the marks and figures, and the event table. The
// sweep report draws each failure's timeline with the same renderRun.
#include "reports/html_page.h"

namespace fencesim::reports::html {

std::string_view run_page_script() {
  return R"JS(
FS.EXPLAIN = "Each lane is a node. In an instance's lane, blue bars are the leases its holder " +
  "BELIEVED it held (solid while confirmed, until the confirmedUntil it computed; hatched where it " +
  "still held the lease past that, e.g. while paused), with white ticks at renewals, then its steps " +
  "and the writes it sent (triangles, coloured by the reply). The lease store's lane is the TRUTH: " +
  "one row per lease key with the epochs it granted (one colour per token) and its checkpoint " +
  "judgements; each sink's lane shows the writes it applied (green), deduplicated (violet) or " +
  "refused (orange squares), per scope key. Shaded spans are faults; orange diamonds are marks; " +
  "a red line and red rings mark a violation and the events it points at.";
FS.eventTable = function (data, host) {
  const rows = FS.arr(data.events);
  const nodes = FS.arr(data.nodes);
  const nodeName = (id) => { const n = nodes.find((m) => m && m.id === id); return n ? n.name : "node " + id; };
  const flagged = new Set();
  for (const v of FS.arr(data.violations)) for (const i of FS.arr(v.events)) flagged.add(i);
  const state = { node: "", text: "", onlyFlagged: false, limit: 400, highlight: new Set() };
  const select = FS.el("select", { onchange: (e) => { state.node = e.target.value; render(); } },
    [FS.el("option", { value: "" }, "all nodes")].concat(nodes.map((n) =>
      FS.el("option", { value: String(n.id) }, FS.dash(n.name)))));
  const text = FS.el("input", { type: "search", placeholder: "filter: kind, holder, key, detail…",
    size: 40, oninput: (e) => { state.text = e.target.value.toLowerCase(); render(); } });
  const only = FS.el("input", { type: "checkbox",
    onchange: (e) => { state.onlyFlagged = e.target.checked; render(); } });
  const info = FS.el("span", { class: "muted" });
  const more = FS.el("button", { text: "show more", onclick: () => { state.limit += 2000; render(); } });
  const body = FS.el("tbody");
  const table = FS.el("table", { class: "events" }, [FS.el("thead", {}, FS.el("tr", {},
    ["#", "time", "node", "kind", "holder", "key / scope key", "token", "step", "detail", "value"]
      .map((h) => FS.el("th", {}, h)))), body]);
  const scroll = FS.el("div", { class: "scroll" }, table);
  host.appendChild(FS.el("div", { class: "filters" }, ["node ", select, text,
    FS.el("label", {}, [only, " only events a violation points at"]), info]));
  host.appendChild(scroll);
  host.appendChild(more);
  if (FS.isNum(data.events_omitted) && data.events_omitted > 0) {
    host.appendChild(FS.el("p", { class: "muted" }, data.events_omitted +
      " events of a long history are left out of this table (the timeline draws them all)."));
  }
  const matches = (e) => (state.node === "" || String(e.node) === state.node) &&
    (!state.onlyFlagged || flagged.has(e.i)) &&
    (state.text === "" || JSON.stringify(e).toLowerCase().includes(state.text) ||
      nodeName(e.node).toLowerCase().includes(state.text));
  function render() {
    const shown = rows.filter((e) => e && matches(e));
    body.replaceChildren(...shown.slice(0, state.limit).map((e) => {
      const cls = state.highlight.has(e.i) ? "hl" : flagged.has(e.i) ? "vio" : "";
      return FS.el("tr", { class: cls, "data-event": e.i }, [e.i, FS.secs(e.t), nodeName(e.node),
        e.kind, e.holder, e.key || e.scope_key ? [e.key, e.scope_key].filter(Boolean).join(" / ") : "",
        e.token, e.step, e.detail, e.value].map((c) => FS.el("td", {}, FS.dash(c))));
    }));
    info.textContent = Math.min(shown.length, state.limit) + " of " + shown.length + " matching events shown";
    more.hidden = shown.length <= state.limit;
  }
  render();
  return {
    focus(indices) {
      state.highlight = new Set(FS.arr(indices));
      if (state.highlight.size === 0) return;
      const first = Math.min(...state.highlight);
      const position = rows.findIndex((e) => e && e.i === first);
      state.node = ""; state.text = ""; state.onlyFlagged = false;
      select.value = ""; text.value = ""; only.checked = false;
      if (position >= state.limit) state.limit = position + 200;
      render();
      const row = body.querySelector('tr[data-event="' + first + '"]');
      if (row) scroll.scrollTop = row.offsetTop - scroll.clientHeight / 2;
    },
  };
};
FS.section = (host, title) => { host.appendChild(FS.el("h2", {}, title)); };
FS.renderRun = function (host, data, options) {
  options = options || {};
  data = FS.obj(data);
  const heading = options.heading || "h1";
  host.appendChild(FS.el(heading, {}, ["fencesim " + FS.dash(data.scenario) + " seed " +
    FS.dash(data.seed_text || data.seed) + " ", FS.badge(data.status)]));
  host.appendChild(FS.metaTable([["scenario", data.scenario], ["seed", data.seed_text || data.seed],
    ["strategy", data.strategy], ["sink double", data.sink_double || "none"], ["status", data.status],
    ["detail", data.detail], ["history hash", data.history_hash], ["events", data.events_total],
    ["virtual time", FS.secs(data.virtual_ns)], ["scheduler steps", data.steps],
    ["within the protocol's assumptions", data.within_assumptions === undefined ? "-"
      : data.within_assumptions ? "yes" : "no (belief and liveness are not judged)"],
    ["fencesim", data.fencesim_version]]));
  host.appendChild(FS.el("h3", {}, "Replay"));
  host.appendChild(FS.command(data.replay_command));
  host.appendChild(FS.el("h3", {}, "Violations"));
  const violations = FS.arr(data.violations);
  const list = FS.el("div");
  host.appendChild(list);
  if (violations.length === 0) list.appendChild(FS.el("p", { class: "muted" }, "No invariant was violated."));
  host.appendChild(FS.el("h3", {}, "Timeline: what each holder believed against the truth"));
  host.appendChild(FS.el("p", { class: "muted" }, FS.EXPLAIN));
  const timelineHost = FS.el("div");
  host.appendChild(timelineHost);
  let table = null;
  const timeline = FS.drawTimeline(timelineHost, data, { onSelect: (refs) => table && table.focus(refs) });
  FS.noteRendered(timeline.count);
  // A link to "page.html#violation" opens the page zoomed in on the first violation.
  if (!options.heading && window.location.hash === "#violation") {
    const first = violations.find((v) => FS.isNum(FS.obj(v).at_ns));
    if (first) timeline.toViolation(first);
  }
  for (const v of violations) {
    list.appendChild(FS.el("div", { class: "violation-item", title: "show it on the timeline",
      onclick: () => { if (FS.isNum(v.at_ns)) timeline.toViolation(v); if (table) table.focus(v.events); } },
    [FS.el("strong", {}, FS.dash(v.invariant)), ": " + FS.dash(v.message) + "  (events " +
      FS.arr(v.events).map((i) => "#" + i).join(", ") + (FS.isNum(v.at_ns) ? ", at " + FS.secs(v.at_ns) : "") +
      ")"]));
  }
  host.appendChild(FS.el("h3", {}, "Fault plan that ran"));
  host.appendChild(FS.planList(data.plan));
  if (data.shrunk_plan !== undefined && data.shrunk_plan !== null) {
    host.appendChild(FS.el("h3", {}, "Shrunk fault plan"));
    host.appendChild(FS.planList(data.shrunk_plan, "no faults left: the failure needs none"));
    const removed = FS.arr(data.shrink_removed);
    host.appendChild(FS.el("p", {}, "Removed or reduced by shrinking:"));
    host.appendChild(removed.length ? FS.el("ol", {}, removed.map((r) => FS.el("li", { class: "mono removed" }, FS.dash(r))))
      : FS.el("p", { class: "muted" }, "nothing"));
  }
  host.appendChild(FS.el("h3", {}, "Marks reached"));
  const marks = Object.entries(FS.obj(data.marks_count));
  host.appendChild(marks.length ? FS.table(["mark", "count"], marks)
    : FS.el("p", { class: "muted" }, "no mark was reached"));
  const figures = Object.entries(FS.obj(data.figures));
  if (figures.length) {
    host.appendChild(FS.el("h3", {}, "Figures measured"));
    host.appendChild(FS.table(["figure", "total"], figures));
  }
  const events = FS.el("details", options.collapseEvents ? {} : { open: "open" },
    FS.el("summary", {}, "Events (" + FS.arr(data.events).length + ")"));
  host.appendChild(events);
  table = FS.eventTable(data, events);
  return timeline;
};
if (document.body.dataset.page === "run") {
  FS.start(() => FS.renderRun(document.getElementById("app"), FS.readJson("fs-timeline")));
}
)JS";
}

}  // namespace fencesim::reports::html
