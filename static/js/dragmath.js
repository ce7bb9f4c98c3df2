// @ts-check
// Integrator Lab page: the rules of direct manipulation, for every host: which body a press
// takes, and what a pointer at a point of the scene sets, rounded to what a pixel tells and
// clamped to the declared range. The numbers (the grab margin, the finest digits, the systems
// that can be dragged) come from Python in each layout (`layout.drag`: web/views/drag.py);
// tests/js/drag.test.mjs tests these rules on the engine's own scenes. Pure functions: no DOM,
// no BokehJS (drag.js does the pointer events and the preview).

/**
 * @typedef {{ draggable: string[], grab_px: number, finest_digits: number }} DragRules
 * @typedef {{ shape: string, integrators: string[], counts: { bodies: number },
 *             origins: number[][], pivots: number[][], drag: DragRules }} DragLayout
 * @typedef {{ x: ArrayLike<number>, y: ArrayLike<number>, fx: ArrayLike<number>,
 *             fy: ArrayLike<number>, w: ArrayLike<number>, h: ArrayLike<number>,
 *             integrator: ArrayLike<string> }} Bodies
 * @typedef {{ x: number, y: number, pixel: number }} Point  view coordinates; one pixel
 * @typedef {{ name: string, kind: string, min: number | null, max: number | null }} Decl
 */

/**
 * The body a press at `at` takes: the nearest centre within its half size plus the grab
 * margin, of a lane not hidden.
 * @param {Bodies} bodies the scene's bodies as drawn (a stopped lane's in fx, fy)
 * @param {DragLayout} layout
 * @param {string[]} hidden the integrators not drawn
 * @param {Point} at
 * @returns {{ lane: number, ball: number, distance: number } | null}
 */
export function hitBody(bodies, layout, hidden, at) {
  const lanes = layout.integrators.length;
  const perLane = lanes ? layout.counts.bodies / lanes : 0;
  const grab = layout.drag.grab_px * at.pixel;
  /** @type {{ lane: number, ball: number, distance: number } | null} */
  let best = null;
  for (let row = 0; row < layout.counts.bodies; row += 1) {
    if (hidden.includes(bodies.integrator[row])) continue;
    let x = bodies.x[row];
    let y = bodies.y[row];
    if (!Number.isFinite(x) || !Number.isFinite(y)) { x = bodies.fx[row]; y = bodies.fy[row]; }
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    const dx = Math.abs(x - at.x);
    const dy = Math.abs(y - at.y);
    const halfW = bodies.w[row] / 2 + grab;
    const halfH = bodies.h[row] / 2 + grab;
    const distance = Math.hypot(dx, dy);
    const inside = layout.shape === "rect" ? dx <= halfW && dy <= halfH : distance <= halfW;
    if (inside && (!best || distance < best.distance)) {
      best = { lane: Math.floor(row / perLane), ball: row % perLane, distance };
    }
  }
  return best;
}

/**
 * `value` rounded to the digits one pixel (`unit` of it per pixel) can tell, no finer than
 * the finest digits.
 * @param {number} value @param {number} unit @param {number} finest
 */
export function pixelRounded(value, unit, finest) {
  const digits = Number.isFinite(unit) && unit > 0
    ? Math.min(finest, Math.max(0, Math.ceil(-Math.log10(unit)))) : finest;
  return Number(value.toFixed(digits));
}

/**
 * The settings, before rounding, that put body `ball` of lane `lane` at `at` (about the
 * layout's `origins` and `pivots`): pendulum θ₀ about its pivot (ω₀ = 0); spring x₀, the
 * displacement from rest (v₀ = 0); cradle: that ball and every ball to its left lifted, to
 * the left, by `angle`.
 * @param {string} system @param {DragLayout} layout @param {number} lane
 * @param {number} ball @param {Point} at
 * @returns {Record<string, number>}
 */
export function pointerParams(system, layout, lane, ball, at) {
  const [ox, oy] = layout.origins[lane];
  if (system === "spring") return { x0: at.x - ox, v0: 0 };
  const [px, py] = layout.pivots[ball];
  const dx = at.x - (px + ox);
  const dy = at.y - (py + oy);
  // x = L sin θ, y = −L cos θ about the pivot: θ from the downward vertical
  if (system === "pendulum") return { theta0: Math.atan2(dx, -dy), omega0: 0 };
  // lifted balls are pulled out to the left: the angle is positive to the left
  return { angle: Math.atan2(-dx, -dy), lifted: ball + 1 };
}

/**
 * What a pointer at `at` sets while body `ball` of lane `lane` is held: each float rounded
 * to what a pixel tells (an angle's pixel is the view's over the rod's length), then clamped
 * to its declared range.
 * @param {string} system @param {DragLayout} layout @param {Record<string, number>} params
 *   the settings in force @param {(name: string) => Decl} decl @param {number} lane
 * @param {number} ball @param {Point} at
 * @returns {{ values: Record<string, number>, clamped: [Decl, number, number][] }}
 */
export function dragValues(system, layout, params, decl, lane, ball, at) {
  const length = Number(params.length) || 1;
  /** @type {Record<string, number>} */
  const values = {};
  /** @type {[Decl, number, number][]} */
  const clamped = [];
  for (const [name, raw] of Object.entries(pointerParams(system, layout, lane, ball, at))) {
    const p = decl(name);
    const unit = name === "theta0" || name === "angle" ? at.pixel / length : at.pixel;
    const value = p.kind === "float" ? pixelRounded(raw, unit, layout.drag.finest_digits) : raw;
    const kept = Math.min(Math.max(value, p.min === null ? -Infinity : p.min),
      p.max === null ? Infinity : p.max);
    if (kept !== value) clamped.push([p, value, kept]);
    values[name] = kept;
  }
  return { values, clamped };
}
