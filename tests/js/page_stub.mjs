// What static/js/frames.js imports from the rest of the page (data.js, models.js, plots.js,
// urlstate.js, ...), standing in for the page under Node: Bokeh models are plain objects that
// keep what is assigned to them, the page data is what configure() is given. Loaded in place
// of those modules by stub_hooks.mjs.

export let data = { frameLayout: { scene: [], samples: [], extras: {} }, colors: {}, labels: {} };
export let SCENE_LAYOUT = [];
export let COLUMNS = [];
export let INTEGRATORS = [];
export const DEFAULTS = {};
export const ROLLOVER = 4000;
export const STATUS_INTERVAL_MS = 250;
export const STREAM_INTERVAL_MS = 150;

const models = new Map();
export function model(name) {
  if (!models.has(name)) {
    models.set(name, {
      name, data: {}, visible: false,
      stream(columns) { // as a ColumnDataSource's: appended (no rollover needed here)
        for (const [c, values] of Object.entries(columns)) {
          this.data[c] = [...(this.data[c] ?? []), ...values];
        }
      },
    });
  }
  return models.get(name);
}
export function sampleSource(system, name) {
  return model(`${system}:samples:${name}`);
}
export function quietly(fn) { fn(); }

export const state = { exact: true, integrators: [], params: {}, dt: {}, playing: true };
export function saveState() {}
export const live = { systems: {}, source: "worker" };
export const statusTexts = [];
export function setStatusText(system, time, rtf) { statusTexts.push([system, time, rtf]); }
export function divergedText(name, at) { return `${name} diverged at ${at}`; }
export function t(key) { return key; }
export function integratorName(name) { return name; }
export function onLanguage() {}
export function message() {}
export function showDt() {}
export const methodHooks = { reply: null, stopped: null, replaced: null };
export function userNames() { return []; }

/** The page data's frame layout (views.shared, as the build embeds it) and a fresh page. */
export function configure(frameLayout, integrators) {
  data = { frameLayout, colors: {}, labels: {} };
  SCENE_LAYOUT = frameLayout.scene;
  COLUMNS = frameLayout.samples;
  INTEGRATORS = integrators;
  state.integrators = integrators.slice();
  models.clear();
  statusTexts.length = 0;
  energyViewsShown.length = 0;
}

/** A system as live.js keeps it, its layout applied (frames.js's applyLayout sets these). */
export function freshSystem(system, counts, scene = {}) {
  live.systems[system] = {
    simTime: 0, realTimeFactor: null, received: 0, layout: null, diverged: {}, lastStatus: 0,
    frames: 0, pending: {}, lastFlush: 0, alerts: [], stopped: false, dragging: false,
    viewDue: false, counts, scene, fresh: true,
  };
  return live.systems[system];
}

// plots.js's energy view (views.energy, carried by each frame): what frames.js hands over
export const energyViewsShown = [];
export const energyViews = {};
export function showEnergyView(system, view) { energyViewsShown.push([system, view]); }
export function noteEnergyView(system, view) {
  if (!view) return false;
  energyViews[system] = view;
  return true;
}
