// @ts-check
// Integrator Lab: the simulation worker of the static page (a module worker).
//
// Boots Pyodide from the site's own pyodide/ folder, unpacks the pure-Python core into
// site-packages, and runs integrator_lab.views.live on its own clock. The page and this worker
// talk by messages only. Every message, each way, with its fields and what it means:
// static/types/protocol.d.ts (PageMessage, WorkerMessage, and the watchdog port's ping/pong),
// checked by tsc in `make lint` on this file and on the page's side (static/js/worker.js).
// In short: the page sends "boot" first (with the watchdog's port), then "init", and then the
// visitor's changes ("configure", "integrators", "speed", "play", "step", "reset", "hold",
// "study", "method", "names", "geometry", ...) and an "ack" for each frame it drew; this worker
// answers with "progress" while booting, "ready" (or "boot-error"), then "layout", "frame",
// "study", "geometry", "method" and "error" messages; on the private port, "ping" and "pong".
//
// The watchdog's port: the page's watchdog (static/js/worker.js) replaces a worker that stops
// answering while a user's method may run. Its pings and this worker's answers travel on a
// MessagePort handed over in the boot message, before any user code runs, and kept in this
// module's scope: Python's `js` module reaches the worker's global scope, never this port, and
// the functions that answer are taken before any user code could replace them. So user code
// can neither answer for a worker it froze nor stop the answers of a worker that is alive
// (other than by keeping the thread busy, which is what the watchdog measures). It can post
// on the worker's own channel, where no liveness is read.
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
//
// Booting is fast: the build froze Pyodide's memory after the core was imported and the live
// loop built (web/site/snapshot.py); loading that snapshot takes a fraction of a second where a
// plain boot takes seconds. Its download starts as soon as the page says where it is, beside
// Pyodide's own files. The snapshot API is experimental, so every doubt means a plain boot (no
// snapshot in the build, another Pyodide version, a failed download, corrupt bytes, a failed
// load): worth an informational console line, never an error.
//
// The right boot for the link: the snapshot saves a second or two of CPU and costs 6 MB more
// to download. Every download starts at once (Pyodide's own are fetched here, and handed to
// Pyodide when it asks: its CPU work waits for the page's first draw, its bytes need not); the
// snapshot is fetched only on a link that would bring it within SNAPSHOT_WORTH_MS, as measured
// on the bytes that come first (the baked frames', else the wasm's first PROBE_MS), unless
// navigator.connection already says the link is slow: a slow link never waits for it. Pyodide compiles its wasm as it arrives (WebAssembly.instantiateStreaming).
//
// Booting fails loudly: every file the boot fetches is watched, and the first one that does
// not arrive is reported by name at once (Pyodide itself may wait forever for a .wasm whose
// download failed). Pyodide is imported dynamically, so that even its failure is reported.

/** @import { BootConfig, BakedInfo, SnapshotInfo, PageMessage, WorkerMessage, PingMessage,
 *    PongMessage, BakedMessage, StudyMessage, GeometryMessage } from "./types/protocol" */

const TICK_MS = 1000 / 60; // the worker's own clock
// a running study (views.study) takes this much of each tick, after the live view's share:
// the live view stays smooth and the study still finishes in seconds
const STUDY_SLICE_S = 0.006;
const STALL_MS = 1000; // a frame unacknowledged this long: the page is hidden, stop
// how long the longest call into Python counts for the watchdog: a machine that was slow a
// few seconds ago may be slow still
const SLOWEST_WINDOW_MS = 5000;
// taken at once, before any user code runs (it could replace them on the global objects)
const apply = Reflect.apply;
const portPost = MessagePort.prototype.postMessage;
const clock = performance;
const clockNow = Performance.prototype.now;
const now = () => apply(clockNow, clock, []);
/** @type {MessagePort | null} */
let watchPort = null; // the watchdog's port (see above), from the boot message
/** @type {[number, number][]} */
const calls = []; // [end, duration] of the calls into Python of the last SLOWEST_WINDOW_MS

/** Run `work` (a call into Python) and remember how long it took, for the watchdog: the
 * recurring slices (ticks, study slices), not a message's one-off work (a new method, a new
 * system), which says nothing of how long the next slice may take.
 * @template T
 * @param {() => T} work
 * @returns {T} */
