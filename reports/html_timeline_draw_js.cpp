// The timeline's drawing (SVG): per node lane, belief bars (solid while confirmed, hatched while
// held past confirmedUntil) against the truth (epochs per key at the store, writes judged at each
// sink, coloured by outcome), faults shaded, marks, and each violation as a red line with its
// events ringed. Hover shows an item's details, click pins them, dragging across the plot zooms.
#include "reports/html_page.h"

namespace fencesim::reports::html {

std::string_view timeline_draw_script() {
  return R"JS(
FS.timelineCount = 0;
FS.niceStep = function (span) {
  const raw = span / 10;
  const power = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
};
FS.drawTimeline = function (host, data, options) {
  options = options || {};
  data = FS.obj(data);
  const id = "tl" + (++FS.timelineCount);
  const layout = FS.layoutTimeline(data);
  const events = FS.eventIndex(data);
  let end = FS.isNum(data.end_ns) ? data.end_ns : 0;
  for (const e of events.values()) if (FS.isNum(e.t) && e.t > end) end = e.t;
  if (end <= 0) end = 1e9;
  const view = { t0: 0, t1: end };
  const LEFT = 200, RIGHT = 16, AXIS = 30;
  const svgHost = FS.el("div", { class: "tl-svg-host" });
  const details = FS.el("div", { class: "tl-details" },
    "Hover over a bar or marker for its details; click to pin them. Drag across the plot to zoom.");
  const tip = FS.el("div", { class: "tl-tip" });
  const range = FS.el("span", { class: "tl-range" });
  const violations = FS.arr(data.violations).filter((v) => FS.isNum(FS.obj(v).at_ns));
  const zoomTo = function (t0, t1) {
    const span = Math.max(t1 - t0, 1000);
    view.t0 = Math.max(0, t0);
    view.t1 = Math.min(end, view.t0 + span);
    if (view.t1 - view.t0 < span) view.t0 = Math.max(0, view.t1 - span);
    draw();
  };
  const zoomBy = function (factor) {
    const middle = (view.t0 + view.t1) / 2;
    const half = (view.t1 - view.t0) * factor / 2;
    zoomTo(middle - half, middle + half);
  };
  const toViolation = function (v) {
    const times = FS.arr(v.refs).map((r) => r.t).filter(FS.isNum);
    if (times.length === 0) times.push(v.at_ns);
    const lo = Math.min(...times), hi = Math.max(...times);
    const pad = Math.max((hi - lo) * 0.3, 2e9);
    zoomTo(lo - pad, hi + pad);
  };
  const bar = FS.el("div", { class: "tl-bar" }, [
    FS.el("button", { text: "zoom in", onclick: () => zoomBy(0.5) }),
    FS.el("button", { text: "zoom out", onclick: () => zoomBy(2) }),
    FS.el("button", { text: "whole run", onclick: () => zoomTo(0, end) }),
    violations.length ? FS.el("button", { text: "go to the violation",
      onclick: () => toViolation(violations[0]) }) : null,
    range]);
  const legendItem = (colour, text) => FS.el("span", { style: "--c:" + colour }, text);
  const legend = FS.el("div", { class: "legend" }, [
    legendItem("#3a6fd8", "lease believed held, confirmed (until confirmedUntil)"),
    legendItem("#c9d8f6", "held past confirmedUntil (hatched)"),
    legendItem(FS.tokenColour(1), "epoch at the store (colour per token)"),
    legendItem(FS.OUTCOME_COLOUR.applied, "write applied"),
    legendItem(FS.OUTCOME_COLOUR.deduplicated, "deduplicated"),
    legendItem(FS.OUTCOME_COLOUR.refused, "refused"), legendItem(FS.OUTCOME_COLOUR.none, "no reply"),
    legendItem("#9c36b5", "fault span"), legendItem("#e03131", "violation")]);
  const root = FS.el("div", { class: "tl", id: id }, [bar, legend, svgHost, details]);
  host.appendChild(root);
  document.body.appendChild(tip);
  let selected = null;
  let count = 0;

  function draw() {
    const width = Math.max(760, svgHost.clientWidth || host.clientWidth || 1200);
    const plot = width - LEFT - RIGHT;
    const height = AXIS + layout.height + 8;
    const span = view.t1 - view.t0;
    const x = (t) => LEFT + (t - view.t0) / span * plot;
    const cx = (t) => Math.max(LEFT, Math.min(LEFT + plot, x(t)));
    const shown = (a, b) => FS.isNum(a) && (FS.isNum(b) ? b : a) >= view.t0 && a <= view.t1;
    const svg = FS.svg("svg", { width: width, height: height });
    const layers = ["back", "faults", "items", "top"].map((name) => FS.svg("g", { class: name }));
    for (const layer of layers) svg.appendChild(layer);
    const [back, faults, items, top] = layers;
    count = 0;
    const hit = function (el, text, refs) {
      el.classList.add("hit");
      el.__fsTip = text;
      el.__fsEvents = refs.filter(FS.isNum);
      count++;
      return el;
    };
    const defs = FS.svg("defs", {}, FS.svg("pattern", { id: id + "-hatch", width: 6, height: 6,
      patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, [
      FS.svg("rect", { width: 6, height: 6, fill: "#dde6f8" }),
      FS.svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#3a6fd8", "stroke-width": 2 })]));
    svg.appendChild(defs);
    FS.drawAxis(back, view, x, plot, height, AXIS, LEFT);
    FS.drawPhases(back, data, cx, shown, height, AXIS);
    for (const lane of layout.lanes) {
      FS.drawLane(back, lane, width, AXIS, LEFT);
      FS.drawFaults(faults, lane, cx, shown, AXIS, hit);
      for (const row of lane.rows) FS.drawRow(items, row, lane, cx, shown, AXIS, hit, id);
      FS.drawMarks(items, lane, x, shown, AXIS, hit);
    }
    FS.drawViolations(top, violations, layout, x, shown, height, AXIS, hit);
    svgHost.replaceChildren(svg);
    range.textContent = "showing " + FS.secs(view.t0) + " to " + FS.secs(view.t1) +
      " of " + FS.secs(end) + " (virtual time)";
    wire(svg, plot);
    return count;
  }

  function describeRefs(refs) {
    return refs.map((i) => FS.describeEvent(events.get(i), data.nodes) || "#" + i).join("\n");
  }
  // Dragging across the plot zooms to the dragged range; the state outlives each redraw.
  const drag = { from: null, band: null, moved: false, svg: null, plot: 1 };
  const localX = (e) => e.clientX - drag.svg.getBoundingClientRect().left;
  const toTime = (px) => view.t0 + (px - LEFT) / drag.plot * (view.t1 - view.t0);
  window.addEventListener("mouseup", (e) => {
    if (drag.from === null) return;
    const from = drag.from;
    drag.from = null;
    if (drag.moved) {
      const a = toTime(from), b = toTime(localX(e));
      zoomTo(Math.min(a, b), Math.max(a, b));
    }
  });
  function wire(svg, plot) {
    drag.svg = svg;
    drag.plot = plot;
    drag.band = null;
    const find = (node) => {
      while (node && node !== svg) { if (node.__fsTip) return node; node = node.parentNode; }
      return null;
    };
    svg.addEventListener("mousemove", (e) => {
      const target = find(e.target);
      if (!target) { tip.style.display = "none"; } else {
        tip.textContent = target.__fsTip;
        tip.style.display = "block";
        tip.style.left = Math.max(0, Math.min(e.clientX + 14, window.innerWidth - 540)) + "px";
        tip.style.top = (e.clientY + 14) + "px";
      }
      if (drag.from === null || Math.abs(localX(e) - drag.from) < 6) return;
      drag.moved = true;
      if (!drag.band) {
        drag.band = FS.svg("rect", { y: 0, height: svg.getAttribute("height"),
          fill: "#3a6fd833", stroke: "#3a6fd8" });
        svg.appendChild(drag.band);
      }
      drag.band.setAttribute("x", Math.min(localX(e), drag.from));
      drag.band.setAttribute("width", Math.abs(localX(e) - drag.from));
    });
    svg.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    svg.addEventListener("mousedown", (e) => {
      if (e.button !== 0 || localX(e) < LEFT) return;
      drag.from = localX(e);
      drag.moved = false;
    });
    svg.addEventListener("click", (e) => {
      if (drag.moved) { drag.moved = false; return; }
      const target = find(e.target);
      if (target) select(target);
    });
  }
  function select(target) {
    if (selected && selected.isConnected) selected.classList.remove("selected");
    selected = target;
    target.classList.add("selected");
    details.textContent = target.__fsTip + (target.__fsEvents.length ? "\n\nevents:\n" +
      describeRefs(target.__fsEvents) : "");
    if (options.onSelect) options.onSelect(target.__fsEvents);
  }

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(draw, 150);
  });
  const drawn = draw();
  return { count: drawn, zoomTo, toViolation, end };
};
)JS";
}

}  // namespace fencesim::reports::html
