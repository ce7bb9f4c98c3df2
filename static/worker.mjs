// @ts-check
// Integrator Lab: the simulation worker of the static page (a module worker; the build bundles
// it with its modules, worker-boot.mjs and worker-watchdog.mjs, into one static/worker.mjs:
// web/site/page_bundle.py).
//
// Boots Pyodide from the site's own pyodide/ folder, unpacks the pure-Python core into
// site-packages (worker-boot.mjs), and runs integrator_lab.views.live on its own clock. The
// page and this worker talk by messages only. Every message, each way, with its fields and
// what it means: static/types/protocol.d.ts (PageMessage, WorkerMessage, and the watchdog
// port's ping/pong), checked by tsc in `make lint` on these files and on the page's side
// (static/js/worker.js). In short: the page sends "boot" first (with the watchdog's port:
// worker-watchdog.mjs), then "init", and then the visitor's changes ("configure",
// "integrators", "speed", "play", "step", "reset", "hold", "study", "method", "names",
// "geometry", ...) and an "ack" for each frame it drew; this worker answers with "progress"
// while booting, "ready" (or "boot-error"), then "layout", "frame", "study", "geometry",
// "method" and "error" messages; on the private port, "ping" and "pong".
//
// The baked start: the page animates the default view's first seconds, computed at build time
// by the same Python (views.live.Live.baked_tick), while this worker boots. Once up, the worker
// computes those frames again, as fast as it can and without posting them, up to the bake's
// end (Live.forward), and waits; at "handoff" it goes back to the frame the page showed last
// if that was earlier, and from there ticks on its own clock: its first frame's samples follow
// the last baked sample, with no seam.
//
// At most one frame is in flight: until the page acknowledges it, ticks go on and their
// samples wait in the runners' bounded buffers, so a slow page never queues work.

/** @import { PageMessage, StudyMessage, GeometryMessage } from "./types/protocol" */

import { answerPing, timed, watchOn } from "./worker-watchdog.mjs";
import {
  FULL_STDLIB_GLOBAL, boot, lastLine, pageHasDrawn, post, realFetch, receiveBoot,
  reportBootError, timings,
} from "./worker-boot.mjs";

const TICK_MS = 1000 / 60; // the worker's own clock
// a running study (views.study) takes this much of each tick, after the live view's share:
// the live view stays smooth and the study still finishes in seconds
const STUDY_SLICE_S = 0.006;
const STALL_MS = 1000; // a frame unacknowledged this long: the page is hidden, stop

/** @type {PyProxy | null} */
let live = null; // the Python Live object
/** @type {PyProxy | null} */
let studies = null; // the Python Studies object, made at the first study
/** @type {PyProxy | null} */
let geometries = null; // the Python Geometries object, made when a geometry view opens
let geometryDue = 0;
const GEOMETRY_PERIOD_MS = 100;
/** @type {"snapshot" | "plain" | null} */
let bootPath = null; // "snapshot" or "plain", once booted
/** @type {string | null} */
let fallback = null; // why the snapshot was not used
/** @type {"lzma" | "gzip" | "inflated" | null} */
let packing = null; // how the wasm and the standard library came (worker-boot.mjs Packing)
let inFlight = false; // a frame was posted and not yet acknowledged
let postedAt = 0; // performance.now() when it was posted
let forceNext = true; // send every system in the next frame (after a change)
let last = 0; // performance.now() of the previous tick
/** @type {number | null} */
let timer = null;
/** @type {PageMessage[]} */
const pending = []; // messages received while booting
// the baked start (see above): {ticks, systems, integrators} while the page plays it
/** @typedef {{ticks: number, systems: Record<string, import("./types/protocol").SystemSettings>,
 *    integrators: string[]}} Bake */
/** @type {Bake | null} */
let bake = null;
let forwarded = -1; // the last baked frame computed here (-1: the runs are fresh)
let holding = false; // the page plays baked frames: no tick until its "handoff"

/** @param {PyProxy} proxy */
function toJs(proxy) {
  const value = proxy.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
  proxy.destroy();
  return value;
}

/** @param {string} method
 * @param {...unknown} args */
function call(method, ...args) {
  const fn = live[method];
  try {
    const result = fn(...args);
    return result && typeof result.toJs === "function" ? toJs(result) : result;
  } finally {
    fn.destroy();
  }
}