function timed(work) {
  const began = now();
  try {
    return work();
  } finally {
    const end = now();
    calls.push([end, end - began]);
    while (calls.length && calls[0][0] < end - SLOWEST_WINDOW_MS) calls.shift();
  }
}

/** @param {{data?: PingMessage}} event */
function answerPing(event) {
  const id = event.data?.id ?? 0;
  let slowest = 0;
  for (const [, duration] of calls) slowest = Math.max(slowest, duration);
  if (watchPort) {
    apply(portPost, watchPort, [/** @satisfies {PongMessage} */ ({ type: "pong", id, slowest })]);
  }
}
const siteURL = new URL("../", import.meta.url);
// the snapshot is worth its download when it arrives within this time (a plain boot's extra
// CPU work on a laptop: 1-2 s)
const SNAPSHOT_WORTH_MS = 1500;
// how long the wasm's first bytes are watched to measure the link (when no baked frames are)
const PROBE_MS = 300;
const FIRST_BYTE_MS = 3000; // a link that brings no byte in this time is slow
const PROGRESS_MS = 100; // progress is posted at most this often
// navigator.connection's effective types too slow for the snapshot ("4g" is anything faster
// than 1.6 Mbit/s; its downlink estimate is capped at 10 Mbit/s and, on 127.0.0.1, said
// 1.4: the first bytes decide)
const SLOW_TYPES = ["slow-2g", "2g", "3g"];
// a user's method importing beyond the trimmed standard library finds the whole one here
// (web/views/stdlib_guard.py reads it)
const FULL_STDLIB_GLOBAL = "integratorLabFullStdlib";
const CACHE = "integrator-lab"; // the service worker's cache (static/sw.js)

/** Where the build put Pyodide and the core, from the boot config: their names carry a content
 * hash (so a host may cache them for ever), which only the build knows.
 * @param {BootConfig} config */
function bootFiles(config) {
  const dir = config.pyodide ?? "pyodide/";
  const archive = config.archive ?? "py/integrator_lab.zip";
  return {
    pyodideURL: new URL(dir, siteURL),
    archiveURL: new URL(archive, siteURL),
    module: `${dir}pyodide.mjs`,
    pyodideStep: `Python (${dir}pyodide.asm.mjs, ${dir}pyodide.asm.wasm, ` +
      `${dir}python_stdlib.zip)`,
    coreStep: `the physics core (${archive})`,
  };
}

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
/** @type {(config: BootConfig) => void} */
let receiveBoot;
/** @type {Promise<BootConfig>} */
const bootConfig = new Promise((resolve) => { receiveBoot = resolve; });
// the page's first "init" comes once BokehJS has drawn the dashboard: until then the worker
// only downloads (I/O), so that Python's start, which is CPU work, does not delay the first
// draw on a machine with few cores
/** @type {() => void} */
let pageDrawn;
/** @type {Promise<void>} */
const drawn = new Promise((resolve) => { pageDrawn = resolve; });
const GZIP_MAGIC = [0x1f, 0x8b];
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
// the baked frames' download (fetchBaked), if asked for: the link's bytes per ms it measured
/** @type {Promise<number | null>} */
let bakedDone = Promise.resolve(null);

/** @param {WorkerMessage} message
 * @param {Transferable[]} [transfer] */
function post(message, transfer = []) {
  // after a failed download the page shows what failed; progress would cover it
  if (bootFailed && message.type === "progress") return;
  self.postMessage(message, transfer);
}

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

/** @type {Record<string, number>} */
const timings = {}; // ms since the worker started, for benchmarks

// -- booting, and saying what failed ------------------------------------------------------
let step = "pyodide/pyodide.mjs"; // what the boot is loading now (files of the site)
let bootFailed = false;

/** A URL as the site's own path ("pyodide/pyodide.asm.wasm"), or as it is.
 * @param {string | URL} url */
