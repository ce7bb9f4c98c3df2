// @ts-check
// Integrator Lab page: the main thread's side of the simulation worker (static/worker.mjs):
// takes over the worker static/start.js created, receives its messages, sends it the state
// and widget changes, and draws its frames once per animation frame.

import { BOOT_SLOW_MS, INTEGRATORS } from "./data.js";
import { message, setLoading, bootAlert } from "./messages.js";
import { state, systemSettings } from "./urlstate.js";
import { live } from "./live.js";
import { applyLayout, keepSettings, flushDue, applyFrame } from "./frames.js";
import { bootFailed, bootSlow, workerFailed } from "./boot.js";
import { status } from "./status.js";
import { coreErrors } from "./params.js";
import { t, integratorName } from "./i18n.js";
import { methodHooks, userMethod, watchWanted } from "./method.js";
import { bakeWanted, BAKE_WAIT_MS, endBake, loadBake, playBake } from "./baked.js";
import { endProgress, noteQueued, showProgress } from "./progress.js";

/** @import { PageMessage, WorkerMessage, SimulationWorker, WorkerHandlers, PingMessage,
 *    PongMessage } from "../types/protocol" */

// -- the worker --------------------------------------------------------------------------
/** @type {SimulationWorker | null} */
export let worker = null;
// handlers of further message types, registered by the modules they concern (study.js)
/** @type {WorkerHandlers} */
export const handlers = new Map();
/** @type {PageMessage[]} */
const queued = []; // messages sent while the page decides on the baked start (before "init")
/** A new run of ``system`` with the page's settings: numbered, so that the answer to an
 * earlier request does not show settings the user has changed since (frames.js).
 * @param {string} system
 * @param {{integrators?: string[]}} [extra] */
export function configureSystem(system, extra = {}) {
  const entry = live.systems[system];
  entry.request += 1;
  send(Object.assign({ type: /** @type {const} */ ("configure"), system, request: entry.request },
    systemSettings(system), extra));
}

// the names the energy plot's marks show, in the page's language (Live.set_shown_names)
const shownNames = () => Object.fromEntries(INTEGRATORS.map((n) => [n, integratorName(n)]));
/** Tell the worker the integrators' names in the page's language (a display change only: no
 * run restarts, the baked start goes on). */
export function sendShownNames() {
  if (worker && workerBooted) worker.postMessage({ type: "names", names: shownNames() });
}

/** @param {PageMessage} msg */
export function send(msg) {
  if (!live.ready) noteQueued(); // the worker keeps it until Python is up: say so
  // a change ends the baked start: the worker goes on from the frame shown, with the change
  if (worker && workerBooted && endBake(msg)) return;
  // the worker queues messages while Python boots, so anything after "init" may go
  if (worker && workerBooted) worker.postMessage(msg);
  else if (worker && deciding) queued.push(msg);
}

// static/start.js created the worker before BokehJS loaded (it is the one place that does):
// take it over, with what it said meanwhile. From file:// start.js made none and said why.
export function startWorker() {
  const early = window.integratorLabEarly;
  if (!early) {
    bootFailed("static/start.js", "it did not run");
    return;
  }
  if (early.fileUrl) return;
  if (early.failure) {
    setLoading(`The simulation could not start: ${early.failure.message}`, true);
    return;
  }
  worker = /** @type {SimulationWorker} */ (early.worker); // (there is one: see above)
  // the baked frames are decoded as soon as they arrive, while BokehJS draws
  if (early.baked && bakeWanted()) {
    bakeLoading = loadBake(early.baked);
    bakeLoading.catch(() => {}); // said once the dashboard is drawn
  }
  adopt(worker);
  attach(worker);
  // what the worker said before this script ran
  for (const event of early.messages.splice(0)) worker.onmessage?.(event);
  for (const event of early.errors.splice(0)) worker.onerror?.(event);
  setTimeout(bootSlow, BOOT_SLOW_MS);
  setInterval(watch, PING_MS);
}

