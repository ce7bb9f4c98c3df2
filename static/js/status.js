// Integrator Lab page: its public API, window.integratorLab (status(), state, link, samples,
// model), used by the tests, the benchmarks and anyone scripting the page.

import { COLUMNS } from "./data.js";
import { linkFor, state } from "./urlstate.js";
import { live } from "./live.js";
import { findModel, model } from "./models.js";
import { sampleSource, energyMode, energyViews } from "./plots.js";
import { frameHooks } from "./frames.js";
import { userMethod, userNames } from "./method.js";
import { bakeStatus } from "./baked.js";
import { everyPartDrawn } from "./documents.js";
import { layoutStatus } from "./layout.js";
import { progress } from "./progress.js";
import { offline } from "./offline.js";
import { applyInPlace } from "./scenarios.js";

// -- public API --------------------------------------------------------------------------
export function status() {
  const systems = {};
  for (const system of state.systems) {
    const entry = live.systems[system];
    const integrators = {};
    // (the API is published before the dashboard is embedded: its plots are not there yet)
    const embedded = window.Bokeh !== undefined && findModel(`${system}:energy:y`) !== null;
    for (const name of embedded ? [...state.integrators, ...userNames()] : []) {
      const source = sampleSource(system, name).data;
      const samples = source.t.length;
      const at = entry.diverged[name];
      // the last plotted signed relative energy error (negative: energy lost)
      const errors = source.error || [];
      const energyError = errors.length ? errors[errors.length - 1] : null;
      integrators[name] = { samples, divergedAt: at === undefined ? null : at, energyError };
    }
    systems[system] = {
      simTime: entry.simTime, realTimeFactor: entry.realTimeFactor, received: entry.received,
      dt: entry.layout ? entry.layout.dt : null, // the running simulation's step (s)
      integrators, stopped: entry.stopped,
      error: entry.alerts.length ? entry.alerts.join(" ") : null,
      energy: embedded ? energyStatus(system) : null,
    };
  }
  const ready = live.ready && state.systems.every((s) => live.systems[s].frames > 0);
  // running: stepping now (playing, and, for an embed, in view: embed.js)
  return { ready, error: live.error, notice: live.notice,
           running: state.playing && !live.offscreen, offscreen: live.offscreen,
           framesDrawn: live.framesDrawn, restarts: live.restarts, workerTimings: live.workerTimings,
           lastHang: live.lastHang ?? null, // what the watchdog went by when it last stopped one
           boot: live.boot ?? null, bootFallback: live.bootFallback ?? null,
           packing: live.packing ?? null, systems,
           allDrawn: everyPartDrawn(), // the parts out of sight too (documents.js)
           method: methodStatus(), progress: { ...progress }, offline: { ...offline },
           ...bakeStatus(),
           // each shown system's scene and energy plotting area: [x, y, w, h] (layout.js)
           layout: layoutStatus() };
}

// the energy view (views.energy): its mode, the y-range drawn (the plot's units: a relative
// error on the linear view, log10 of one on the log view, joules in the breakdown) and the
// methods clipped at its edge, with the latest value each
function energyStatus(system) {
  const view = energyViews[system];
  const mode = energyMode();
  const range = model(`${system}:energy:y`);
  const clipped = view && mode === "linear"
    ? view.clipped.text.map((text, i) => ({ name: view.clipped.name[i], text, y: view.clipped.y[i] }))
    : [];
  return { mode, yRange: [range.start, range.end], clipped,
           followed: view ? view.followed : null };
}

// the user's own method (static/js/editor.js): what runs, what the core said, when
function methodStatus() {
  const info = userMethod.info;
  return {
    name: userMethod.name, order: info ? info.order : null,
    orderText: info ? info.order_text : null, problems: userMethod.problems.slice(),
    sentAt: userMethod.sentAt, answeredAt: userMethod.answeredAt,
    replacedAt: userMethod.replacedAt,
    renewals: userMethod.renewals, // new workers for a clean interpreter (editor.js)
  };
}

// main.js calls this first: the API is there before anything is drawn
export function publishApi() {
  window.integratorLab = {
    status,
    /** the page state (what the URL query holds), as plain data */
    state: () => JSON.parse(JSON.stringify(state)),
    /** a link to this view */
    link: () => linkFor(state),
    /** a copy of the samples the page holds for one integrator: {column: [values]} */
    samples: (system, name) => {
      const data = sampleSource(system, name).data;
      return Object.fromEntries(COLUMNS.map((c) => [c, Array.from(data[c] || [])]));
    },
    /** the Bokeh model called `name` (see integrator_lab.views.figures.model_name) */
    model,
    /** fn(system, time, source) after every frame a system draws; source: "baked" (the
     * build's first seconds, static/js/baked.js) or "worker" */
    onFrame: (fn) => { frameHooks.push(fn); },
    /** the view of a link query (`?systems=...`), in place, as a lesson applies it (the
     * language, the study view and an embed stay); resolves once every shown system drew its
     * new run */
    apply: applyInPlace,
  };
}
