// Integrator Lab page: applying what the worker sends: a system's layout (after a start or a
// reset) and its frames (scene, samples in batches, divergence marks, alerts, status).

import { data, DEFAULTS, INTEGRATORS, ROLLOVER, COLUMNS, SCENE_LAYOUT, STATUS_INTERVAL_MS,
  STREAM_INTERVAL_MS } from "./data.js";
import { t, integratorName } from "./i18n.js";
import { onLanguage } from "./localize.js";
import { message } from "./messages.js";
import { state, saveState } from "./urlstate.js";
import { live, divergedText, setStatusText } from "./live.js";
import { model, quietly } from "./models.js";
import { showDt } from "./params.js";
import { energyViews, noteEnergyView, sampleSource, showEnergyView } from "./plots.js";
import { methodHooks, userNames } from "./method.js";

// -- applying what the worker sends ------------------------------------------------------
// an answer to a request older than the user's last change (worker.js configureSystem): the
// run it describes is shown, but the fields keep what the user set (its answer follows)
function superseded(system, request) {
  const entry = live.systems[system];
  return entry.editing || (request !== undefined && request < entry.request);
}

export function applyLayout(layout, errors, request) {
  const system = layout.system;
  const stale = superseded(system, request);
  for (const text of errors) message(text); // whole sentences (views.live.Live)
  const entry = live.systems[system];
  // the user's method is in no table of the build: its colour and label come with it
  Object.assign(data.colors, layout.colors || {});
  Object.assign(data.labels, layout.labels || {});
  entry.layout = layout;
  entry.diverged = {};
  entry.received = 0;
  entry.simTime = 0;
  entry.realTimeFactor = null;
  entry.stopped = false;
  showAlerts(system, []);
  // what the worker runs is the truth (it falls back to defaults on invalid input)
  showRecommendedDt(system, layout.dt, layout.recommended_dt);
  if (!stale) {
    state.params[system] = Object.assign({}, layout.params);
    state.dt[system] = layout.dt;
    showDt(system, layout.dt, layout.recommended_dt);
    quietly(() => {
      for (const [name, value] of Object.entries(layout.params)) {
        model(`${system}:param:${name}`).value = value;
      }
    });
    saveState();
  }
  entry.scene = {};
  for (const [role, columns] of SCENE_LAYOUT) {
    // static columns (colours, sizes, ...) stay; the moving ones wait for the first frame
    entry.scene[role] = withAbouts(layout[role] || {});
    const next = Object.assign({}, entry.scene[role]);
    for (const c of columns) next[c] = new Array(layout.counts[role]).fill(NaN);
    model(`${system}:scene:${role}`).data = next;
  }
  showLaneLabels(system);
  model(`${system}:scene:status`).data = { x: [], y: [], text: [], color: [], integrator: [] };
  const xr = model(`${system}:scene:x_range`);
  const yr = model(`${system}:scene:y_range`);
  xr.setv({ start: layout.x_range[0], end: layout.x_range[1] });
  yr.setv({ start: layout.y_range[0], end: layout.y_range[1] });
  const curve = layout.exact_curve || { q: [], v: [] };
  model(`${system}:phase:exact`).data = { q: Array.from(curve.q), v: Array.from(curve.v) };
  // the next frame replaces the samples (an empty source would break a log axis)
  entry.fresh = true;
  entry.counts = layout.counts;
  setStatusText(system, 0, null);
}

// The bodies' hover texts (the "about" column, views.scene's English) in the page's language
function withAbouts(columns) {
  if (!columns.about || !columns.integrator) return columns;
  const about = Array.from(columns.integrator, (name, i) =>
    (INTEGRATORS.includes(name) ? t(`about.${name}`) : columns.about[i]));
  return Object.assign({}, columns, { about });
}
onLanguage(() => {
  for (const [system, entry] of Object.entries(live.systems)) {
    for (const role of Object.keys(entry.scene || {})) {
      entry.scene[role] = withAbouts(entry.scene[role]);
      const source = model(`${system}:scene:${role}`);
      if (entry.scene[role].about && source.data.about) {
        source.data = Object.assign({}, source.data, { about: entry.scene[role].about });
      }
    }
  }
});

