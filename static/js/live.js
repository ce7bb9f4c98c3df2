// Integrator Lab page: what the page knows about the running simulation (for status() and
// the boot messages), and each panel's status line.

import { SYSTEMS, TEXTS } from "./data.js";
import { state } from "./urlstate.js";

// -- live bookkeeping for status() -------------------------------------------------------
export const live = {
  ready: false,
  error: null, // why the simulation could not start (text), shown at the top
  notice: null, // the boot is slow (text)
  step: null, // what the worker is loading (files of the site)
  framesDrawn: 0, // animation frames that showed new simulation data
  systems: Object.fromEntries(SYSTEMS.map((s) => [s, {
    simTime: 0, realTimeFactor: null, received: 0, layout: null, diverged: {},
    lastStatus: 0, frames: 0, pending: {}, lastFlush: 0, alerts: [], stopped: false,
    dragging: false, // a body of this system is being dragged (drag.js)
  }])),
};

// the texts of views.shared, filled as its status_text / diverged_text do
const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, k) => values[k]);
export function divergedText(name, at) {
  return fill(TEXTS.diverged,
    { name, at: Number(at.toPrecision(TEXTS.digits.at)).toString() });
}
export function setStatusText(system, time, rtf) {
  const t = time.toFixed(TEXTS.digits.time);
  const shown = rtf === null ? TEXTS.noRate : rtf.toFixed(TEXTS.digits.rtf);
  // plain text outside Bokeh: a Bokeh Div would re-lay the panel out at every update
  document.getElementById(`il-status-${system}`).textContent =
    live.systems[system].stopped ? fill(TEXTS.stopped, { time: t })
      : state.playing ? fill(TEXTS.status, { time: t, rtf: shown })
        : fill(TEXTS.paused, { time: t }); // paused: no rate to speak of
}
