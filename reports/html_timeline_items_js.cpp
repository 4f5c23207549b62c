// The timeline's items, one drawing function per kind: the axis, phases, lanes, fault spans,
// belief bars, steps, writes sent, the store's epochs and checkpoints, the sinks' judgements,
// marks and violations. Each hands what it draws to `hit` with its tooltip and its events.
#include "reports/html_page.h"

namespace fencesim::reports::html {

std::string_view timeline_items_script() {
  return R"JS(
FS.drawAxis = function (g, view, x, plot, height, AXIS, LEFT) {
  const span = view.t1 - view.t0;
  const step = FS.niceStep(span);
  const digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / 1e9))));
  const axis = FS.svg("g", { class: "axis" });
  for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    axis.appendChild(FS.svg("line", { x1: x(t), x2: x(t), y1: AXIS - 4, y2: height,
      stroke: "#e9ecef" }));
    axis.appendChild(FS.svg("text", { x: x(t) + 2, y: AXIS - 8, text: (t / 1e9).toFixed(digits) + " s" }));
  }
  axis.appendChild(FS.svg("line", { x1: LEFT, x2: LEFT + plot, y1: AXIS - 4, y2: AXIS - 4,
    stroke: "#adb5bd" }));
  g.appendChild(axis);
};
FS.drawPhases = function (g, data, cx, shown, height, AXIS) {
  for (const p of FS.arr(data.phases)) {
    if (!shown(p.start_ns, p.end_ns)) continue;
    const quiet = p.name === "quiet";
    if (quiet) g.appendChild(FS.svg("rect", { x: cx(p.start_ns), y: AXIS - 4,
      width: Math.max(0, cx(p.end_ns) - cx(p.start_ns)), height: height - AXIS + 4, fill: "#f1f3f5" }));
    g.appendChild(FS.svg("text", { x: cx(p.start_ns) + 2, y: 10, class: "row-label",
      text: FS.dash(p.name) + " phase" }));
  }
};
FS.drawLane = function (g, lane, width, AXIS, LEFT) {
  g.appendChild(FS.svg("rect", { x: 0, y: AXIS + lane.top, width: width,
    height: lane.bottom - lane.top - 4, fill: lane.kind === "instance" ? "#fbfcfe" : "#f8fbf9",
    stroke: "#e9ecef" }));
  g.appendChild(FS.svg("text", { x: 6, y: AXIS + lane.top + 11, class: "lane-label",
    text: lane.name + " (" + lane.kind + ")" }));
  for (const row of lane.rows) {
    if (!row.label) continue;
    g.appendChild(FS.svg("text", { x: 14, y: AXIS + row.top + row.height / 2 + 4,
      class: "row-label", text: FS.clip(row.label, 32) }));
  }
};
FS.drawFaults = function (g, lane, cx, shown, AXIS, hit) {
  for (const f of lane.faults) {
    const start = f.start_ns, stop = FS.isNum(f.end_ns) ? f.end_ns : f.start_ns;
    if (!shown(start, stop)) continue;
    const colour = FS.FAULT_COLOUR[f.kind] || "#9c36b5";
    const y = AXIS + lane.top, h = lane.bottom - lane.top - 4;
    const tip = "fault: " + FS.dash(f.description) + "\nfrom " + FS.secs(start) + " to " +
      FS.secs(stop) + (f.peer ? "\npeer: " + f.peer : "") +
      (f.effect ? "\neffect: " + f.effect : "");
    const w = cx(stop) - cx(start);
    const shape = w < 2
      ? FS.svg("line", { x1: cx(start), x2: cx(start), y1: y, y2: y + h, stroke: colour,
        "stroke-width": 2, "stroke-dasharray": "4 2" })
      : FS.svg("rect", { x: cx(start), y: y, width: w, height: h, fill: colour,
        "fill-opacity": 0.13, stroke: colour, "stroke-opacity": 0.6 });
    g.appendChild(hit(shape, tip, [f.event, f.end_event]));
    g.appendChild(FS.svg("text", { x: cx(start) + 3, y: y + h - 3, text: FS.dash(f.kind),
      fill: colour, style: "fill:" + colour }));
    if (f.aim) FS.drawAim(g, f.aim, colour, y, h, cx, hit, f.event);
  }
  for (const m of lane.missed_aims || []) {
    if (!shown(m.t, m.t)) continue;
    const y = AXIS + lane.top, h = lane.bottom - lane.top - 4;
    g.appendChild(hit(FS.svg("line", { x1: cx(m.t), x2: cx(m.t), y1: y, y2: y + h,
      stroke: "#e03131", "stroke-width": 2, "stroke-dasharray": "2 2" }),
      "aimed fault not fired: " + FS.dash(m.description) + "\n" + m.missed, [m.event]));
  }
};
// The deadline an aimed fault was aimed at (and the one it lasted until): a dashed line with its
// name, so the fault's span reads against the moment it was meant for.
FS.drawAim = function (g, aim, colour, y, h, cx, hit, event) {
  const marks = [[aim.aim, aim.deadline_ns]];
  if (aim.until) marks.push([aim.until, aim.until_deadline_ns]);
  for (const [name, t] of marks) {
    g.appendChild(hit(FS.svg("line", { x1: cx(t), x2: cx(t), y1: y - 2, y2: y + h + 2,
      stroke: colour, "stroke-width": 1.5, "stroke-dasharray": "3 2" }),
      name + " of " + aim.lease + " at " + FS.secs(t), [event]));
    g.appendChild(FS.svg("text", { x: cx(t) + 2, y: y + 9, text: name, fill: colour,
      style: "fill:" + colour + ";font-size:9px" }));
  }
};
FS.drawRow = function (g, row, lane, cx, shown, AXIS, hit, id) {
  const y = AXIS + row.top, h = row.height;
  const draw = FS.ROW_DRAW[row.type];
  if (draw) draw(g, row, y, h, cx, shown, hit, id);
};
FS.label = function (g, x, y, text, limit) {
  if (limit < 24) return;
  const shown = text.length * 6 > limit ? FS.clip(text, Math.floor(limit / 6)) : text;
  g.appendChild(FS.svg("text", { x: x, y: y, text: shown, class: "on-bar" }));
};
FS.ROW_DRAW = {};
FS.ROW_DRAW.belief = function (g, row, y, h, cx, shown, hit, id) {
  for (const b of row.items) {
    if (!shown(b.taken_ns, b.ended_ns)) continue;
    const name = FS.dash(b.key) + " t" + FS.dash(b.token);
    const renewals = FS.arr(b.renewals);
    const tip = FS.dash(b.holder) + " believed it held " + name + "\ntaken at " + FS.secs(b.taken_ns) +
      "\nconfirmedUntil (latest, true time) " + FS.secs(b.confirmed_until_ns) +
      "\nstopped at " + FS.secs(b.ended_ns) + ": " + FS.dash(b.end_kind) +
      (b.end_detail ? " (" + b.end_detail + ")" : "") + "\nrenewals: " + renewals.length;
    const x0 = cx(b.taken_ns), x1 = cx(b.ended_ns);
    const group = FS.svg("g", {});
    group.appendChild(FS.svg("rect", { x: x0, y: y + 2, width: Math.max(1, x1 - x0), height: h - 4,
      fill: "url(#" + id + "-hatch)", stroke: "#3a6fd8", "stroke-width": 0.5 }));
    for (const c of FS.arr(b.confirmed)) {
      if (!Array.isArray(c) || !shown(c[0], c[1])) continue;
      group.appendChild(FS.svg("rect", { x: cx(c[0]), y: y + 2, width: Math.max(1, cx(c[1]) - cx(c[0])),
        height: h - 4, fill: "#3a6fd8" }));
    }
    for (const r of renewals) {
      if (!shown(r.t)) continue;
      group.appendChild(FS.svg("line", { x1: cx(r.t), x2: cx(r.t), y1: y + 1, y2: y + h - 1,
        stroke: r.refused ? "#e03131" : "#ffffff", "stroke-width": 1.5 }));
    }
    if (b.end_kind === "lost" || b.end_kind === "crashed") {
      group.appendChild(FS.svg("text", { x: x1 - 3, y: y + h - 5, text: "×",
        style: "fill:#c92a2a;font-weight:700" }));
    }
    g.appendChild(hit(group, tip, [b.event, b.end_event]));
    FS.label(g, x0 + 3, y + h - 5, name, x1 - x0 - 6);
  }
};
FS.ROW_DRAW.step = function (g, row, y, h, cx, shown, hit) {
  for (const s of row.items) {
    if (!shown(s.started_ns, s.ended_ns)) continue;
    const ok = s.outcome === "ok";
    const fill = ok ? "#b2c8b8" : s.outcome === "unfinished" || s.outcome === "crashed" ? "#dee2e6" : "#ffa94d";
    const x0 = cx(s.started_ns), x1 = cx(s.ended_ns);
    const tip = "step " + FS.dash(s.step) + " of " + FS.dash(s.key) + " t" + FS.dash(s.token) +
      " at " + FS.dash(s.holder) + "\n" + FS.secs(s.started_ns) + " to " + FS.secs(s.ended_ns) +
      "\noutcome: " + FS.dash(s.outcome);
    g.appendChild(hit(FS.svg("rect", { x: x0, y: y + 1, width: Math.max(1, x1 - x0), height: h - 2,
      fill: fill, stroke: "#868e96", "stroke-width": 0.5 }), tip, [s.event, s.end_event]));
    FS.label(g, x0 + 2, y + h - 2, FS.dash(s.step), x1 - x0 - 4);
  }
};
FS.marker = function (shape, x, y, r, fill) {
  if (shape === "down") {
    return FS.svg("path", { d: "M" + (x - r) + "," + (y - r) + "L" + (x + r) + "," + (y - r) + "L" + x +
      "," + (y + r) + "Z", fill: fill, stroke: "#0006", "stroke-width": 0.5 });
  }
  if (shape === "square") return FS.svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: fill });
  return FS.svg("circle", { cx: x, cy: y, r: r, fill: fill, stroke: "#0006", "stroke-width": 0.5 });
};
FS.ROW_DRAW.attempts = function (g, row, y, h, cx, shown, hit) {
  let lastLabel = -Infinity;
  for (const a of row.items) {
    if (!shown(a.t)) continue;
    const colour = FS.OUTCOME_COLOUR[a.reply] || "#2f9b6a";
    const tip = FS.dash(a.holder) + " sent a write with token " + FS.dash(a.token) + " at " + FS.secs(a.t) +
      "\nkey " + FS.dash(a.key) + ", step " + FS.dash(a.step) + "\nidempotency key " +
      FS.dash(a.idempotency_key) + "\nreply: " + FS.dash(a.reply) +
      (FS.isNum(a.reply_ns) ? " at " + FS.secs(a.reply_ns) : "");
    g.appendChild(hit(FS.marker("down", cx(a.t), y + h / 2, 5, colour), tip, [a.event, a.reply_event]));
    if (cx(a.t) - lastLabel > 26) {
      g.appendChild(FS.svg("text", { x: cx(a.t) + 6, y: y + h / 2 + 4, text: "t" + FS.dash(a.token) }));
      lastLabel = cx(a.t);
    }
  }
};
FS.ROW_DRAW.key = function (g, row, y, h, cx, shown, hit) {
  for (const item of row.items) {
    if (FS.isNum(item.granted_ns)) {
      if (!shown(item.granted_ns, item.ended_ns)) continue;
      const x0 = cx(item.granted_ns), x1 = cx(item.ended_ns);
      const name = "t" + FS.dash(item.token) + " " + FS.dash(item.holder);
      const tip = "store: epoch " + FS.dash(item.token) + " of " + FS.dash(item.key) + " held by " +
        FS.dash(item.holder) + "\ngranted at " + FS.secs(item.granted_ns) + "\nstore expiry (latest) " +
        FS.secs(item.valid_until_ns) + "\nended at " + FS.secs(item.ended_ns) + ": " +
        FS.dash(item.end_kind) + "\nrenewals: " + FS.arr(item.renewals).length;
      const group = FS.svg("g", {}, FS.svg("rect", { x: x0, y: y + 3, width: Math.max(1, x1 - x0),
        height: h - 6, fill: FS.tokenColour(item.token), "fill-opacity": 0.75 }));
      for (const r of FS.arr(item.renewals)) {
        if (shown(r.t)) group.appendChild(FS.svg("line", { x1: cx(r.t), x2: cx(r.t), y1: y + 3,
          y2: y + h - 3, stroke: r.refused ? "#e03131" : "#fff", "stroke-width": 1.5 }));
      }
      g.appendChild(hit(group, tip, [item.event, item.end_event]));
      FS.label(g, x0 + 3, y + h - 6, name, x1 - x0 - 6);
    } else if (shown(item.t)) {
      const tip = "store: checkpoint " + FS.dash(item.step) + " of " + FS.dash(item.key) + " with token " +
        FS.dash(item.token) + " " + FS.dash(item.outcome) + " (epoch " + FS.dash(item.epoch) + ") at " +
        FS.secs(item.t);
      g.appendChild(hit(FS.marker("square", cx(item.t), y + h - 4, 2.5,
        item.outcome === "committed" ? "#2b8a3e" : "#e03131"), tip, [item.event]));
    }
  }
};
FS.ROW_DRAW.scope = function (g, row, y, h, cx, shown, hit) {
  let lastLabel = -Infinity;
  for (const w of row.items) {
    if (!shown(w.t)) continue;
    const colour = FS.OUTCOME_COLOUR[w.outcome] || "#868e96";
    const tip = "sink " + FS.dash(w.sink) + " " + FS.dash(w.outcome) + " a write with token " +
      FS.dash(w.token) + " at " + FS.secs(w.t) + "\nscope key " + FS.dash(w.scope_key) +
      "\nhigh-water token " + FS.dash(w.high_water) + "\nidempotency key " + FS.dash(w.idempotency_key);
    g.appendChild(hit(FS.marker(w.outcome === "refused" ? "square" : "circle", cx(w.t), y + h / 2, 5,
      colour), tip, [w.event]));
    if (cx(w.t) - lastLabel > 26) {
      g.appendChild(FS.svg("text", { x: cx(w.t) + 7, y: y + h / 2 + 4, text: "t" + FS.dash(w.token) }));
      lastLabel = cx(w.t);
    }
  }
};
FS.drawMarks = function (g, lane, x, shown, AXIS, hit) {
  for (const m of lane.marks) {
    if (!shown(m.t)) continue;
    const px = x(m.t), py = AXIS + lane.top + 7;
    g.appendChild(hit(FS.svg("path", { d: "M" + px + "," + (py - 5) + "L" + (px + 5) + "," + py + "L" + px +
      "," + (py + 5) + "L" + (px - 5) + "," + py + "Z", fill: "#f08c00" }),
      "mark: " + FS.dash(m.name) + " at " + FS.secs(m.t), [m.event]));
  }
};
// Where an event is drawn: the row of the item that came from it, else the middle of its lane.
FS.eventY = function (layout, ref, AXIS) {
  const lane = layout.laneIndex.get(ref.node);
  if (!lane) return AXIS + 6;
  for (const row of lane.rows) {
    for (const item of row.items) {
      if (item.event === ref.event || item.end_event === ref.event || item.reply_event === ref.event) {
        return AXIS + row.top + row.height / 2;
      }
    }
  }
  return AXIS + (lane.top + lane.bottom) / 2;
};
FS.drawViolations = function (g, violations, layout, x, shown, height, AXIS, hit) {
  for (const v of violations) {
    if (!shown(v.at_ns)) continue;
    const tip = "VIOLATION of " + FS.dash(v.invariant) + "\n" + FS.dash(v.message);
    const refs = FS.arr(v.refs);
    g.appendChild(hit(FS.svg("line", { x1: x(v.at_ns), x2: x(v.at_ns), y1: AXIS - 14, y2: height,
      stroke: "#e03131", "stroke-width": 2 }), tip, refs.map((r) => r.event)));
    g.appendChild(FS.svg("text", { x: x(v.at_ns) + 4, y: AXIS - 16, text: "✖ " + FS.dash(v.invariant),
      style: "fill:#e03131;font-weight:700" }));
    for (const r of refs) {
      if (!shown(r.t)) continue;
      g.appendChild(hit(FS.svg("circle", { cx: x(r.t), cy: FS.eventY(layout, r, AXIS), r: 9, fill: "none",
        stroke: "#e03131", "stroke-width": 2.5 }), tip + "\nevent #" + FS.dash(r.event), [r.event]));
    }
  }
};
)JS";
}

}  // namespace fencesim::reports::html
