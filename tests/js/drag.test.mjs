// Direct manipulation's rules on the page (static/js/dragmath.js), their one home since the
// Panel dashboard's Python copy went: a press takes the body drawn under it, within a
// fingertip's margin counted in screen pixels whatever the view's scale, never a body of a
// lane hidden, a stopped lane's where it is drawn greyed; a body put where the scene draws an
// initial state asks for that state; a dragged value carries the digits a pixel can tell and
// is kept in its declared range, saying so. The scenes are the engine's own (its layouts and
// frames, from drag_cases.py); run by `node --test tests/js/` (make check, make test).

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

test("every draggable system has a scene, with a stopped lane drawn greyed", () => {
  assert.deepEqual(Object.keys(cases).sort(), ["cradle", "pendulum", "spring"]);
  for (const c of Object.values(cases)) {
    assert.ok(c.bodies.x.some((x) => x === null) && c.bodies.fx.some((x) => x !== null));
  }
});

for (const [system, c] of Object.entries(cases)) {
  const bodies = { ...c.bodies };
  for (const col of ["x", "y", "fx", "fy"]) bodies[col] = nan(bodies[col]);
  const { layout } = c;
  const lanes = layout.integrators.length;
  const perLane = layout.counts.bodies / lanes;
  const rows = [...Array(layout.counts.bodies).keys()];
  const drawnAt = (row) => (Number.isFinite(bodies.x[row])
    ? [bodies.x[row], bodies.y[row]] : [bodies.fx[row], bodies.fy[row]]);
  const decl = (name) => c.decls.find((d) => d.name === name);
  const grab = layout.drag.grab_px;

  test(`${system}: a press on a body takes it, a stopped lane's where it is drawn greyed`, () => {
    for (const row of rows) {
      const [x, y] = drawnAt(row);
      const found = hitBody(bodies, layout, [], { x, y, pixel: c.pixel });
      assert.deepEqual([found?.lane, found?.ball], [Math.floor(row / perLane), row % perLane]);
    }
  });

  test(`${system}: the grab margin is a fingertip's width in screen pixels at any scale`, () => {
    for (const scale of [0.5, 1, 2]) {
      const pixel = c.pixel * scale;
      // the first lane's first body, pressed from the left (the view's edge is there)
      const [x, y] = drawnAt(0);
      const edge = x - bodies.w[0] / 2;
      const inside = hitBody(bodies, layout, [], { x: edge - (grab - 1) * pixel, y, pixel });
      assert.deepEqual([inside?.lane, inside?.ball], [0, 0], `scale ${scale}`);
      assert.equal(hitBody(bodies, layout, [], { x: edge - (grab + 1) * pixel, y, pixel }), null);
    }
  });

  test(`${system}: a body of a lane hidden cannot be taken`, () => {
    for (let lane = 0; lane < lanes; lane += 1) {
      const hidden = [layout.integrators[lane]];
      for (const row of rows.filter((r) => Math.floor(r / perLane) === lane)) {
        const [x, y] = drawnAt(row);
        const found = hitBody(bodies, layout, hidden, { x, y, pixel: c.pixel });
        assert.ok(found === null || found.lane !== lane, `${hidden} row ${row}`);
      }
    }
  });

  test(`${system}: a body put where the scene draws an initial state asks for it`, () => {
    const { lane, ball, x, y, settings } = c.target;
    const { values, clamped } = dragValues(system, layout, c.params, decl, lane, ball,
      { x, y, pixel: 1e-9 });
    assert.deepEqual(values, settings);
    assert.deepEqual(clamped, []);
  });

  test(`${system}: a dragged value has the digits a pixel tells and stays in range`, () => {
    const [x0, x1] = c.x_range;
    const [y0, y1] = c.y_range;
    const length = Number(c.params.length) || 1;
    for (let k = 0; k < 60; k += 1) {
      // a held body pulled anywhere, out of the view too (a fixed walk: no randomness)
      const at = { x: x0 + (x1 - x0) * (((k * 0.618) % 1) * 3 - 1),
        y: y0 + (y1 - y0) * (((k * 0.382) % 1) * 3 - 1), pixel: c.pixel };
      const { values, clamped } = dragValues(system, layout, c.params, decl, k % lanes,
        k % perLane, at);
      for (const [name, value] of Object.entries(values)) {
        const p = decl(name);
        assert.ok((p.min === null || value >= p.min) && (p.max === null || value <= p.max));
        if (p.kind !== "float" || clamped.some(([q]) => q.name === name)) continue;
        const unit = name === "theta0" || name === "angle" ? c.pixel / length : c.pixel;
        const digits = Math.min(layout.drag.finest_digits, Math.ceil(-Math.log10(unit)));
        assert.equal(value, Number(value.toFixed(digits)), `${name} = ${value}`);
      }
      for (const [p, asked, kept] of clamped) {
        assert.equal(values[p.name], kept);
        assert.ok(asked < p.min ? kept === p.min : asked > p.max && kept === p.max);
      }
    }
  });
}

test("a cradle ball pulled to an angle sets it to a pixel's digits; past the top, the top", () => {
  const c = cases.cradle;
  const decl = (name) => c.decls.find((d) => d.name === name);
  const [px, py] = c.layout.pivots[0];
  const [ox, oy] = c.layout.origins[0];
  const length = c.params.length;
  // ball 0 pulled to 0.3 rad on the left, a pixel being a hundredth of the rod
  const at = { x: px + ox - length * Math.sin(0.3), y: py + oy - length * Math.cos(0.3),
    pixel: 0.01 * length };
  assert.deepEqual(dragValues("cradle", c.layout, c.params, decl, 0, 0, at),
    { values: { angle: 0.3, lifted: 1 }, clamped: [] });
  // pulled above the pivot: past the declared top, kept there and said
  const top = decl("angle").max;
  const high = dragValues("cradle", c.layout, c.params, decl, 0, 0,
    { x: px + ox - 0.1, y: py + oy + 1.0, pixel: 0.001 });
  assert.equal(high.values.angle, top);
  const [[p, asked, kept]] = high.clamped;
  assert.ok(p.name === "angle" && asked > top && kept === top);
  // pulled to the right of the pivot (the balls lift to the left): the bottom, 0 rad
  const right = dragValues("cradle", c.layout, c.params, decl, 0, 0,
    { x: px + ox + 0.1, y: py + oy - length, pixel: 0.001 });
  assert.equal(right.values.angle, 0);
});

test("a spring pulled past its declared range is kept at the end", () => {
  const c = cases.spring;
  const decl = (name) => c.decls.find((d) => d.name === name);
  const [ox, oy] = c.layout.origins[0];
  const far = decl("x0").max + 50;
  const { values, clamped } = dragValues("spring", c.layout, c.params, decl, 0, 0,
    { x: ox + far, y: oy, pixel: c.pixel });
  assert.equal(values.x0, decl("x0").max);
  assert.deepEqual(clamped.map(([p, asked, kept]) => [p.name, asked, kept]),
    [["x0", far, decl("x0").max]]);
});

test("a value is rounded to what a pixel tells, never finer than the finest digits", () => {
  assert.equal(pixelRounded(0.123456789, 0.01, 6), 0.12);
  assert.equal(pixelRounded(0.123456789, 0.003, 6), 0.123);
  assert.equal(pixelRounded(12.3456, 5, 6), 12);
  assert.equal(pixelRounded(0.123456789, 1e-9, 6), 0.123457);
  assert.equal(pixelRounded(0.123456789, 0, 6), 0.123457);
});
