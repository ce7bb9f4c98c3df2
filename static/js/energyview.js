// @ts-check
// Integrator Lab: an energy view applied to the energy plot's Bokeh models and the scene's
// energy bars (plots.js, frames.js).
//
// What the view says is decided in Python, once for both front ends (views.energy.EnergyView,
// for one mode: views.energy_figures.view_for_mode). The padding of the clipped marks stays
// here rather than there: the baked frames are JSON (no NaN for a blank row's numbers), every
// frame would carry the blank rows, and the page clips in its own mode, so it needs the blank
// rows alone after a mode change (views.energy_figures.padded_marks pads what Python builds).

/**
 * Show energy view `view` of `system` on its models: the energy plot's y-range, the energy
 * bars beside the lanes and the marks of the methods clipped at the plot's edge.
 *
 * @param {(name: string) => any} find  the Bokeh model of a name (null: none)
 * @param {string} system  the system's name (the models' prefix)
 * @param {{mode: string, range: number[], clipped: ?Object<string, any[]>,
 *          bars: ?Object<string, any[]>}} view  the view in the mode on view (null: none;
 *   `clipped` null: no marks)
 * @param {{rows: number, blank: Object<string, any>}} marksShape  the clipped marks' source's
 *   row count and a blank row (views.energy_figures.MARKS)
 * @param {Object} [options]  for `setv` (the Panel page: `{sync: false}`)
 */
export function applyEnergyView(find, system, view, marksShape, options = {}) {
  if (!view) return;
  const { mode } = view;
  const [start, end] = view.range;
  // a range the user zoomed or panned stays until the plot's reset tool (back to the last
  // range set here) or another mode; the range set last is kept in its tags
  const range = find(`${system}:energy:y`);
  const last = range ? range.tags[0] : null;
  const mine = range && (!last || last.mode !== mode ||
    (range.start === last.start && range.end === last.end));
  // (the reset too: the Panel server sets only the start and end of a mode changed there)
  if (mine && (range.start !== start || range.end !== end ||
               range.reset_start !== start || range.reset_end !== end)) {
    range.setv({ start, end, reset_start: start, reset_end: end }, options);
  }
  if (mine && (!last || last.mode !== mode || last.start !== start || last.end !== end)) {
    range.setv({ tags: [{ mode, start, end }] }, options);
  }
  const bars = find(`${system}:scene:energy-bars`);
  if (bars && view.bars) bars.setv({ data: view.bars }, options); // E vs E0
  const marks = find(`${system}:energy:clipped`);
  const rows = view.clipped ? view.clipped.t.length : 0;
  if (marks && (rows || marks.data.name.some((/** @type {string} */ name) => name))) {
    marks.setv({ data: paddedMarks(view.clipped, marksShape) }, options);
  }
}

/**
 * Only the energy bars beside the lanes of energy view `view` (as for applyEnergyView): they
 * are in the scene, which repaints every frame anyway, while the energy plot takes the range
 * and marks with the samples they describe (every STREAM_INTERVAL_MS: a range or marks set
 * at every frame repainted every energy plot at every frame, its axes measured again).
 *
 * @param {(name: string) => any} find
 * @param {string} system
 * @param {?{bars: ?Object<string, any[]>}} view
 * @param {Object} [options]
 */
export function applyEnergyBars(find, system, view, options = {}) {
  const bars = view && view.bars && find(`${system}:scene:energy-bars`);
  if (bars) bars.setv({ data: view.bars }, options);
}

/**
 * The clipped marks (none: null) filled up with blank rows to a fixed count
 * (views.energy_figures.MARK_ROWS: a source that changes length at the frame rate breaks
 * BokehJS's colour-by-column text); a blank number (null in the JSON) is NaN.
 *
 * @param {?Object<string, any[]>} columns
 * @param {{rows: number, blank: Object<string, any>}} marksShape
 * @returns {Object<string, any[]>}
 */
export function paddedMarks(columns, { rows, blank }) {
  const missing = Math.max(0, rows - (columns ? columns.t.length : 0));
  return Object.fromEntries(Object.entries(blank).map(([c, value]) => [c,
    [...(columns ? columns[c] : []), ...Array(missing).fill(value === null ? NaN : value)]]));
}
