// The reports' shared script: reading the embedded data, building elements from it (always as
// text, never as markup), and formatting. Every reader of data tolerates a missing or mistyped
// field: it shows "-" instead of throwing, since a sweep report may be drawn from older files.
#include "reports/html_page.h"

namespace fencesim::reports::html {

std::string_view common_script() {
  return R"JS(
"use strict";
const FS = {};
FS.isNum = (v) => typeof v === "number" && isFinite(v);
FS.dash = (v) => (v === undefined || v === null || v === "" ? "-"
  : typeof v === "object" ? JSON.stringify(v) : String(v));
FS.arr = (v) => (Array.isArray(v) ? v : []);
FS.obj = (v) => (v && typeof v === "object" && !Array.isArray(v) ? v : {});
FS.str = (v) => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
FS.secs = (ns) => (FS.isNum(ns) ? (ns / 1e9).toFixed(6) + " s" : "-");
FS.fixed = (v, digits) => (FS.isNum(v) ? v.toFixed(digits) : FS.dash(v));
// Shortens a label to at most `max` visible characters, "…" included. It cuts between grapheme
// clusters, never inside one: a cut by UTF-16 unit (String.slice) splits an emoji's surrogate pair,
// and a lone surrogate in the DOM is not text (Debian's chromium 156 dies of SIGILL dumping it).
FS.clip = function (text, max) {
  const parts = typeof Intl === "object" && Intl.Segmenter
    ? Array.from(new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text), (s) => s.segment)
    : Array.from(text);
  return parts.length > max ? parts.slice(0, Math.max(1, max - 1)).join("") + "…" : text;
};
FS.readJson = function (id) {
  const node = document.getElementById(id);
  if (!node) return null;
  try { return JSON.parse(node.textContent); } catch (error) {
    throw new Error("the embedded data '" + id + "' is not JSON: " + error.message);
  }
};
// el("div", {class: "x", onclick: f}, [children or text]): children that are strings become text.
FS.el = function (tag, attrs, children) {
  const node = document.createElement(tag);
  FS.setAttrs(node, attrs);
  FS.append(node, children);
  return node;
};
// The SVG namespace, as the HTML parser assigns it: the page then holds no URL at all, which is
// what its self-containment test looks for.
FS.SVG_NS = (() => {
  const probe = document.createElement("div");
  probe.innerHTML = "<svg></svg>";
  return probe.firstChild.namespaceURI;
})();
FS.svg = function (tag, attrs, children) {
  const node = document.createElementNS(FS.SVG_NS, tag);
  FS.setAttrs(node, attrs);
  FS.append(node, children);
  return node;
};
FS.setAttrs = function (node, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = FS.str(value);
    else node.setAttribute(name, String(value));
  }
};
FS.append = function (node, children) {
  if (children === undefined || children === null) return;
  for (const child of Array.isArray(children) ? children : [children]) {
    if (child === undefined || child === null || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(FS.dash(child)));
  }
};
// A table from header names and rows of cells (strings, numbers or nodes).
FS.table = function (headers, rows, attrs) {
  const head = FS.el("tr", {}, headers.map((h) => FS.el("th", {}, h)));
  const body = rows.map((row) => {
    const cells = row.cells || row;
    return FS.el("tr", row.attrs || {}, cells.map((c) =>
      FS.el("td", FS.isNum(c) ? { class: "num" } : {}, c instanceof Node ? c : FS.dash(c))));
  });
  return FS.el("table", attrs || {}, [FS.el("thead", {}, head), FS.el("tbody", {}, body)]);
};
// Key-value rows of an object, for a configuration or a header.
FS.metaTable = (pairs) => FS.el("table", { class: "meta" }, FS.el("tbody", {}, pairs.map(([k, v]) =>
  FS.el("tr", {}, [FS.el("td", {}, FS.dash(k)), FS.el("td", FS.isNum(v) ? { class: "num" } : {},
    v instanceof Node ? v : FS.dash(v))]))));
FS.badge = (status) => FS.el("span", { class: "badge " + FS.str(status) }, FS.dash(status));
// A command in a box, with a button that copies it (when the browser allows it on this page).
FS.command = function (text) {
  const pre = FS.el("pre", { class: "mono" }, FS.dash(text));
  const copy = FS.el("button", { class: "copy", text: "copy", onclick: () => {
    const range = document.createRange();
    range.selectNodeContents(pre);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try { document.execCommand("copy"); } catch (error) { /* the selection stays for the user */ }
  } });
  return FS.el("div", {}, [pre, copy]);
};
// A list of fault descriptions (plan entries are {description, fault} or plain strings).
FS.planList = function (plan, emptyText) {
  const items = FS.arr(plan);
  if (items.length === 0) return FS.el("p", { class: "muted" }, emptyText || "no faults");
  return FS.el("ol", {}, items.map((f) => FS.el("li", { class: "mono" },
    typeof f === "string" ? f : FS.dash(FS.obj(f).description))));
};
FS.noteRendered = function (count) {
  const previous = Number(document.body.dataset.rendered || 0);
  document.body.dataset.rendered = String(previous + count);
};
FS.start = function (main) {
  const run = () => {
    const started = performance.now();
    // The static view (written for readers with scripts off) gives way to the interactive one.
    const still = document.getElementById("fs-static");
    if (still) still.remove();
    try {
      main();
      // How long drawing took, for whoever measures the reports (not shown on the page).
      document.body.dataset.drawMs = String(Math.round(performance.now() - started));
    } catch (error) {
      document.body.dataset.error = String(error && error.stack ? error.stack : error);
      const box = document.getElementById("fs-error");
      if (box) { box.textContent = "This report failed to draw: " + error; box.hidden = false; }
    }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
};
)JS";
}

}  // namespace fencesim::reports::html