/** @param {Record<string, string>} names */
function setShownNames(names) {
  const py = self.pyodide.toPy(names);
  try {
    call("set_shown_names", py);
  } finally {
    py.destroy();
  }
}

/** @param {PageMessage} message */
function handle(message) {
  const py = self.pyodide;
  switch (message.type) {
    case "init": {
      if (message.names) setShownNames(message.names);
      live.speed = message.speed;
      live.playing = message.playing;
      if (message.baked) {
        // the page shows the baked layouts: the runs are built without a word
        bake = { ticks: message.baked, systems: message.systems,
                 integrators: message.integrators };
        holding = true;
        forwarded = -1;
      }
      for (const [name, settings] of Object.entries(message.systems)) {
        configure(name, settings.params, settings.dt, message.integrators, Boolean(bake));
      }
      timings.init = performance.now();
      post({ type: "ready", timings, boot: bootPath, fallback, packing });
      break;
    }
    case "handoff":
      if (holding) {
        forwardTo(message.frame);
        holding = false;
        bake = null;
        timings.handoff = performance.now();
      }
      if (message.then) handle(message.then); // before any tick: a pause stops right here
      // the first tick covers one frame's wall time, as the baked frames did; then this
      // worker's own clock. Its frame goes in any case: the page waits for it
      last = performance.now() - TICK_MS;
      forceNext = true;
      clearTimeout(/** @type {number} */ (timer));
      tick();
      break;
    case "configure":
      // with integrators: a system the page shows again (else it keeps its own)
      configure(message.system, message.params, message.dt, message.integrators ?? null, false,
        message.request);
      break;
    case "remove":
      call("remove", message.system);
      break;
    case "integrators": {
      const names = py.toPy(message.names);
      try {
        const results = call("set_integrators", names);
        for (const result of results) post({ type: "layout", ...result });
      } catch (error) {
        post({ type: "error", text: lastLine(error) });
      } finally {
        names.destroy();
      }
      forceNext = true;
      break;
    }
    case "method": {
      let definition;
      try {
        // (inside: a definition Pyodide cannot convert is a problem to report, as any)
        definition = message.definition ? py.toPy(message.definition) : undefined;
        const result = call("set_method", definition);
        for (const layout of result.results) post({ type: "layout", ...layout });
        post({ type: "method", id: message.id, method: result.method,
               problems: result.problems });
      } catch (error) {
        post({ type: "method", id: message.id, method: null,
               problems: [lastLine(error)] });
      } finally {
        definition?.destroy();
      }
      forceNext = true;
      break;
    }
    case "names":
      setShownNames(message.names);
      break;
    case "speed":
      live.speed = message.value;
      break;
    case "play":
      live.playing = message.value;
      break;
    case "hold":
      call("hold", message.system, Boolean(message.value));
      break;
    case "step":
      live.playing = false;
      call("step");
      break;
    case "reset":
      for (const result of call("reset")) post({ type: "layout", ...result });
      forceNext = true;
      break;
    case "study":
      startStudy(message);
      break;
    case "study-stop":
      if (studies) callOn(studies, "stop", message.system);
      break;
    case "geometry":
      setGeometry(message);
      break;
    case "ack":
      // the page is ready for more: answer now rather than at the next tick, so that
      // every animation frame can show new data
      inFlight = false;
      clearTimeout(/** @type {number} */ (timer));
      tick();
      break;
    default:
      post({ type: "error", text: `unknown message type ${JSON.stringify(message.type)}` });
  }
}

/** Compute the baked frames up to `frame` (from t = 0 again if this worker went past it).
 * @param {number} frame */
function forwardTo(frame) {
  if (forwarded > frame) {
    // (bake: set, the page plays it)
    for (const [name, settings] of Object.entries(/** @type {Bake} */ (bake).systems)) {
      configure(name, settings.params, settings.dt, /** @type {Bake} */ (bake).integrators,
        true);
    }
    forwarded = -1;
  }
  if (frame > forwarded) call("forward", forwarded + 1, frame + 1);
  forwarded = frame;
  timings.forwarded = performance.now();
}

/** @param {string} name
 * @param {import("./types/protocol").Params | undefined} params
 * @param {number | undefined} dt
 * @param {string[] | null} integrators
 * @param {number} [request] */
