// @ts-check
// Integrator Lab: the simulation worker of the static page (a module worker; the build bundles
// it with its modules, worker-boot.mjs and worker-watchdog.mjs, into one static/worker.mjs:
// web/site/page_bundle.py).
//
// A host of the page's engine, and nothing more: it boots Pyodide from the site's own pyodide/
// folder, unpacks the pure-Python core into site-packages (worker-boot.mjs), then passes the
// page's messages to Python's engine (integrator_lab.views.engine.Engine, made by the boot) and
// posts its answers, and runs the engine's clock (a tick every TICK_MS). Every decision (which
// message does what, the pacing with one frame in flight, the baked start's hand-off) is the
// engine's, the same in a Panel session. Every message, each way, with its fields and what it
// means: static/types/protocol.d.ts (PageMessage, WorkerMessage, and the watchdog port's
// ping/pong), checked by tsc in `make lint` on these files and on the page's side
// (static/js/worker.js). In short: the page sends "boot" first (with the watchdog's port:
// worker-watchdog.mjs), then "init", and then the visitor's changes and an "ack" for each frame
// it drew; this worker answers with "progress" while booting, "ready" (or "boot-error"), then
// what the engine says ("layout", "frame", "study", "geometry", "method", "error"). What stays
// here is what only JavaScript can do: the boot, the transfer of a frame's buffers, the
// watchdog's timing of each call into Python, and the download of the whole standard library
// for a user's method that imports beyond the trimmed one.

/** @import { PageMessage } from "./types/protocol" */

import { answerPing, timed, watchOn } from "./worker-watchdog.mjs";
import {
  FULL_STDLIB_GLOBAL, boot, lastLine, pageHasDrawn, post, realFetch, receiveBoot,
  reportBootError, timings,
} from "./worker-boot.mjs";

const TICK_MS = 1000 / 60; // the worker's own clock (views.engine.TICK)

/** @type {PyProxy | null} */
let engine = null; // the Python Engine (views.engine): every decision is its
/** @type {"snapshot" | "plain" | null} */
let bootPath = null; // "snapshot" or "plain", once booted
/** @type {string | null} */
let fallback = null; // why the snapshot was not used
/** @type {"lzma" | "gzip" | "inflated" | null} */
let packing = null; // how the wasm and the standard library came (worker-boot.mjs Packing)
/** @type {number | null} */
let timer = null;
/** @type {PageMessage[]} */
const pending = []; // messages received while booting

/** @param {PyProxy} proxy */
function toJs(proxy) {
  const value = proxy.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
  proxy.destroy();
  return value;
}

/** @param {PyProxy} target
 * @param {string} method
 * @param {...unknown} args */
function callOn(target, method, ...args) {
  const fn = target[method];
  try {
    const result = fn(...args);
    return result && typeof result.toJs === "function" ? toJs(result) : result;
  } finally {
    fn.destroy();
  }
}

/** Post the engine's answers; a frame's samples go as transferred buffers, "ready" with what
 * this worker measured of its boot.
 * @param {any[]} answers */
function send(answers) {
  for (const answer of answers) {
    if (answer.type === "ready") {
      timings.init = performance.now();
      Object.assign(answer, { timings, boot: bootPath, fallback, packing });
    }
    const transfer = answer.type === "frame"
      ? Object.values(answer.systems).map((frame) => frame.data.buffer) : [];
    post(answer, transfer);
  }
}

/** The engine's answers to one of the page's messages (as JSON: JavaScript's null is
 * Python's None, nothing is a proxy to destroy).
 * @param {PageMessage} message */
function handle(message) {
  if (message.type === "handoff") timings.handoff = performance.now();
  send(timed(() => callOn(/** @type {PyProxy} */ (engine), "handle_json",
                          JSON.stringify(message))));
  if (message.type === "ack" || message.type === "handoff") schedule();
}

// the engine's clock: a tick every TICK_MS, less the time the last one took
function tick() {
  const started = performance.now();
  try {
    send(timed(() => callOn(/** @type {PyProxy} */ (engine), "tick")));
  } catch (error) {
    post({ type: "error", text: lastLine(error) });
  }
  timer = setTimeout(tick, Math.max(0, TICK_MS - (performance.now() - started)));
}

