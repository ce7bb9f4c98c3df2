// @ts-check
// Integrator Lab page: what the page knows about the running simulation (for status() and
// the boot messages), and each panel's status line.

import { SYSTEMS, TEXTS } from "./data.js";
import { t, integratorName } from "./i18n.js";
import { state } from "./urlstate.js";

// -- live bookkeeping for status() -------------------------------------------------------
/** @type {{ready: boolean, error: string | null, notice: string | null, step: string | null,
 *    framesDrawn: number, restarts: number, offscreen: boolean, source: "baked" | "worker" | null,
 *    holding: boolean, marked: boolean, systems: Record<string, LiveSystem>,
 *    workerTimings?: Record<string, number>, boot?: "snapshot" | "plain" | null,
 *    bootFallback?: string | null, packing?: "lzma" | "gzip" | "inflated" | null,
 *    lastHang?: Record<string, number | boolean>}} */
export const live = {
  ready: false,
  error: null, // why the simulation could not start (text), shown at the top
  notice: null, // the boot is slow (text)
  step: null, // what the worker is loading (files of the site)
  framesDrawn: 0, // animation frames that showed new simulation data
  restarts: 0, // workers replaced because they stopped answering (user code)
  offscreen: false, // an embedded demo scrolled out of view: paused (embed.js)
  source: null, // where the frames drawn come from: "baked" (baked.js) or "worker"
  holding: false, // the baked frames ended; the worker's first frame has not come yet
  marked: false, // the "il:live" performance mark is set (first frame in every panel)
  systems: Object.fromEntries(SYSTEMS.map((s) => [s, {
    simTime: 0, realTimeFactor: null, received: 0, layout: null, diverged: {},
    lastStatus: 0, frames: 0, pending: {}, lastFlush: 0, alerts: [], stopped: false,
    viewDue: false, // a frame's energy view waits for the next flush of samples (frames.js)
    dragging: false, // a body of this system is being dragged (drag.js)
    // its settings as the user left them are not the worker's yet: a change waits for its
    // debounce (editing), or the answer to an earlier request is still on its way (request:
    // the number of the last one sent, worker.js configureSystem)
    editing: false, request: 0,
    refusals: 0, // settings the worker refused, keeping the run in force (frames.js)
  }])),
};

/** @typedef {{simTime: number, realTimeFactor: number | null, received: number, layout: any,
 *    diverged: Record<string, number>, lastStatus: number, frames: number,
 *    pending: Record<string, any>, lastFlush: number, alerts: string[], stopped: boolean,
 *    viewDue: boolean,
 *    dragging: boolean, editing: boolean, request: number, refusals: number,
 *    scene?: Record<string, any>,
 *    fresh?: boolean, counts?: Record<string, number>}} LiveSystem */

// the texts of views.shared (STATUS_TEXT and kin; in the page's language: views.i18n), their
// numbers with its TEXT_DIGITS
/** @param {string} name  @param {number} at */
export function divergedText(name, at) {
  return t("status.diverged", { name: integratorName(name), at: Number(at.toPrecision(TEXTS.digits.at)).toString() });
}
/** @param {string} system  @param {number} time  @param {number | null} rtf */
export function setStatusText(system, time, rtf) {
  const shownTime = time.toFixed(TEXTS.digits.time);
  const shown = rtf === null ? TEXTS.noRate : rtf.toFixed(TEXTS.digits.rtf);
  // plain text outside Bokeh: a Bokeh Div would re-lay the panel out at every update
  /** @type {HTMLElement} */ (document.getElementById(`il-status-${system}`)).textContent =
    live.systems[system].stopped ? t("status.stopped", { time: shownTime })
      // the baked frames ran out before Python was up (baked.js): the picture holds
      : live.holding && !live.ready && !live.error ? t("status.starting", { time: shownTime })
      : state.playing && !live.offscreen ? t("status.running", { time: shownTime, rtf: shown })
        : t("status.paused", { time: shownTime }); // paused: no rate to speak of
}