function configure(name, params, dt, integrators, silent = false, request = undefined) {
  const py = self.pyodide;
  const pyParams = py.toPy(params ?? {});
  // JavaScript null would reach Python as jsnull; undefined becomes None
  const pyIntegrators = integrators ? py.toPy(integrators) : undefined;
  try {
    const result = call("configure", name, pyParams, dt ?? undefined, pyIntegrators);
    // (request: the page's number for it, echoed: static/js/worker.js configureSystem)
    if (!silent) post({ type: "layout", ...result, request });
  } finally {
    pyParams.destroy();
    pyIntegrators?.destroy();
  }
  forceNext = true;
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

/** @param {StudyMessage} message */
function startStudy(message) {
  const py = self.pyodide;
  if (!studies) studies = py.runPython("from integrator_lab.views.study import Studies\nStudies()");
  const args = [message.params ?? {}, message.integrators ?? [], message.settings ?? {}]
    .map((x) => py.toPy(x));
  try {
    post({ type: "study", ...callOn(studies, "start", message.system, ...args) });
  } catch (error) {
    post({ type: "study", system: message.system, error: lastLine(error) });
  } finally {
    for (const x of args) x.destroy();
  }
}

/** @param {GeometryMessage} message */
function setGeometry(message) {
  const py = self.pyodide;
  if (!geometries) {
    geometries = py.runPython("from integrator_lab.views.geometry import Geometries\nGeometries()");
  }
  callOn(geometries, "set_open", message.system, Boolean(message.open), message.lang ?? "en");
}

// the open geometry views (views.geometry) follow the live runs, redrawn this often
function advanceGeometries() {
  if (!geometries || !geometries.running) return;
  const now = performance.now();
  if (now < geometryDue) return;
  geometryDue = now + GEOMETRY_PERIOD_MS;
  for (const update of callOn(geometries, "step", live)) post({ type: "geometry", ...update });
}

function advanceStudies() {
  if (!studies || !studies.running) return;
  for (const update of callOn(studies, "step", STUDY_SLICE_S)) post({ type: "study", ...update });
}


function tick() {
  const now = performance.now();
  const wall = last ? (now - last) / 1000 : 0;
  last = now;
  if (live && !holding) {
    try {
      if (!inFlight) {
        const frames = timed(() => toJs(live.tick(wall, forceNext)));
        forceNext = false;
        const transfer = [];
        for (const frame of Object.values(frames)) transfer.push(frame.data.buffer);
        if (transfer.length) {
          inFlight = true;
          postedAt = now;
          post({ type: "frame", systems: frames }, transfer);
        }
      } else if (now - postedAt < STALL_MS) {
        // the page is busy: keep simulating, the samples wait in the runners
        timed(() => live.advance(wall));
      }
      // else the page draws nothing (a hidden tab): the simulation waits for it
    } catch (error) {
      post({ type: "error", text: lastLine(error) });
    }
    try {
      timed(advanceStudies);
    } catch (error) {
      post({ type: "error", text: `Study: ${lastLine(error)}` });
    }
    try {
      advanceGeometries();
    } catch (error) {
      post({ type: "error", text: `Geometry: ${lastLine(error)}` });
    }
  }
  const spent = performance.now() - now;
  timer = setTimeout(tick, Math.max(0, TICK_MS - spent));
}

/** @param {MessageEvent<PageMessage>} event */
self.onmessage = (event) => {
  if (event.data?.type === "boot") {
    watchOn(event.data.watch);
    // (the page asks for the bake only when the config names one: static/start.js)
    receiveBoot(event.data.boot, Boolean(event.data.bake), Boolean(event.data.controlled));
    return;
  }
  if (!live) {
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
    ({ live, path: bootPath, fallback, packing } = booted);
    answerPing({}); // Python is up: the watchdog hears from this worker before its first call
    for (const message of pending.splice(0)) handle(message);
    // the page plays the bake: catch up with its end now, before it asks
    // (bake: set while holding)
    if (holding && forwarded < /** @type {Bake} */ (bake).ticks - 1) {
      try {
        forwardTo(/** @type {Bake} */ (bake).ticks - 1);
      } catch (error) {
        post({ type: "error", text: lastLine(error) });
      }
    }
    last = performance.now();
    tick();
    // what this visit downloaded, for the page's service worker (static/js/offline.js)
    post({ type: "fetched", urls: performance.getEntriesByType("resource").map((e) => e.name) });
  },
  reportBootError,
);
