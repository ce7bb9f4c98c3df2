// The energy view applied to the energy plot's models (static/js/energyview.js, the code both
// the static page and the Panel page run) under Node, on plain objects standing in for the
// Bokeh models: the y-range follows the views unless the user zoomed, the marks keep the
// fixed row count Python's padded_marks gives the source as built. Run by `node --test
// tests/js/` (make check, make test); $PYTHON or the checkout's .venv/bin/python says the
// marks' shape.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { applyEnergyView, paddedMarks } from "../../static/js/energyview.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PYTHON = process.env.PYTHON || `${ROOT}.venv/bin/python`;
// the marks' shape, and Python's padding of two marks (NaN: null, as json.dumps cannot)
const python = JSON.parse(execFileSync(PYTHON, ["-c", `
import json, math
from integrator_lab.views.energy_figures import MARKS, padded_marks
marks = {"t": [1.0, 2.0], "label_t": [1.0, 2.0], "y": [0.5, -0.5], "name": ["a", "b"],
         "text": ["a +5 %", "b -5 %"], "color": ["#ff0000", "#00ff00"],
         "marker": ["triangle", "inverted_triangle"], "baseline": ["top", "bottom"],
         "offset": [0, 0]}
padded = {c: [None if isinstance(v, float) and math.isnan(v) else v for v in values]
          for c, values in padded_marks(marks).items()}
print(json.dumps({"shape": MARKS, "marks": marks, "padded": padded}))
`], { cwd: ROOT, encoding: "utf8" }));
const SHAPE = python.shape;
const NO_MARKS = Object.fromEntries(Object.keys(SHAPE.blank).map((c) => [c, []]));

/** A model: keeps what setv gives it, and counts the calls and their options. */
function fake(attrs) {
  return {
    tags: [], ...attrs, calls: [],
    setv(changes, options) {
      this.calls.push([changes, options]);
      Object.assign(this, changes);
    },
  };
}
function models() {
  const all = {
    "spring:energy:y": fake({ start: -1, end: 1, reset_start: null, reset_end: null }),
    "spring:scene:energy-bars": fake({ data: {} }),
    "spring:energy:clipped": fake({ data: paddedMarks(null, SHAPE) }),
  };
  return { all, find: (name) => all[name] ?? null };
}
const view = (mode, range, clipped = NO_MARKS) => ({ mode, range, clipped, bars: { x0: [0] } });
const blanks = (data) => data.name.every((name) => name === "");

test("the padding is Python's: the marks, then blank rows (NaN numbers) to the fixed count", () => {
  const padded = paddedMarks(python.marks, SHAPE);
  assert.deepEqual(Object.keys(padded).sort(), Object.keys(python.padded).sort());
  for (const [c, values] of Object.entries(python.padded)) {
    assert.equal(padded[c].length, SHAPE.rows, c);
    values.forEach((v, i) => assert.ok(Object.is(padded[c][i], v === null ? NaN : v), `${c}[${i}]`));
  }
  const many = Object.fromEntries(Object.keys(SHAPE.blank).map(
    (c) => [c, Array(SHAPE.rows + 3).fill(python.marks[c][0])]));
  assert.equal(paddedMarks(many, SHAPE).t.length, SHAPE.rows + 3); // more stay as they are
  assert.ok(blanks(paddedMarks(null, SHAPE)));
});

test("a view sets the range with its reset, the bars and the marks, with the options given", () => {
  const { all, find } = models();
  const quiet = { sync: false };
  applyEnergyView(find, "spring", view("linear", [-2, 2], python.marks), SHAPE, quiet);
  const range = all["spring:energy:y"];
  assert.deepEqual([range.start, range.end, range.reset_start, range.reset_end], [-2, 2, -2, 2]);
  assert.deepEqual(range.tags, [{ mode: "linear", start: -2, end: 2 }]);
  assert.deepEqual(all["spring:scene:energy-bars"].data, { x0: [0] });
  const marks = all["spring:energy:clipped"].data;
  assert.deepEqual(marks.name.slice(0, 2), ["a", "b"]);
  assert.equal(marks.t.length, SHAPE.rows);
  for (const m of Object.values(all)) assert.ok(m.calls.every(([, options]) => options === quiet));
  // the same view again changes nothing of the range or the marks (the bars: every frame)
  const before = range.calls.length;
  applyEnergyView(find, "spring", view("linear", [-2, 2], python.marks), SHAPE, quiet);
  assert.equal(range.calls.length, before);
});

test("a range the user zoomed stays until the reset tool or another mode", () => {
  const { all, find } = models();
  const range = all["spring:energy:y"];
  applyEnergyView(find, "spring", view("linear", [-2, 2]), SHAPE);
  range.start = -0.5; // the user zooms
  range.end = 0.5;
  applyEnergyView(find, "spring", view("linear", [-3, 3]), SHAPE);
  assert.deepEqual([range.start, range.end, range.reset_start], [-0.5, 0.5, -2]);
  range.start = range.reset_start; // the reset tool: back to the last range set
  range.end = range.reset_end;
  applyEnergyView(find, "spring", view("linear", [-3, 3]), SHAPE);
  assert.deepEqual([range.start, range.end, range.reset_start], [-3, 3, -3]);
  range.start = 1; // zoomed again, then another mode
  applyEnergyView(find, "spring", view("log", [-12, 0]), SHAPE);
  assert.deepEqual([range.start, range.end], [-12, 0]);
  assert.deepEqual(range.tags, [{ mode: "log", start: -12, end: 0 }]);
});

test("a range set by the server in another mode gets its reset from the next view", () => {
  const { all, find } = models();
  const range = all["spring:energy:y"];
  applyEnergyView(find, "spring", view("linear", [-2, 2]), SHAPE);
  range.start = -12; // the Panel server's show_energy_view: a mode changed while paused
  range.end = 0;
  applyEnergyView(find, "spring", view("log", [-12, 0]), SHAPE);
  assert.deepEqual([range.reset_start, range.reset_end], [-12, 0]);
});

test("marks go blank once when none are left, and stay untouched while blank", () => {
  const { all, find } = models();
  const marks = all["spring:energy:clipped"];
  applyEnergyView(find, "spring", view("linear", [-2, 2]), SHAPE);
  assert.equal(marks.calls.length, 0); // blank already
  applyEnergyView(find, "spring", view("linear", [-2, 2], python.marks), SHAPE);
  applyEnergyView(find, "spring", view("log", [-12, 0], null), SHAPE); // the page: no marks
  assert.equal(marks.calls.length, 2);
  assert.ok(blanks(marks.data) && marks.data.t.length === SHAPE.rows);
  applyEnergyView(find, "spring", view("log", [-12, 0], null), SHAPE);
  assert.equal(marks.calls.length, 2);
});

test("no view, or models missing, changes nothing and throws nothing", () => {
  const { all, find } = models();
  applyEnergyView(find, "spring", null, SHAPE);
  applyEnergyView(() => null, "spring", view("linear", [-2, 2], python.marks), SHAPE);
  for (const m of Object.values(all)) assert.equal(m.calls.length, 0);
});
