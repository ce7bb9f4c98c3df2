// Integrator Lab page: the main thread's side of the simulation worker (static/worker.mjs):
// takes over the worker static/start.js created, receives its messages, sends it the state
// and widget changes, and draws its frames once per animation frame.

import { BOOT_SLOW_MS } from "./data.js";
import { message, setLoading, bootAlert } from "./messages.js";
import { state, systemSettings } from "./urlstate.js";
import { live } from "./live.js";
import { applyLayout, keepSettings, flushDue, applyFrame } from "./frames.js";
import { bootFailed, bootSlow, workerFailed } from "./boot.js";
import { status } from "./status.js";
import { coreErrors } from "./params.js";
import { t } from "./i18n.js";
import { methodHooks, userMethod, watchWanted } from "./method.js";
import { bakeWanted, BAKE_WAIT_MS, endBake, loadBake, playBake } from "./baked.js";
import { endProgress, noteQueued, showProgress } from "./progress.js";

// -- the worker --------------------------------------------------------------------------
export let worker = null;
// handlers of further message types, registered by the modules they concern (study.js)
export const handlers = new Map();
const queued = []; // messages sent while the page decides on the baked start (before "init")
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
  worker = early.worker;
  // the baked frames are decoded as soon as they arrive, while BokehJS draws
  if (early.baked && bakeWanted()) {
    bakeLoading = loadBake(early.baked);
    bakeLoading.catch(() => {}); // said once the dashboard is drawn
  }
  attach(worker);
  // what the worker said before this script ran
  for (const event of early.messages.splice(0)) worker.onmessage(event);
  for (const event of early.errors.splice(0)) worker.onerror(event);
  setTimeout(bootSlow, BOOT_SLOW_MS);
  setInterval(watch, PING_MS);
}

function attach(target) {
  let heard = false; // the worker posted a message: its own file loaded
  target.onerror = (event) => {
    if (!heard) {
      workerFailed(event);
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
// pings the worker, and one that has not answered for HANG_MS is terminated and replaced by a
// new one (static/start.js; it boots from the snapshot) with the same settings, without the
// method. Only then: a page that runs the built-ins alone is never judged by its speed.
export const PING_MS = 100;
export const HANG_MS = 700;
let pingSent = 0; // performance.now() of the oldest ping not answered, 0 if none
let pingId = 0;
function watch() {
  if (!worker || !live.ready || !workerBooted || !watchWanted()) {
    pingSent = 0;
    return;
  }
  const now = performance.now();
  if (pingSent && now - pingSent > HANG_MS) {
    replaceWorker(now - pingSent);
    return;
  }
  if (!pingSent) pingSent = now;
  pingId += 1;
  worker.postMessage({ type: "ping", id: pingId });
}

function replaceWorker(silentMs) {
  worker.terminate();
  pingSent = 0;
  live.restarts = (live.restarts || 0) + 1;
  const name = userMethod.name;
  userMethod.name = null;
  userMethod.info = null;
  userMethod.sending = false;
  pendingFrame = null; // the old worker's: not to be acknowledged to the new one
  worker = window.integratorLabEarly.spawn();
  attach(worker);
  initWorker(); // the worker keeps it until Python is up again
  if (methodHooks.replaced) methodHooks.replaced(name, silentMs);
}

// bakedTicks: the page plays that many baked frames (baked.js) and hands over at one of them
function initWorker(bakedTicks = 0) {
  const systems = Object.fromEntries(state.systems.map((s) => [s, systemSettings(s)]));
  worker.postMessage({
    type: "init", systems, integrators: state.integrators, speed: state.speed,
    playing: state.playing && !live.offscreen, // an embed out of view waits (embed.js)
    ...(bakedTicks ? { baked: bakedTicks } : {}),
  });
}

let pendingFrame = null; // the latest frame not drawn yet
let drawRequested = false;
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
      performance.mark("il:worker-ready");
      live.ready = true;
      live.notice = null;
      bootAlert("");
      live.workerTimings = msg.timings || {};
      live.boot = msg.boot; // "snapshot" or "plain" (then msg.fallback says why)
      live.bootFallback = msg.fallback ?? null;
      document.querySelectorAll(".il-loading").forEach((el) => { el.hidden = true; });
      endProgress();
      break;
    case "layout":
      if (!msg.layout) { // refused settings: the old run goes on
        keepSettings(msg.system, msg.kept, coreErrors(msg.errors, msg.refused));
        break;
      }
      if (pendingFrame) delete pendingFrame[msg.layout.system]; // a frame of the old run
      applyLayout(msg.layout, coreErrors(msg.errors, msg.refused));
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
    case "pong":
      pingSent = 0;
      break;
    case "method":
      pingSent = 0;
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
    playBake(bake, (frame, then) => worker.postMessage({ type: "handoff", frame, then }));
    maybeInit(bake.header.ticks);
  }, (error) => {
    console.info(`Integrator Lab: no baked frames (${error?.message ?? error}); ` +
      "the animation starts with Python");
    maybeInit();
  }).finally(() => {
    clearTimeout(timer);
    deciding = false;
    for (const msg of queued.splice(0)) worker.postMessage(msg);
  });
}