// the engine answered at once (an acknowledged frame, the hand-off): the next tick a whole
// period later
function schedule() {
  clearTimeout(/** @type {number} */ (timer));
  timer = setTimeout(tick, TICK_MS);
}

/** @param {MessageEvent<PageMessage>} event */
self.onmessage = (event) => {
  if (event.data?.type === "boot") {
    watchOn(event.data.watch);
    // (the page asks for the bake only when the config names one: static/start.js)
    receiveBoot(event.data.boot, Boolean(event.data.bake), Boolean(event.data.controlled));
    return;
  }
  if (!engine) {
    if (event.data?.type === "init") pageHasDrawn();
    pending.push(event.data);
    return;
  }
  // a method that imports beyond the trimmed standard library waits for the whole one, and
  // what comes meanwhile waits behind it (pings are answered: the download is no hang)
  // (pings come on the watchdog's port; whatever comes here is passed on)
  if (/** @type {string} */ (event.data?.type) !== "ping" &&
      (wholeStdlib || needsWholeStdlib(event.data))) {
    waitingForStdlib.push(event.data);
    wholeStdlib ??= loadWholeStdlib().finally(() => {
      wholeStdlib = null;
      for (const message of waitingForStdlib.splice(0)) dispatch(message);
    });
    return;
  }
  dispatch(event.data);
};

/** @param {PageMessage} message */
function dispatch(message) {
  try {
    handle(message);
  } catch (error) {
    post({ type: "error", text: lastLine(error) });
  }
}

// -- the rest of the standard library, for a user's method (web/views/stdlib_guard.py) -----
/** @type {Promise<void> | null} */
let wholeStdlib = null; // its download, while messages wait for it
let wholeStdlibLoaded = false;
/** @type {PageMessage[]} */
const waitingForStdlib = [];

/** @param {string} method
 * @param {...unknown} args */
function stdlibGuard(method, ...args) {
  const guard = self.pyodide.pyimport("integrator_lab.views.stdlib_guard");
  try {
    return callOn(guard, method, ...args);
  } finally {
    guard.destroy();
  }
}

/** Whether `message` runs a user's method that imports what the trimmed library lacks.
 * @param {PageMessage} message */
function needsWholeStdlib(message) {
  const code = message?.type === "method" && message.definition?.kind === "python" &&
    message.definition.code;
  if (wholeStdlibLoaded || typeof code !== "string") return false;
  try {
    return stdlibGuard("missing", code).length > 0;
  } catch {
    return false; // the method's own run says what is wrong
  }
}

/** Download the whole standard library and put it on Python's path (never throws: without
 * it, the import itself says what is missing). */
async function loadWholeStdlib() {
  try {
    const response = await realFetch.call(self, self[FULL_STDLIB_GLOBAL]);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    self.pyodide.FS.writeFile(stdlibGuardPath(), bytes);
    stdlibGuard("add_whole_library");
    wholeStdlibLoaded = true;
  } catch (error) {
    console.info(`Integrator Lab: the whole standard library did not download (${error})`);
  }
}

function stdlibGuardPath() {
  const guard = self.pyodide.pyimport("integrator_lab.views.stdlib_guard");
  try {
    return guard.FULL_PATH;
  } finally {
    guard.destroy();
  }
}

boot().then(
  (booted) => {
    if (!booted) return; // a file failed: the page says which
    ({ live: engine, path: bootPath, fallback, packing } = booted);
    answerPing({}); // Python is up: the watchdog hears from this worker before its first call
    for (const message of pending.splice(0)) dispatch(message);
    // the page plays the bake: catch up with its end now, before it asks
    try {
      callOn(/** @type {PyProxy} */ (engine), "catch_up");
      timings.forwarded = performance.now();
    } catch (error) {
      post({ type: "error", text: lastLine(error) });
    }
    tick();
    // what this visit downloaded, for the page's service worker (static/js/offline.js)
    post({ type: "fetched", urls: performance.getEntriesByType("resource").map((e) => e.name) });
  },
  reportBootError,
);
