// Direct manipulation's rules on the page (static/js/dragmath.js) and in Python
// (web/views/drag.py, which the Panel dashboard calls) give the same answers: the body a press
// takes (each body's centre, just inside and just outside its grab margin, anywhere in the
// view; a lane hidden; a lane stopped and drawn greyed) and the settings a held body pulled
// anywhere sets (rounded to a pixel, clamped to the declared range). Python's answers come
// from drag_cases.py; run by `node --test tests/js/` (make check, make test).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { dragValues, hitBody, pixelRounded } from "../../static/js/dragmath.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PYTHON = process.env.PYTHON || `${ROOT}.venv/bin/python`;
const cases = JSON.parse(execFileSync(PYTHON, [`${ROOT}tests/js/drag_cases.py`], {
  cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 26,
}));
const nan = (values) => values.map((v) => (v === null ? NaN : v));

test("every draggable system has presses that hit, presses that miss and drags clamped", () => {
  assert.deepEqual(Object.keys(cases).sort(), ["cradle", "pendulum", "spring"]);
  const all = Object.values(cases);
  for (const c of all) {
    assert.ok(c.presses.some((p) => p.found) && c.presses.some((p) => !p.found));
    assert.ok(c.presses.some((p) => p.hidden.length && p.found));
  }
  assert.ok(all.some((c) => c.drags.some((d) => Object.keys(d.clamped).length)));
});

for (const [system, c] of Object.entries(cases)) {
  const bodies = { ...c.bodies };
  for (const col of ["x", "y", "fx", "fy"]) bodies[col] = nan(bodies[col]);

  test(`${system}: a press takes the body Python's Scene.body_at takes`, () => {
    for (const p of c.presses) {
      const found = hitBody(bodies, c.layout, p.hidden, { x: p.x, y: p.y, pixel: c.pixel });
      const got = found && [found.lane, found.ball];
      assert.deepEqual(got, p.found, `press at (${p.x}, ${p.y}), hidden ${p.hidden}`);
    }
  });

  test(`${system}: a held body pulled anywhere sets what Python's drag_values sets`, () => {
    const decl = (name) => c.decls.find((d) => d.name === name);
    for (const d of c.drags) {
      const { values, clamped } = dragValues(system, c.layout, c.params, decl, d.lane, d.ball,
        { x: d.x, y: d.y, pixel: c.pixel });
      assert.deepEqual(values, d.values, `lane ${d.lane} ball ${d.ball} at (${d.x}, ${d.y})`);
      assert.deepEqual(Object.fromEntries(clamped.map(([p, asked, kept]) => [p.name,
        [asked, kept]])), d.clamped);
    }
  });
}

test("a value is rounded to what a pixel tells, never finer than the finest digits", () => {
  assert.equal(pixelRounded(0.123456789, 0.01, 6), 0.12);
  assert.equal(pixelRounded(0.123456789, 0.003, 6), 0.123);
  assert.equal(pixelRounded(12.3456, 5, 6), 12);
  assert.equal(pixelRounded(0.123456789, 1e-9, 6), 0.123457);
  assert.equal(pixelRounded(0.123456789, 0, 6), 0.123457);
});