/** @param {SimulationWorker} target */
function attach(target) {
  let heard = false; // the worker posted a message: its own file loaded
  target.onerror = (event) => {
    if (!heard) {
      workerFailed(event, /** @type {string} */ (window.integratorLabEarly.workerUrl));
      return;
    }
    setLoading("The simulation worker failed (see the message at the top)", true);
    message(`The simulation worker failed: ${event.message || "unknown error"}`);
  };
  target.onmessage = (event) => {
    heard = true;
    receive(event.data);
  };
}

// -- the watchdog: user code that never returns -----------------------------------------
// Python cannot be interrupted from inside: while the user's method may be running, the page
// pings the worker, and one that stays silent too long is terminated and replaced by a new
// one (static/start.js; it boots from the snapshot) with the same settings, without the
// method. Only then: a page that runs the built-ins alone is never judged by its speed.
//
// The pings and their answers travel on a port of their own that user code cannot reach
// (static/worker.mjs says how): a forged answer cannot turn the watchdog off.
//
// Too long: a slow step is not an endless one, and a loaded machine is not a hung worker.
// - Silence is counted in this thread's own time: one round of this timer counts at most
//   SILENCE_STEP_MS, so a page that was itself held up (a long draw, a throttled CPU, a busy
//   machine) blames nobody for the time it lost.
// - The worker says how long its longest call into Python of the last seconds took (measured
//   by its own JavaScript, out of the user's reach): a worker whose slices take long (a slow
//   machine, a heavy study slice) gets SLOW_FACTOR times that before it is judged.
// - Until a new worker first answered: HANG_MAX_MS. While a definition is checked and
//   started (the user's module runs three times, every system is rebuilt: seconds on a loaded
//   machine): HANG_START_MS.
// - And, once the method runs, whatever was counted: HANG_REAL_MS of wall time without an
//   answer, so that an endless loop is stopped within seconds even when this thread is slow
//   itself (a CPU throttled 6x).
export const PING_MS = 100;
export const HANG_MS = 700;
const SILENCE_STEP_MS = 2 * PING_MS;
const SLOW_FACTOR = 2;
export const HANG_MAX_MS = 3000;
export const HANG_REAL_MS = 4500;
export const HANG_START_MS = 10000;
/** @type {MessagePort | null} */
let watchPort = null; // the page's end of the current worker's watchdog port
let workerUp = false; // the current worker said "ready"
let answered = false; // and it answered a ping since
let silence = 0; // ms of this thread's time since the last answer (see above), while watched
let lastWatch = 0; // performance.now() of the previous round of the timer
let lastAnswer = 0; // performance.now() of the last answer
let slowest = 0; // the worker's longest call into Python of late (ms), as it last said
let pingId = 0;
let starting = false; // a definition was being started at the last round
let longestRound = 0; // ms: the longest round of the timer since the last answer (a busy page)
// called when a worker was replaced (it stopped answering, or it was renewed: see
// renewWorker), with the reason: "hung" or "renewed"; study.js starts its studies again
/** @type {((why: "hung" | "renewed") => void)[]} */
export const replacedHooks = [];

/** How long the worker may stay silent now (ms of this thread's time, as counted above). */
export function hangLimit() {
  if (userMethod.sending) return HANG_START_MS;
  if (!answered) return HANG_MAX_MS;
  return Math.min(HANG_MAX_MS, Math.max(HANG_MS, SLOW_FACTOR * slowest));
}

/** No silence from `now` on (an answer, or nothing to watch). @param {number} now */
function heardAt(now) {
  silence = 0;
  lastAnswer = now;
  longestRound = 0;
}