function siteFile(url) {
  const href = new URL(url, self.location.href).href.split(/[?#]/)[0];
  return href.startsWith(siteURL.href) ? href.slice(siteURL.href.length) : href;
}

/** @param {string} file
 * @param {string} detail */
function bootFailure(file, detail) {
  if (bootFailed || live) return; // the first failure is the cause; the rest follow from it
  bootFailed = true;
  post({ type: "boot-error", file, detail, step });
}

const realFetch = self.fetch;
// responses fetched ahead of Pyodide's asking (by absolute URL), each handed over once
/** @type {Map<string, Promise<Response>>} */
const prefetched = new Map();
/** @param {RequestInfo | URL} resource
 * @param {RequestInit} [options] */
async function watchedFetch(resource, options) {
  const url = resource instanceof Request ? resource.url : String(resource);
  const absolute = new URL(url, self.location.href).href;
  let response;
  try {
    const early = prefetched.get(absolute);
    prefetched.delete(absolute);
    response = await (early ?? realFetch.call(self, resource, options));
  } catch (error) {
    bootFailure(siteFile(url), `the download failed: ${error?.message ?? error}`);
    throw error;
  }
  if (!response.ok) {
    bootFailure(siteFile(url), `HTTP ${response.status} ${response.statusText}`.trim());
  }
  return response;
}

// A module that did not import: ask the server what it answers for that file.
/** @param {string} file
 * @param {any} error (whatever was thrown) */
async function importFailure(file, error) {
  let detail = error?.message ?? String(error);
  try {
    const response = await realFetch.call(self, new URL(file, siteURL),
      { method: "HEAD", cache: "no-store" });
    const type = response.headers.get("content-type") || "no type";
    if (!response.ok) detail = `HTTP ${response.status} ${response.statusText}`.trim();
    else if (!/javascript/.test(type)) detail = `served as ${type}, not as JavaScript`;
  } catch (fetchError) {
    detail = `the download failed: ${fetchError?.message ?? fetchError}`;
  }
  bootFailure(file, detail);
}

async function boot() {
  self.fetch = watchedFetch; // Pyodide fetches its files with the global fetch
  try {
    await bootPython();
  } finally {
    self.fetch = realFetch;
  }
}

/** Download the baked frames for the page (static/js/baked.js): here, beside Python's files,
 * a missing file is said by the page as information, not logged as the page's error.
 * @param {BakedInfo} baked */
async function fetchBaked(baked) {
  try {
    const started = performance.now();
    const response = await realFetch.call(self, new URL(baked.url, siteURL));
    if (!response.ok) throw new Error(`${baked.url}: HTTP ${response.status}`);
    const gzipped = new Uint8Array(await response.arrayBuffer());
    const rate = gzipped.length / Math.max(performance.now() - started, 1);
    // inflated here: the page's thread is busy drawing the dashboard meanwhile, and a
    // stream there would wait for it at every chunk (the first baked frame came 0.1 s late)
    const bytes = (await gunzipped(gzipped)).buffer;
    self.postMessage(/** @satisfies {BakedMessage} */ ({ type: "baked", bytes }), [bytes]);
    return rate;
  } catch (error) {
    self.postMessage(/** @satisfies {BakedMessage} */ (
      { type: "baked", error: String(error?.message ?? error) }));
    return null;
  }
}

/** `bytes` inflated if they are gzip (a host that sent the file with Content-Encoding: gzip
 * has inflated it already); a truncated or corrupt file fails gzip's own check.
 * @param {Uint8Array<ArrayBuffer>} bytes */
async function gunzipped(bytes) {
  if (bytes[0] !== GZIP_MAGIC[0] || bytes[1] !== GZIP_MAGIC[1]) return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// -- what has arrived, for the page's progress bar ------------------------------------------
// per file: [bytes arrived (as inflated), its size, its size as a host that compresses sends it]
/** @type {Map<string, number[]>} */
const arriving = new Map();
let progressAt = 0;
let progressKey = "boot.python";

function postProgress(force = false) {
  const now = performance.now();
  if (!force && now - progressAt < PROGRESS_MS) return;
  progressAt = now;
  let loaded = 0;
  let total = 0;
  for (const [got, size, sent] of arriving.values()) {
    total += sent;
    loaded += size ? Math.min(1, got / size) * sent : 0;
  }
  post({ type: "progress", text: "Loading Python (Pyodide)…", key: progressKey, step,
         loaded: Math.round(loaded), total: Math.round(total) });
}

/** `response` with a body of its own, and its bytes counted into arriving[name] as they
 * arrive: a copy of the stream is read at once (Pyodide reads the other when it is ready to
 * compile, after the first draw, and the link's speed is measured meanwhile). The same status
 * and headers: instantiateStreaming needs the wasm's type.
 * @param {string} name
 * @param {Response} response */
function counted(name, response) {
  if (!response.ok || !response.body) return response;
  const entry = /** @type {number[]} */ (arriving.get(name)); // (download set it)
  const [counting, passed] = response.body.tee();
  (async () => {
    const reader = counting.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      entry[0] += value.byteLength;
      postProgress();
    }
    entry[3] = performance.now(); // complete (probeRate)
  })().catch(() => {}); // a failed download is reported where its body is read
  return new Response(passed,
    { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Start downloading a file of the boot (`name` as in config.sizes) and count it; a file
 * that does not arrive is a boot failure, said at once, unless `optional`.
 * @param {string} name
 * @param {string | URL} url */
function download(name, url, optional = false) {
  const [size, sent] = sizes[name] ?? [0, 0];
  // [bytes come, size, size sent, when complete (0: not yet), when asked]
  arriving.set(name, [0, size, sent, 0, performance.now()]);
  return (optional ? realFetch.call(self, url) : watchedFetch(url))
    .then((response) => counted(name, response));
}
/** @type {Record<string, [number, number]>} */
let sizes = {}; // config.sizes: {file: [size, size sent compressed]}

/** Whether the link looks too slow for the snapshot before a byte of it is fetched. */
function slowLink() {
  const connection = self.navigator?.connection;
  if (!connection) return null;
  if (connection.saveData) return "the browser asks to save data";
  if (SLOW_TYPES.includes(connection.effectiveType)) {
    return `the link is ${connection.effectiveType}`;
  }
  return null;
}

/** "snapshot" or "plain" when the service worker's cache (static/sw.js) holds what that boot
 * needs, else null (nothing cached: the link decides).
 * @param {SnapshotInfo | null} snapshot
 * @param {ReturnType<typeof bootFiles>} files */
async function cachedBoot(snapshot, files) {
  try {
    if (!self.caches || !(await caches.has(CACHE))) return null;
    const cache = await caches.open(CACHE);
    if (snapshot?.url && await cache.match(new URL(snapshot.url, siteURL).href)) return "snapshot";
    if (await cache.match(new URL("pyodide.asm.wasm", files.pyodideURL).href)) return "plain";
  } catch {
    // no cache to read (a private window may refuse it): the link decides
  }
  return null;
}

/** Bytes per ms the link brings `name` (a download under way), measured over PROBE_MS from
 * its first byte (a server may take a while to start answering); 0 if no byte came within
 * FIRST_BYTE_MS.
 * @param {string} name */
async function probeRate(name) {
  const entry = /** @type {number[]} */ (arriving.get(name)); // (download set it)
  /** @param {number} ms */
  const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
  const asked = performance.now();
  while (!entry[0] && performance.now() - asked < FIRST_BYTE_MS) await pause(10);
  if (!entry[0]) return 0;
  // a file already whole (the one-file page answers from memory, a cache at once) came
  // faster than any probe could measure: its rate from the request
  /** @param {number[]} e */
  const whole = (e) => (e[1] ? e[2] || e[0] : e[0]) / Math.max(e[3] - e[4], 1);
  if (entry[3]) return whole(entry);
  const [got0, size, sent] = entry;
  const started = performance.now();
  await pause(PROBE_MS);
  if (entry[3] && entry[0] === got0) return whole(entry);
  const got = entry[0] - got0;
  return (size ? got / size * sent : got) / Math.max(performance.now() - started, 1);
}

/** The snapshot's download, if the link is fast enough that it beats a plain boot:
 * {use, bytes: a promise of its bytes or of the reason there are none} (never throws: a
 * plain boot follows). `rate`: the link's bytes per ms, as measured.
 * @param {SnapshotInfo | null} snapshot
 * @param {number} rate
 * @returns {{use: boolean, bytes: Promise<{bytes?: Uint8Array, reason?: string}>}} */
function fetchSnapshot(snapshot, rate) {
  /** @param {string} reason */
  const none = (reason) => ({ use: false, bytes: Promise.resolve({ reason }) });
  if (!snapshot?.url) return none("this build has no snapshot");
  const slow = slowLink();
  if (slow) return none(slow);
  const wait = rate === Infinity ? 0 : snapshot.bytes / rate;
  if (!(wait <= SNAPSHOT_WORTH_MS)) {
    return none(`the link brings ${(rate * 8 / 1000).toFixed(1)} Mbit/s: the snapshot would ` +
      `take ${(wait / 1000).toFixed(1)} s`);
  }
  const file = snapshot.url;
  const bytes = (async () => {
    try {
      // not the watched fetch: a missing snapshot is no boot failure
      const response = await download("snapshot", new URL(file, siteURL), true);
      if (!response.ok) return { reason: `${file}: HTTP ${response.status}` };
      const gzipped = new Uint8Array(await response.arrayBuffer());
      await drawn; // inflating 31 MB is CPU work: after the first draw
      const inflated = await gunzipped(gzipped);
      timings.snapshot = performance.now();
      return { bytes: inflated };
    } catch (error) {
      // a truncated or corrupt file fails gzip's own check here
      return { reason: `${file}: ${error?.message ?? error}` };
    }
  })();
  return { use: true, bytes };
}

async function bootPython() {
  const config = await bootConfig; // sent with the worker's start: no wait
  const files = bootFiles(config);
  sizes = config.sizes ?? {};
  self[FULL_STDLIB_GLOBAL] = new URL("python_stdlib_full.zip", files.pyodideURL).href;
  step = files.module;
  post({ type: "progress", text: "Loading Python (Pyodide)…", key: "boot.python", step });
  // every download starts now: the snapshot (if the link is fast), Pyodide's files (handed
  // to Pyodide when it asks for them) and the core
  // the page's baked frames first, when it plays them: they make it move, and on a slow link
  // Python's megabytes would hold them up for seconds. Their download measures the link
  let rate = await bakedDone;
  for (const name of ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]) {
    const url = new URL(name, files.pyodideURL).href;
    const early = download(name, url);
    early.catch(() => {}); // reported by the watched fetch when Pyodide asks
    prefetched.set(url, early);
  }
  const archive = download("core", files.archiveURL).then(async (response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  });
  archive.catch(() => {}); // reported by the watched fetch; awaited below
  arriving.set("pyodide.asm.mjs", [0, 1, sizes["pyodide.asm.mjs"]?.[1] ?? 0]);
  postProgress(true);
  // no baked frames: the wasm's first bytes measure the link (unless it says it is slow)
  const cached = await cachedBoot(config.snapshot, files);
  if (cached === null && !rate && config.snapshot?.url && !slowLink()) {
    rate = await probeRate("pyodide.asm.wasm");
  }
  // a visit after one that kept its files (static/sw.js) boots as that one did: from the cache
  // (rate: measured above whenever the snapshot may be fetched, a number then)
  /** @type {ReturnType<typeof fetchSnapshot>} */
  const frozen = cached === "plain" ? { use: false, bytes: Promise.resolve(
    { reason: "the first visit booted without it, and the cache keeps what it used" }) }
    : fetchSnapshot(config.snapshot,
      cached === "snapshot" ? Infinity : /** @type {number} */ (rate));
  postProgress(true);
  let loadPyodide, version;
  try {
    ({ loadPyodide, version } = await import(new URL(files.module, siteURL).href));
  } catch (error) {
    await importFailure(files.module, error);
    throw error;
  }
  step = files.pyodideStep;
  postProgress(true); // the page names what a slow boot waits for: Python now, not its loader
  const useSnapshot = frozen.use;
  await drawn;
  let pyodide = null;
  fallback = null;
  if (useSnapshot && config.snapshot?.pyodide !== version) {
    fallback = `the snapshot was made by Pyodide ${config.snapshot?.pyodide}, this is ${version}`;
  } else if (useSnapshot) {
    // a snapshot that does not arrive rejects this before loadPyodide awaits it: handled
    // here, or the worker reports an unhandled rejection to the page (the fallback says why)
    const snapshotBytes = frozen.bytes.then((result) => {
      if (!result.bytes) throw new Error(result.reason);
      return result.bytes;
    });
    snapshotBytes.catch(() => {});
    try {
      // Pyodide fetches and compiles its wasm while the snapshot still arrives
      pyodide = await loadPyodide({ indexURL: files.pyodideURL.href, packages: [],
        _loadSnapshot: snapshotBytes });
    } catch (error) {
      fallback = `the snapshot did not load: ${error?.message ?? error}`;
    }
  } else {
    fallback = (await frozen.bytes).reason ?? "not chosen";
  }
  if (!pyodide) {
    console.info(`Integrator Lab: starting Python without the snapshot (${fallback})`);
    pyodide = await loadPyodide({ indexURL: files.pyodideURL.href, packages: [] });
  }
  if (bootFailed) return; // a file failed, yet Pyodide went on: do not pretend to run
  /** @type {number[]} */ (arriving.get("pyodide.asm.mjs"))[0] = 1; // imported by loadPyodide
  timings.pyodide = performance.now();
  step = files.coreStep;
  progressKey = "boot.core";
  postProgress(true);
  // the snapshot holds the imported modules, not their files: unpack them either way, for a
  // module imported later
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(await archive, "zip", { extractDir: sitePackages });
  bootPath = fallback === null ? "snapshot" : "plain";
  if (bootPath === "plain") pyodide.runPython(config.code);
  live = pyodide.globals.get(config.global);
  timings.core = performance.now();
  self.pyodide = pyodide;
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
      post({ type: "ready", timings, boot: bootPath, fallback });
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
        post({ type: "error", text: pythonMessage(error) });
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
               problems: [pythonMessage(error)] });
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
    post({ type: "study", system: message.system, error: pythonMessage(error) });
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

/** @param {any} error (whatever was thrown) */
function pythonMessage(error) {
  // a Python exception: keep its last line ("ValueError: ..."), not the traceback
  const lines = String(error?.message ?? error).trim().split("\n");
  return lines[lines.length - 1];
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
      post({ type: "error", text: pythonMessage(error) });
    }
    try {
      timed(advanceStudies);
    } catch (error) {
      post({ type: "error", text: `Study: ${pythonMessage(error)}` });
    }
    try {
      advanceGeometries();
    } catch (error) {
      post({ type: "error", text: `Geometry: ${pythonMessage(error)}` });
    }
  }
  const spent = performance.now() - now;
  timer = setTimeout(tick, Math.max(0, TICK_MS - spent));
}

/** @param {MessageEvent<PageMessage>} event */
self.onmessage = (event) => {
  if (event.data?.type === "boot") {
    if (event.data.watch && !watchPort) {
      watchPort = event.data.watch;
      watchPort.onmessage = answerPing;
    }
    // (the page asks for the bake only when the config names one: static/start.js)
    if (event.data.bake) {
      bakedDone = fetchBaked(/** @type {BakedInfo} */ (event.data.boot.baked));
    }
    receiveBoot(event.data.boot);
    return;
  }
  if (!live) {
    if (event.data?.type === "init") pageDrawn();
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
    post({ type: "error", text: pythonMessage(error) });
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
  () => {
    if (bootFailed) return;
    answerPing({}); // Python is up: the watchdog hears from this worker before its first call
    for (const message of pending.splice(0)) handle(message);
    // the page plays the bake: catch up with its end now, before it asks
    // (bake: set while holding)
    if (holding && forwarded < /** @type {Bake} */ (bake).ticks - 1) {
      try {
        forwardTo(/** @type {Bake} */ (bake).ticks - 1);
      } catch (error) {
        post({ type: "error", text: pythonMessage(error) });
      }
    }
    last = performance.now();
    tick();
    // what this visit downloaded, for the page's service worker (static/js/offline.js)
    post({ type: "fetched", urls: performance.getEntriesByType("resource").map((e) => e.name) });
  },
  (error) => {
    live = null;
    // fetches are reported as they fail; a module Pyodide imports is named in the error
    const text = String(error?.message ?? error);
    const url = /\bhttps?:\/\/[^\s'"]+/.exec(text)?.[0];
    if (url && url.startsWith(siteURL.href) && url.endsWith(".mjs")) {
      importFailure(siteFile(url), error);
    } else {
      bootFailure(step, pythonMessage(error)); // else: the step it happened in
    }
  },
);