// The scenes drawn at build time show the default integrators and parameters. A system the
// URL sets otherwise shows none of them (its lanes, bodies, pivots would be the wrong ones):
// its scene stays empty, under its loading note, until the worker's first layout.
export function clearStaleScenes() {
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  for (const system of state.systems) {
    const params = state.params[system];
    const defaults = DEFAULTS.params[system];
    if (same(state.integrators, DEFAULTS.integrators) &&
        Object.keys(params).every((name) => params[name] === defaults[name])) continue;
    for (const role of [...SCENE_LAYOUT.map(([r]) => r), "fixtures", "status"]) {
      const source = model(`${system}:scene:${role}`);
      source.data = Object.fromEntries(Object.keys(source.data).map((c) => [c, []]));
    }
  }
}

// The worker refused new settings and goes on with the ones in force (views.live.Live, as the
// Panel server does): say why, and show those settings again.
export function keepSettings(system, kept, errors, request) {
  live.systems[system].refusals += 1;
  for (const text of errors) message(text);
  if (superseded(system, request)) return; // a newer request is on its way
  state.params[system] = Object.assign({}, kept.params);
  state.dt[system] = kept.dt;
  showDt(system, kept.dt);
  quietly(() => {
    for (const [name, value] of Object.entries(kept.params)) {
      model(`${system}:param:${name}`).value = value;
    }
  });
  saveState();
}

// The step a system recommends depends on its parameters (a stiffer cradle contact is
// shorter): the dt field says so, and says it loudly when dt is much coarser than that.
function showRecommendedDt(system, dt, recommended) {
  if (!(recommended > 0)) return;
  const widget = model(`${system}:dt`);
  const coarse = dt > 1.5 * recommended;
  const title = coarse ? t("dt.title.coarse", { recommended }) : t("dt.title");
  const description = t("dt.tip",
    { recommended, lo: data.dtRange[0], hi: data.dtRange[1] });
  quietly(() => {
    if (widget.title !== title) widget.title = title;
    if (widget.description !== description) widget.description = description;
  });
}

function showDiverged(system) {
  const diverged = live.systems[system].diverged;
  const names = Object.keys(diverged);
  model(`${system}:scene:status`).data = {
    x: names.map(() => 8), y: names.map((_, k) => 8 + 18 * k),
    text: names.map((n) => divergedText(n, diverged[n])),
    color: names.map((n) => data.colors[n] || "#555555"),
    integrator: names,
  };
}
// each lane labelled with its integrator's name in the page's language (the build labels them
// in English: figures.SystemFigures.apply_scene)
function showLaneLabels(system) {
  const fixtures = live.systems[system].layout?.fixtures;
  if (!fixtures) return;
  model(`${system}:scene:fixtures`).data = { ...fixtures,
    label: fixtures.integrator.map(integratorName) };
}
// The texts a system's frames wrote, in the language chosen since (localize.js calls this)
export function relabelSystem(system) {
  const entry = live.systems[system];
  if (entry.layout) {
    showRecommendedDt(system, state.dt[system], entry.layout.recommended_dt);
    showDt(system, state.dt[system], entry.layout.recommended_dt);
  } else quietly(() => { model(`${system}:dt`).title = t("dt.title"); });
  if (Object.keys(entry.diverged).length) showDiverged(system);
  showLaneLabels(system);
  setStatusText(system, entry.simTime, entry.realTimeFactor);
}

// Streaming into a line re-processes all of its points, so the energy and phase plots
// take new samples in batches: at most one system per animation frame, each about every
// STREAM_INTERVAL_MS, and the energy plot's range and clipped marks with them (the latest
// energy view: set at every frame, they repainted every energy plot at every frame). The
// animation itself moves every frame.
function flushSamples(system) {
  const entry = live.systems[system];
  for (const [name, columns] of Object.entries(entry.pending)) {
    if (columns.t.length) sampleSource(system, name).stream(columns, ROLLOVER);
  }
  entry.pending = {};
  entry.lastFlush = performance.now();
  if (entry.viewDue) showEnergyView(system, energyViews[system]);
  entry.viewDue = false;
}
export function flushDue() {
  const now = performance.now();
  let oldest = null;
  for (const system of state.systems) {
    const entry = live.systems[system];
    if (!Object.keys(entry.pending).length && !entry.viewDue) continue;
    if (!state.playing) flushSamples(system); // a step or a reset: show it at once
    else if (now - entry.lastFlush >= STREAM_INTERVAL_MS &&
             (!oldest || entry.lastFlush < live.systems[oldest].lastFlush)) oldest = system;
  }
  if (oldest) flushSamples(oldest);
}