function watch() {
  const now = performance.now();
  const round = lastWatch ? now - lastWatch : PING_MS;
  lastWatch = now;
  if (!worker || !watchPort || !workerUp || !workerBooted || !watchWanted()) {
    heardAt(now);
    return;
  }
  if (starting && !userMethod.sending) {
    // the worker answered the definition just now: the silence of its start is over (its
    // pongs may come a moment after its answer)
    heardAt(now);
  }
  starting = userMethod.sending;
  silence += Math.min(round, SILENCE_STEP_MS);
  longestRound = Math.max(longestRound, round);
  const stuck = !userMethod.sending && now - lastAnswer > HANG_REAL_MS;
  const limit = hangLimit();
  if (silence > limit || stuck) {
    // what the watchdog went by, for status() (a test that finds a stop late says why)
    live.lastHang = { silentMs: now - lastAnswer, countedMs: silence, limitMs: limit,
                      slowestMs: slowest, longestRoundMs: longestRound, byWallTime: stuck };
    replaceWorker("hung", now - lastAnswer);
    return;
  }
  pingId += 1;
  watchPort.postMessage(/** @satisfies {PingMessage} */ ({ type: "ping", id: pingId }));
}

/** @param {MessageEvent<PongMessage>} event */
function heard(event) {
  if (event.data?.type !== "pong") return;
  answered = true;
  heardAt(performance.now());
  slowest = Number(event.data.slowest) || 0;
}

/** @param {SimulationWorker} target */
function adopt(target) {
  watchPort = window.integratorLabEarly.watchPorts?.get(target) ?? null;
  if (watchPort) watchPort.onmessage = heard;
  workerUp = false;
  answered = false;
  silence = 0;
  slowest = 0;
}

/** A new worker, with the settings in force and no user method: "hung" (the old one stopped
 * answering for `silentMs`) or "renewed" (renewWorker).
 * @param {"hung" | "renewed"} why */
function replaceWorker(why, silentMs = 0) {
  worker?.terminate();
  watchPort?.close();
  if (why === "hung") live.restarts = (live.restarts || 0) + 1;
  const name = userMethod.name;
  userMethod.name = null;
  userMethod.info = null;
  userMethod.sending = false;
  userMethod.tainted = false;
  pendingFrame = null; // the old worker's: not to be acknowledged to the new one
  worker = window.integratorLabEarly.spawn();
  // the worker in charge, where start.js put the first one (what pings the worker finds it
  // there: the tests' settle, tests/site/pages.py)
  window.integratorLabEarly.worker = worker;
  adopt(worker);
  attach(worker);
  initWorker(); // the worker keeps it until Python is up again
  if (why === "hung" && methodHooks.replaced) methodHooks.replaced(name, silentMs);
  for (const hook of replacedHooks) hook(why);
}

/** A clean interpreter for the built-ins: the user's code ran in this worker and may have
 * changed anything in it (a built-in, the messages it posts), so a new worker from the
 * snapshot takes over before the method is removed or other code runs (editor.js). */
export function renewWorker() {
  if (!worker || !workerBooted) return;
  userMethod.renewals = (userMethod.renewals || 0) + 1;
  replaceWorker("renewed");
}

// bakedTicks: the page plays that many baked frames (baked.js) and hands over at one of them
function initWorker(bakedTicks = 0) {
  const systems = Object.fromEntries(state.systems.map((s) => [s, systemSettings(s)]));
  worker?.postMessage({
    type: "init", systems, integrators: state.integrators, speed: state.speed,
    names: shownNames(),
    playing: state.playing && !live.offscreen, // an embed out of view waits (embed.js)
    ...(bakedTicks ? { baked: bakedTicks } : {}),
  });
}

