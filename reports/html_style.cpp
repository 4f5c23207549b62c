// The reports' style: plain, printable, readable without colour (every colour also has a label).
#include "reports/html_page.h"

namespace fencesim::reports::html {

std::string_view page_style() {
  return R"CSS(
:root { --ink: #1d2330; --muted: #5b6475; --line: #d7dbe3; --bg: #ffffff; --panel: #f5f6f9;
  --belief: #3a6fd8; --belief-light: #c9d8f6; --truth: #2f9b6a; --refused: #d9480f;
  --dedup: #7a5af5; --violation: #e03131; --fault: #9c36b5; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  background: var(--bg); }
main { padding: 16px 24px 48px; max-width: 1800px; margin: 0 auto; }
h1 { font-size: 22px; margin: 4px 0 8px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 12.5px; }
pre { background: var(--panel); padding: 8px 10px; border-radius: 4px; overflow-x: auto;
  white-space: pre-wrap; word-break: break-all; margin: 4px 0; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600;
  font-size: 12px; color: #fff; background: var(--muted); vertical-align: middle; }
.badge.pass { background: var(--truth); }
.badge.violation, .badge.harness-error, .badge.nondeterministic { background: var(--violation); }
.badge.liveness { background: #e8590c; }
.badge.unproven, .badge.missed { background: #d9480f; }
.badge.met { background: var(--truth); }
.badge.not-enough-runs { background: #868e96; }
.badge.new { background: #c92a2a; }
.badge.known { background: #868e96; }
.group { border-left: 4px solid var(--line); padding: 2px 12px; margin: 10px 0; }
.group h3 .signature { font-weight: 600; word-break: break-word; }
.fs-error { background: #ffe3e3; color: #a51111; padding: 8px 24px; font-weight: 600; }
.meta td:first-child { color: var(--muted); }
.warn { background: #fff3bf; }
.bad { color: var(--violation); font-weight: 600; }
.muted { color: var(--muted); }
.violation-item { border-left: 4px solid var(--violation); padding: 4px 10px; margin: 6px 0;
  background: #fff5f5; cursor: pointer; }
.removed { text-decoration: line-through; color: var(--muted); }
.tl { border: 1px solid var(--line); border-radius: 4px; margin: 8px 0; background: #fff; }
.tl-bar { display: flex; gap: 6px; align-items: center; padding: 6px 8px; flex-wrap: wrap;
  border-bottom: 1px solid var(--line); background: var(--panel); }
.tl-bar button { font: inherit; font-size: 12px; padding: 2px 8px; cursor: pointer; }
.tl-range { color: var(--muted); font-size: 12px; margin-left: 8px; }
.tl-svg-host { overflow-x: hidden; position: relative; }
.tl svg { display: block; user-select: none; }
.tl svg text { font: 11px system-ui, sans-serif; fill: var(--ink); pointer-events: none; }
.tl svg .lane-label { font-weight: 600; }
.tl svg text.on-bar { paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.tl svg .row-label { fill: var(--muted); font-size: 10px; }
.tl svg .axis text { fill: var(--muted); }
.tl svg .hit { cursor: pointer; }
.tl svg .selected { stroke: #000 !important; stroke-width: 2px !important; }
.tl-tip { position: fixed; pointer-events: none; background: #1d2330; color: #fff; padding: 6px 8px;
  border-radius: 4px; font-size: 12px; max-width: 520px; white-space: pre-wrap; z-index: 10;
  display: none; }
.tl-details { padding: 6px 10px; border-top: 1px solid var(--line); min-height: 2em;
  white-space: pre-wrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.legend { display: flex; gap: 12px; flex-wrap: wrap; font-size: 12px; color: var(--muted);
  padding: 4px 8px; }
.legend span::before { content: ""; display: inline-block; width: 12px; height: 10px;
  margin-right: 4px; vertical-align: middle; background: var(--c); border: 1px solid #0003; }
.filters { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin: 6px 0; }
.events tr.hl td { background: #fff3bf; }
.events tr.vio td { background: #ffe3e3; }
.events td { font-size: 12px; }
.scroll { max-height: 560px; overflow-y: auto; border: 1px solid var(--line); }
.copy { font-size: 12px; margin-left: 6px; cursor: pointer; }
.static { padding: 12px 20px; }
.static table { border-collapse: collapse; margin: 6px 0 14px; }
.static td, .static th { border: 1px solid var(--line); padding: 2px 8px; text-align: left; }
.static .bad { color: var(--violation); font-weight: 600; }
.static-timeline text { font-size: 11px; fill: var(--ink); }
.static-timeline .row { stroke: var(--line); }
.static-timeline .fault { fill: var(--fault); opacity: 0.5; }
.static-timeline .deadline { stroke: var(--fault); stroke-width: 2; stroke-dasharray: 3 2; }
.static-timeline .deadline.missed { stroke: var(--violation); }
.static-timeline .belief { fill: var(--belief); }
.static-timeline .epoch { fill: var(--truth); }
.static-timeline .step { fill: var(--muted); }
.static-timeline .write { stroke: var(--truth); stroke-width: 2; }
.static-timeline .write.refused { stroke: var(--refused); }
.static-timeline .mark { stroke: var(--dedup); stroke-width: 2; }
.static-timeline .violation { stroke: var(--violation); stroke-width: 3; }
)CSS";
}

}  // namespace fencesim::reports::html