// What failed in one system (it stopped, or its exact solution did), on its own panel:
// the other systems go on.
function showAlerts(system, alerts) {
  const entry = live.systems[system];
  const text = alerts.join(" ");
  if (text === entry.alerts.join(" ")) return;
  entry.alerts = alerts.slice();
  const el = document.getElementById(`il-alert-${system}`);
  el.textContent = text;
  el.hidden = !text;
}

// called with (system, time, source) after each frame a system draws (status.js's onFrame)
export const frameHooks = [];

// `scene`: false for a frame the next one replaces before the browser draws (baked frames
// caught up with in one animation frame): its samples go to the plots, its picture nowhere.
export function applyFrame(system, f, scene = true) {
  const entry = live.systems[system];
  if (!entry.counts || entry.dragging) return; // a dragged body shows the pointer's state
  showAlerts(system, f.alerts || []);
  if (f.failed) { // the system stopped: its picture and plots stay as they were
    entry.stopped = true;
    entry.frames += 1;
    entry.simTime = f.time;
    entry.realTimeFactor = null;
    setStatusText(system, f.time, null);
    return;
  }
  const d = f.data;
  let at = 0;
  const take = (n) => { const part = d.subarray(at, at + n); at += n; return part; };
  // every moving renderer costs the page a repaint and a restyle per frame: leave out
  // the empty ones and the hidden ghost
  for (const [role, columns] of SCENE_LAYOUT) {
    const n = entry.counts[role];
    const shown = scene && n > 0 && (state.exact || !role.startsWith("ghost"));
    if (!shown) {
      at += n * columns.length;
      continue;
    }
    const next = Object.assign({}, entry.scene[role]);
    for (const c of columns) next[c] = take(n).slice();
    model(`${system}:scene:${role}`).data = next;
    // the greyed (diverged) and edge-arrow renderers draw from the same source: while no
    // body diverged or left its lane they have nothing to show, and hidden cost nothing
    const extras = data.frameLayout.extras[role]; // views.shared.SCENE_EXTRAS
    if (extras) {
      for (const [column, name] of extras) {
        const wanted = next[column] !== undefined && next[column].some(Number.isFinite);
        const renderer = model(`${system}:scene:${name}`);
        if (renderer.visible !== wanted) renderer.visible = wanted;
      }
    }
  }
  for (const [name, count] of f.lanes) {
    if (entry.fresh) {
      const columns = {};
      for (const c of COLUMNS) columns[c] = Array.from(take(count));
      sampleSource(system, name).data = columns;
    } else if (count) {
      // samples wait here and reach the plot in batches (see flushSamples)
      const pending = entry.pending[name] || (entry.pending[name] = Object.fromEntries(
        COLUMNS.map((c) => [c, []])));
      for (const c of COLUMNS) pending[c].push(...take(count));
    }
    entry.received += count;
  }
  // the y-range and clipped marks (views.energy): with the samples they describe, at once
  // for those that replaced the plot's
  if (noteEnergyView(system, f.energy)) entry.viewDue = true;
  if (entry.fresh) {
    entry.pending = {};
    if (entry.viewDue) showEnergyView(system, energyViews[system]);
    entry.viewDue = false;
  }
  entry.fresh = false;
  entry.frames += 1;
  entry.simTime = f.time;
  entry.realTimeFactor = f.rtf === undefined ? null : f.rtf;
  const diverged = f.diverged || {};
  const shown = [...state.integrators, ...userNames()];
  const names = Object.keys(diverged).filter((n) => shown.includes(n));
  for (const name of userNames()) {
    if (name in diverged && !(name in entry.diverged) && methodHooks.stopped) {
      methodHooks.stopped(system, name, diverged[name], (f.reasons || {})[name] || "");
    }
  }
  if (names.length !== Object.keys(entry.diverged).length) {
    entry.diverged = Object.fromEntries(names.map((n) => [n, diverged[n]]));
    showDiverged(system);
  }
  const now = performance.now();
  if (now - entry.lastStatus > STATUS_INTERVAL_MS) {
    entry.lastStatus = now;
    setStatusText(system, f.time, entry.realTimeFactor);
  }
  for (const hook of frameHooks) hook(system, f.time, live.source);
}
