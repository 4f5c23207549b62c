// The timeline's layout: one lane per node, and in each lane the rows its items need. Instances
// get rows of leases they believed held (packed so overlapping leases get their own rows), rows of
// steps, and a row of the writes they sent; the lease store gets one row per lease key (its
// epochs, renewals and checkpoint judgements); each sink one row per scope key (the writes it
// judged). Computed once per timeline; zooming only redraws.
#include "reports/html_page.h"

namespace fencesim::reports::html {

std::string_view timeline_layout_script() {
  return R"JS(
FS.ROW = { belief: 18, step: 12, attempts: 18, key: 20, scope: 18, marks: 14 };
FS.layoutTimeline = function (data) {
  const lanes = [];
  const byNode = new Map();
  const laneOf = function (id) {
    let lane = byNode.get(id);
    if (!lane) {
      lane = { node: id, name: "node " + FS.dash(id), kind: "-", rows: [], faults: [], missed_aims: [], marks: [],
        families: new Map() };
      byNode.set(id, lane);
      lanes.push(lane);
    }
    return lane;
  };
  for (const node of FS.arr(data.nodes)) {
    if (!node || node.kind === "world") continue;
    const lane = laneOf(node.id);
    lane.name = FS.dash(node.name);
    lane.kind = FS.dash(node.kind);
  }
  // Rows of `family` in a lane, packed: an item goes to the first row free at its start.
  const pack = function (lane, family, label, item, start, end) {
    let rows = lane.families.get(family);
    if (!rows) { rows = []; lane.families.set(family, rows); }
    let row = rows.find((r) => r.free <= start);
    if (!row) {
      row = { type: family, label: rows.length === 0 ? label : "", items: [], free: -Infinity };
      rows.push(row);
    }
    row.items.push(item);
    row.free = Math.max(end, start);
  };
  // One row per name (a key, a scope key) in a lane, in order of first appearance.
  const named = function (lane, family, name, item) {
    const id = family + "\u0000" + name;
    let row = lane.families.get(id);
    if (!row) { row = [{ type: family, label: name, items: [] }]; lane.families.set(id, row); }
    row[0].items.push(item);
  };
  const byStart = (field) => (a, b) => (FS.isNum(a[field]) ? a[field] : 0) -
    (FS.isNum(b[field]) ? b[field] : 0);
  const beliefs = FS.arr(data.beliefs).slice().sort(byStart("taken_ns"));
  for (const b of beliefs) pack(laneOf(b.node), "belief", "leases held (belief)", b, b.taken_ns, b.ended_ns);
  const steps = FS.arr(data.step_runs).slice().sort(byStart("started_ns"));
  for (const s of steps) pack(laneOf(s.node), "step", "steps", s, s.started_ns, s.ended_ns);
  for (const a of FS.arr(data.attempts)) named(laneOf(a.node), "attempts", "writes sent", a);
  for (const e of FS.arr(data.epochs)) named(laneOf(e.node), "key", "key " + FS.dash(e.key), e);
  for (const c of FS.arr(data.checkpoints)) named(laneOf(c.node), "key", "key " + FS.dash(c.key), c);
  for (const w of FS.arr(data.writes)) named(laneOf(w.node), "scope", "scope " + FS.dash(w.scope_key), w);
  for (const f of FS.arr(data.faults)) laneOf(f.node).faults.push(f);
  for (const m of FS.arr(data.missed_aims)) laneOf(m.node).missed_aims.push(m);
  for (const m of FS.arr(data.marks)) laneOf(m.node).marks.push(m);
  for (const v of FS.arr(data.violations)) for (const r of FS.arr(v.refs)) laneOf(r.node);
  let y = 0;
  for (const lane of lanes) {
    lane.top = y;
    y += FS.ROW.marks;  // the lane's title and its marks
    for (const rows of lane.families.values()) {
      for (const row of rows) {
        row.top = y;
        row.height = FS.ROW[row.type] || 16;
        y += row.height;
        lane.rows.push(row);
      }
    }
    if (lane.rows.length === 0) y += 12;
    y += 8;
    lane.bottom = y;
  }
  const laneIndex = new Map(lanes.map((lane) => [lane.node, lane]));
  return { lanes, laneIndex, height: y };
};
// Every event of the data by history index, for details on click.
FS.eventIndex = function (data) {
  const index = new Map();
  for (const e of FS.arr(data.events)) if (e && FS.isNum(e.i)) index.set(e.i, e);
  return index;
};
FS.describeEvent = function (e, nodes) {
  if (!e) return "";
  const node = FS.arr(nodes).find((n) => n && n.id === e.node);
  const parts = ["#" + e.i, FS.secs(e.t), node ? node.name : "node " + FS.dash(e.node), FS.dash(e.kind)];
  for (const field of ["holder", "key", "scope_key", "token", "step", "detail", "value"]) {
    if (e[field] !== undefined && e[field] !== "") parts.push(field + "=" + FS.dash(e[field]));
  }
  return parts.join(" ");
};
// A stable colour per token, so a key's epochs alternate visibly.
FS.tokenColour = function (token) {
  const hues = [212, 150, 32, 280, 350, 190, 95, 320];
  const hue = hues[(FS.isNum(token) ? token : 0) % hues.length];
  return "hsl(" + hue + ", 55%, 52%)";
};
FS.OUTCOME_COLOUR = { applied: "#2f9b6a", accepted: "#2f9b6a", deduplicated: "#7a5af5",
  refused: "#d9480f", none: "#868e96", committed: "#2b8a3e" };
FS.FAULT_COLOUR = { stall: "#9c36b5", stop: "#9c36b5", migrate: "#862e9c", crash: "#c92a2a",
  "clock-drift": "#e67700", "clock-step": "#e67700", "network-delay": "#1098ad",
  "network-drop": "#1098ad", "network-duplicate": "#1098ad", partition: "#0b7285",
  "store-slow": "#a0522d", "store-down": "#a0522d" };
)JS";
}

}  // namespace fencesim::reports::html