/** @type {Record<string, import("../types/protocol").Frame> | null} */
let pendingFrame = null; // the latest frame not drawn yet
let drawRequested = false;
/** @param {WorkerMessage} msg */
function receive(msg) {
  switch (msg.type) {
    case "progress":
      live.step = msg.step || null;
      if (!live.notice) setLoading(msg.key ? t(msg.key) : msg.text);
      showProgress(msg);
      break;
    case "boot-error":
      bootFailed(msg.file, msg.detail);
      endProgress();
      break;
    case "ready":
      workerUp = true;
      performance.mark("il:worker-ready");
      live.ready = true;
      live.notice = null;
      bootAlert("");
      live.workerTimings = msg.timings || {};
      live.boot = msg.boot; // "snapshot" or "plain" (then msg.fallback says why)
      live.bootFallback = msg.fallback ?? null;
      live.packing = msg.packing ?? null; // "lzma" (a slow link), "gzip" or "inflated"
      /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".il-loading"))
        .forEach((el) => { el.hidden = true; });
      endProgress();
      break;
    case "layout":
      if (!msg.layout) { // refused settings: the old run goes on
        keepSettings(msg.system, msg.kept, coreErrors(msg.errors, msg.refused), msg.request);
        break;
      }
      if (pendingFrame) delete pendingFrame[msg.layout.system]; // a frame of the old run
      applyLayout(msg.layout, coreErrors(msg.errors, msg.refused), msg.request);
      break;
    case "frame":
      live.source = "worker";
      pendingFrame = msg.systems;
      if (!drawRequested) {
        drawRequested = true;
        requestAnimationFrame(draw);
      }
      break;
    case "error":
      message(t("msg.simulation", { text: msg.text }));
      break;
    case "baked": // the baked frames' download (static/start.js asked for it)
      window.integratorLabEarly.bakedArrived?.(msg);
      break;
    case "method":
      if (methodHooks.reply) methodHooks.reply(msg);
      break;
    default:
      handlers.get(msg.type)?.(msg);
      break;
  }
}

// "init" goes once Bokeh has drawn (the widgets hold the state) and the worker exists.
let bokehReady = false;
let workerBooted = false;
let deciding = false; // waiting for the baked frames, to know what "init" says
/** @type {ReturnType<typeof loadBake> | null} */
let bakeLoading = null; // the baked frames being decoded (baked.js), if this page may play them
function maybeInit(bakedTicks = 0) {
  if (bokehReady && worker && !workerBooted) {
    workerBooted = true;
    initWorker(bakedTicks);
  }
}

function draw() {
  drawRequested = false;
  const frame = pendingFrame;
  pendingFrame = null;
  if (frame) {
    live.framesDrawn += 1;
    live.holding = false; // the worker took over from the baked frames
    for (const [system, f] of Object.entries(frame)) applyFrame(system, f);
    flushDue();
    if (!live.marked && status().ready) {
      live.marked = true; // the "il:live" performance mark is set (first frame everywhere)
      performance.mark("il:live");
    }
    if (worker) worker.postMessage({ type: "ack" });
  }
}

// The dashboard is drawn: the worker may have its "init" (it buffers it until Python is up).
// On the view the build baked, the page first animates the baked frames (baked.js), and "init"
// tells the worker so. A baked file that is missing, corrupt or late means today's start.
export function dashboardDrawn() {
  bokehReady = true;
  if (!bakeLoading || !worker || !bakeWanted()) {
    maybeInit();
    return;
  }
  deciding = true;
  /** @type {number | null} */
  let timer = null;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not there ${BAKE_WAIT_MS} ms after the first draw`)),
      BAKE_WAIT_MS);
  });
  Promise.race([bakeLoading, late]).then((bake) => {
    // a change meanwhile (`queued`) or another view: no baked start
    if (queued.length || !bakeWanted(bake.header.view)) {
      maybeInit();
      return;
    }
    playBake(bake, (frame, then) => worker?.postMessage({ type: "handoff", frame, then }));
    maybeInit(bake.header.ticks);
  }, (error) => {
    console.info(`Integrator Lab: no baked frames (${error?.message ?? error}); ` +
      "the animation starts with Python");
    maybeInit();
  }).finally(() => {
    clearTimeout(/** @type {number} */ (timer));
    deciding = false;
    for (const msg of queued.splice(0)) worker?.postMessage(msg);
  });
}
