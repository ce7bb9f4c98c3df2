// The page's frame unpacker (static/js/frames.js, applyFrame) run under Node on frames the
// worker's Python packs (views.system_run.SystemRun.frame, via frame_cases.py): every column of the
// scene and every sample lands in the model Python meant it for. Run by `node --test tests/js/`
// (make check, make test); $PYTHON or the checkout's .venv/bin/python computes the frames.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { register } from "node:module";
import { fileURLToPath } from "node:url";

register("./stub_hooks.mjs", import.meta.url);
const stub = await import("./page_stub.mjs");
const { applyFrame, flushDue } = await import("../../static/js/frames.js");

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PYTHON = process.env.PYTHON || `${ROOT}.venv/bin/python`;
const truth = JSON.parse(execFileSync(PYTHON, [`${ROOT}tests/js/frame_cases.py`], {
  cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28,
}));
const SYSTEMS = Object.keys(truth.cases);

const numbers = (values) => Array.from(values, (v) => (v === null ? NaN : v));
function sameColumn(actual, expected, what) {
  // Object.is: NaN equals NaN, every other value exactly (a float64 buffer loses nothing)
  const got = Array.from(actual);
  const want = numbers(expected);
  assert.equal(got.length, want.length, `${what}: length`);
  got.forEach((v, i) => assert.ok(Object.is(v, want[i]), `${what}[${i}]: ${v} != ${want[i]}`));
}
function frameOf(c) {
  return { ...c.frame, data: Float64Array.from(numbers(c.frame.data)), rtf: 1 };
}

test("the truth has every system, with bodies and samples to unpack", () => {
  assert.deepEqual(SYSTEMS.sort(), ["cradle", "pendulum", "spring"]);
  for (const c of Object.values(truth.cases)) {
    assert.ok(c.counts.bodies >= truth.integrators.length);
    assert.ok(c.frame.lanes.every(([, n]) => n > 1));
  }
});

for (const system of SYSTEMS) {
  test(`${system}: a first frame fills every scene column and every integrator's samples`, () => {
    stub.configure(truth.frameLayout, truth.integrators);
    stub.state.exact = true;
    const c = truth.cases[system];
    const entry = stub.freshSystem(system, c.counts);
    applyFrame(system, frameOf(c));
    for (const [role, columns] of truth.frameLayout.scene) {
      const data = stub.model(`${system}:scene:${role}`).data;
      for (const column of columns) {
        if (c.counts[role] === 0) assert.equal(data[column], undefined, `${role}.${column}`);
        else sameColumn(data[column], c.scene[role][column], `${system} ${role}.${column}`);
      }
    }
    assert.deepEqual(c.frame.lanes.map(([name]) => name), truth.integrators);
    for (const [name] of c.frame.lanes) {
      const data = stub.sampleSource(system, name).data;
      for (const column of truth.frameLayout.samples) {
        sameColumn(data[column], c.samples[name][column], `${system} ${name}.${column}`);
      }
    }
    assert.equal(entry.received, c.frame.lanes.reduce((sum, [, n]) => sum + n, 0));
    assert.equal(entry.simTime, c.frame.time);
    assert.equal(entry.frames, 1);
    assert.equal(entry.fresh, false);
  });

  test(`${system}: with the exact solution hidden the ghosts are skipped, not misread`, () => {
    stub.configure(truth.frameLayout, truth.integrators);
    stub.state.exact = false;
    const c = truth.cases[system];
    stub.freshSystem(system, c.counts);
    applyFrame(system, frameOf(c));
    for (const [role] of truth.frameLayout.scene.filter(([r]) => r.startsWith("ghost"))) {
      assert.deepEqual(stub.model(`${system}:scene:${role}`).data, {}, role);
    }
    for (const [name] of c.frame.lanes) {
      const data = stub.sampleSource(system, name).data;
      for (const column of truth.frameLayout.samples) {
        sameColumn(data[column], c.samples[name][column], `${system} ${name}.${column}`);
      }
    }
  });

  test(`${system}: a later frame's samples wait in the batch for the plots`, () => {
    stub.configure(truth.frameLayout, truth.integrators);
    stub.state.exact = true;
    const c = truth.cases[system];
    const entry = stub.freshSystem(system, c.counts);
    entry.fresh = false;
    applyFrame(system, frameOf(c));
    for (const [name] of c.frame.lanes) {
      assert.deepEqual(stub.sampleSource(system, name).data, {}, name); // not drawn yet
      for (const column of truth.frameLayout.samples) {
        sameColumn(entry.pending[name][column], c.samples[name][column], `${name}.${column}`);
      }
    }
  });
}

test("a fresh frame's energy view is shown at once, a later one's with its samples' flush", () => {
  const system = "spring";
  stub.configure(truth.frameLayout, truth.integrators);
  stub.state.exact = true;
  stub.state.systems = [system];
  stub.state.playing = true;
  const c = truth.cases[system];
  const entry = stub.freshSystem(system, c.counts);
  // (the view itself is views.energy's; here only when it reaches the plot matters)
  const view = (k) => ({ linear: [-k, k], log: [-12, 0], clipped: null, bars: null });
  applyFrame(system, { ...frameOf(c), energy: view(1) });
  assert.deepEqual(stub.energyViewsShown, [[system, view(1)]]); // with the samples it replaced
  applyFrame(system, { ...frameOf(c), energy: view(2) });
  applyFrame(system, { ...frameOf(c), energy: view(3) });
  // set at every frame, the range and marks repainted the energy plot at every frame
  assert.equal(stub.energyViewsShown.length, 1);
  assert.ok(entry.viewDue && Object.keys(entry.pending).length);
  entry.lastFlush = performance.now(); // flushed just now: nothing is due yet
  flushDue();
  assert.equal(stub.energyViewsShown.length, 1);
  entry.lastFlush = performance.now() - stub.STREAM_INTERVAL_MS;
  flushDue(); // the samples and the latest view go together
  assert.deepEqual(stub.energyViewsShown, [[system, view(1)], [system, view(3)]]);
  assert.deepEqual(entry.pending, {});
  const [name] = c.frame.lanes[0];
  const n = c.samples[name].t.length;
  assert.equal(stub.sampleSource(system, name).data.t.length, 3 * n); // replaced, then two
  // paused (a step): at once
  stub.state.playing = false;
  applyFrame(system, { ...frameOf(c), energy: view(4) });
  flushDue();
  assert.deepEqual(stub.energyViewsShown.at(-1), [system, view(4)]);
});
