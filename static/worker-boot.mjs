// @ts-check
// Integrator Lab: booting Python in the simulation worker (a module of static/worker.mjs,
// bundled with it by the build): where the build put Pyodide and the core, downloading them
// (with the page's progress bar), choosing between the snapshot and the plain boot, and saying
// which file failed. static/worker.mjs says what the worker does once Python is up.
//
// The baked start: the page animates the default view's first seconds, computed at build time,
// while this worker boots; their download comes first (they make the page move) and measures
// the link.
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
// navigator.connection already says the link is slow: a slow link never waits for it. Pyodide
// compiles its wasm as it arrives (WebAssembly.instantiateStreaming).
//
// Booting fails loudly: every file the boot fetches is watched, and the first one that does
// not arrive is reported by name at once (Pyodide itself may wait forever for a .wasm whose
// download failed). Pyodide is imported dynamically, so that even its failure is reported.

/** @import { BootConfig, BakedInfo, SnapshotInfo, WorkerMessage, BakedMessage }
 *    from "./types/protocol" */

import { lzmaStream } from "./worker-lzma.mjs";

export const siteURL = new URL("../", import.meta.url);
// the snapshot is worth its download when it arrives within this time (a plain boot's extra
// CPU work on a laptop: 1-2 s)
const SNAPSHOT_WORTH_MS = 1500;
// how long the wasm's first bytes are watched to measure the link (when no baked frames are)
const PROBE_MS = 300;
const FIRST_BYTE_MS = 3000; // a link that brings no byte in this time is slow
const PROGRESS_MS = 100; // progress is posted at most this often
// below this rate (bytes per ms: 20 Mbit/s) the wasm and the standard library come as .lzma, a
// quarter fewer bytes (0.9 MB of the wasm's 3.5) than gzip, which the worker inflates itself
// (worker-lzma.mjs: the wasm in ~0.7 s of CPU, spread over a download that takes longer), and
// leaves them inflated in the cache for the next visit (keepInflated)
const LZMA_BELOW = 20e6 / 8 / 1000;
// navigator.connection's effective types too slow for the snapshot ("4g" is anything faster
// than 1.6 Mbit/s; its downlink estimate is capped at 10 Mbit/s and, on 127.0.0.1, said
// 1.4: the first bytes decide)
const SLOW_TYPES = ["slow-2g", "2g", "3g"];
// a user's method importing beyond the trimmed standard library finds the whole one here
// (web/views/stdlib_guard.py reads it)
export const FULL_STDLIB_GLOBAL = "integratorLabFullStdlib";
const CACHE = "integrator-lab"; // the service worker's cache (static/sw.js)

/** Where the build put Pyodide and the core, from the boot config: their names carry a content
 * hash (so a host may cache them for ever), which only the build knows.
 * @param {BootConfig} config */
function bootFiles(config) {
  const dir = config.pyodide ?? "pyodide/";
  const archive = config.archive ?? "py/integrator_lab.zip.gz";
  const gzipped = config.gzipped ?? {};
  /** @param {string} name */
  const fetched = (name) => `${dir}${gzipped[name] ?? name}`;
  return {
    pyodideURL: new URL(dir, siteURL),
    archiveURL: new URL(archive, siteURL),
    module: `${dir}pyodide.mjs`,
    pyodideStep: `Python (${dir}pyodide.asm.mjs, ${fetched("pyodide.asm.wasm")}, ` +
      `${fetched("python_stdlib.zip")})`,
    coreStep: `the physics core (${archive})`,
    /** files downloaded gzipped in their place: {name: gzipped name} */
    gzipped,
    /** the same as .lzma, for a slow link: {name: .lzma name} */
    lzma: config.lzma ?? {},
  };
}


/** @type {(config: BootConfig) => void} */
let receiveConfig;
/** @type {Promise<BootConfig>} */
const bootConfig = new Promise((resolve) => { receiveConfig = resolve; });
// the page's first "init" comes once BokehJS has drawn the dashboard: until then the worker
// only downloads (I/O), so that Python's start, which is CPU work, does not delay the first
// draw on a machine with few cores
/** @type {() => void} */
let pageDrawn;
/** @type {Promise<void>} */
const drawn = new Promise((resolve) => { pageDrawn = resolve; });
const GZIP_MAGIC = [0x1f, 0x8b];
// the baked frames' download (fetchBaked), if asked for: the link's bytes per ms it measured
/** @type {Promise<number | null>} */
let bakedDone = Promise.resolve(null);
let controlled = false; // a service worker answers this worker's downloads

/** The page's boot message: where the build put the files, whether the page plays the
 * baked frames (then they are downloaded first), and whether a service worker answers its
 * downloads (from its cache).
 * @param {BootConfig} config
 * @param {boolean} [bake]
 * @param {boolean} [isControlled] */
export function receiveBoot(config, bake = false, isControlled = false) {
  controlled = isControlled;
  if (bake) bakedDone = fetchBaked(/** @type {BakedInfo} */ (config.baked));
  receiveConfig(config);
}

/** The page has drawn its dashboard: Python's CPU work may start. */
export function pageHasDrawn() {
  pageDrawn();
}

/** Post `message` to the page.
 * @param {WorkerMessage} message
 * @param {Transferable[]} [transfer] */
export function post(message, transfer = []) {
  // after a failed download the page shows what failed; progress would cover it
  if (bootFailed && message.type === "progress") return;
  self.postMessage(message, transfer);
}

/** @type {Record<string, number>} */
export const timings = {}; // ms since the worker started, for benchmarks

// -- booting, and saying what failed ------------------------------------------------------
let step = "pyodide/pyodide.mjs"; // what the boot is loading now (files of the site)
let bootFailed = false;
let booted = false; // Python is up: later failures are not the boot's

/** A URL as the site's own path ("pyodide/pyodide.asm.wasm"), or as it is.
 * @param {string | URL} url */
function siteFile(url) {
  const href = new URL(url, self.location.href).href.split(/[?#]/)[0];
  return href.startsWith(siteURL.href) ? href.slice(siteURL.href.length) : href;
}

/** @param {string} file
 * @param {string} detail */
function bootFailure(file, detail) {
  if (bootFailed || booted) return; // the first failure is the cause; the rest follow from it
  bootFailed = true;
  post({ type: "boot-error", file, detail, step });
}

export const realFetch = self.fetch;
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

/** Boot Python: its files downloaded (watched), the snapshot or a plain boot, the core
 * unpacked. Returns Python's engine (`config.global`), which boot it was and why not the
 * snapshot, or null if a file failed (said already to the page). Throws what went wrong
 * otherwise: {@link reportBootError} says it.
 * @returns {Promise<{live: PyProxy, path: "snapshot" | "plain", fallback: string | null,
 *    packing: Packing} | null>} */
export async function boot() {
  self.fetch = watchedFetch; // Pyodide fetches its files with the global fetch
  try {
    const result = await bootPython();
    booted = result !== null;
    return result;
  } finally {
    self.fetch = realFetch;
  }
}

/** Say what a boot that threw failed on: a module Pyodide imports is named in the error
 * (its server asked what it answers for it), else the step it happened in.
 * @param {any} error (whatever was thrown) */
export function reportBootError(error) {
  const text = String(error?.message ?? error);
  const url = /\bhttps?:\/\/[^\s'"]+/.exec(text)?.[0];
  if (url && url.startsWith(siteURL.href) && url.endsWith(".mjs")) {
    importFailure(siteFile(url), error);
  } else {
    bootFailure(step, lastLine(error));
  }
}

/** A Python exception's last line ("ValueError: ..."), not its traceback; any other error's
 * message.
 * @param {any} error (whatever was thrown) */
export function lastLine(error) {
  const lines = String(error?.message ?? error).trim().split("\n");
  return lines[lines.length - 1];
}

/** Download the baked frames for the page (static/js/baked.js): here, beside Python's files,
 * a missing file is said by the page as information, not logged as the page's error.
 * @param {BakedInfo} baked */
async function fetchBaked(baked) {
  try {
    const url = new URL(baked.url, siteURL);
    const response = await realFetch.call(self, url);
    if (!response.ok) throw new Error(`${baked.url}: HTTP ${response.status}`);
    // the link's rate from the answer's first bytes on: the wait before them is the
    // server's and the round trip's, not the link's (counted in, a fast link with some
    // latency, or a local server on a busy machine, measured a few Mbit/s)
    const started = performance.now();
    const gzipped = new Uint8Array(await response.arrayBuffer());
    // timed by the network's own clock where the browser gives it (Resource Timing): this
    // thread may read the body late on a busy machine, and its clock then measured a local
    // server at a few Mbit/s (and chose the .lzma files, a second or two of CPU to inflate)
    const entry = /** @type {PerformanceResourceTiming | undefined} */ (
      performance.getEntriesByName(url.href, "resource").at(-1));
    const span = entry && entry.responseEnd > entry.responseStart
      ? entry.responseEnd - entry.responseStart : performance.now() - started;
    const rate = gzipped.length / Math.max(span, 1);
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

/** The type Pyodide needs a file of its own to have (instantiateStreaming, the wasm's).
 * @param {string} name */
function typeOf(name) {
  return name.endsWith(".wasm") ? "application/wasm" : "application/zip";
}

/** `response` (of a gzip or, when `lzma`, an .lzma file) as a response of `name` (its type for
 * Pyodide: instantiateStreaming needs the wasm's), its body inflated as it arrives: Pyodide
 * compiles the wasm while it downloads. A gzip body that does not start as gzip does (a host
 * that sent the file with Content-Encoding: gzip has inflated it already) passes as it is.
 * @param {string} name
 * @param {Response} response
 * @param {boolean} [lzma] */
async function inflatedResponse(name, response, lzma = false) {
  const type = typeOf(name);
  if (lzma && response.ok && response.body) {
    const body = lzmaStream(response.body, sizes[name]?.[0],
      (bytes) => { inflated.set(name, bytes); });
    return new Response(body, { status: 200, headers: { "Content-Type": type } });
  }
  if (!response.ok || !response.body) return response;
  const reader = response.body.getReader();
  const first = await reader.read();
  const body = new ReadableStream({
    start(controller) {
      if (!first.done) controller.enqueue(first.value);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  const gzip = !first.done && first.value[0] === GZIP_MAGIC[0] && first.value[1] === GZIP_MAGIC[1];
  return new Response(gzip ? body.pipeThrough(new DecompressionStream("gzip")) : body,
    { status: 200, headers: { "Content-Type": type } });
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

/** @typedef {"lzma" | "gzip" | "inflated"} Packing how the wasm and the standard library
 * come: as .lzma (a slow link), gzipped, or inflated already (from the cache, where a visit
 * that inflated .lzma files left them: keepInflated) */

/** What the service worker's cache (static/sw.js) holds: `boot`, "snapshot" or "plain" when
 * it holds what that boot needs, else null (nothing cached: the link decides); `packing`, in
 * which packing it holds the wasm and the standard library (null: not cached).
 * @param {SnapshotInfo | null} snapshot
 * @param {ReturnType<typeof bootFiles>} files
 * @returns {Promise<{boot: "snapshot" | "plain" | null, packing: Packing | null}>} */
async function cachedBoot(snapshot, files) {
  /** @type {{boot: "snapshot" | "plain" | null, packing: Packing | null}} */
  const found = { boot: null, packing: null };
  try {
    if (!self.caches || !(await caches.has(CACHE))) return found;
    const cache = await caches.open(CACHE);
    /** @param {string[]} names */
    const has = async (names) => {
      for (const name of names) {
        if (!(await cache.match(new URL(name, files.pyodideURL).href))) return false;
      }
      return true;
    };
    const packed = Object.keys(files.lzma);
    // (inflated files are read from the cache only through the service worker: without it
    // they would come whole from the network)
    if (controlled && packed.length && await has(packed)) found.packing = "inflated";
    else if (packed.length && await has(packed.map((name) => files.lzma[name]))) {
      found.packing = "lzma";
    } else if (await has([files.gzipped["pyodide.asm.wasm"] ?? "pyodide.asm.wasm"])) {
      found.packing = "gzip";
    }
    if (snapshot?.url && await cache.match(new URL(snapshot.url, siteURL).href)) {
      found.boot = "snapshot";
    } else if (found.packing !== null) {
      found.boot = "plain";
    }
  } catch {
    // no cache to read (a private window may refuse it): the link decides
  }
  return found;
}

/** How the wasm and the standard library come on a first visit: as .lzma on a link slower
 * than LZMA_BELOW (as the baked frames measured it, or as the browser says), else gzipped.
 * @param {ReturnType<typeof bootFiles>} files
 * @param {number | null} rate
 * @returns {Packing} */
function packingFor(files, rate) {
  if (!files.lzma["pyodide.asm.wasm"]) return "gzip";
  return slowLink() || (rate !== null && rate < LZMA_BELOW) ? "lzma" : "gzip";
}

// the files inflated from .lzma here: {name: bytes}, kept for the next visit (keepInflated)
/** @type {Map<string, Uint8Array>} */
const inflated = new Map();

/** Put the files inflated from .lzma into the service worker's cache under their own names:
 * a visit from the cache then reads them as they are (inflating the wasm from .lzma costs a
 * second or two of CPU, on every visit). Only where the page has a service worker (it serves
 * the cached files: without one the next visit would download them whole).
 * @param {ReturnType<typeof bootFiles>} files
 * @param {BootConfig} config */
async function keepInflated(files, config) {
  if (!config.serviceWorker || !self.caches || !inflated.size) {
    inflated.clear(); // (12 MB the worker need not hold)
    return;
  }
  try {
    const cache = await caches.open(CACHE);
    for (const [name, bytes] of inflated) {
      await cache.put(new URL(name, files.pyodideURL).href,
        new Response(/** @type {Uint8Array<ArrayBuffer>} */ (bytes),
          { headers: { "Content-Type": typeOf(name) } }));
    }
  } catch {
    // not kept (a private window, a full disk): the next visit inflates them again
  }
  inflated.clear();
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
 * plain boot follows). `rate`: the link's bytes per ms, as measured (Infinity: the files come
 * from the cache, or from memory in the one-file page).
 * @param {SnapshotInfo | null} snapshot
 * @param {number} rate
 * @returns {{use: boolean, bytes: Promise<{bytes?: Uint8Array, reason?: string}>}} */
function fetchSnapshot(snapshot, rate) {
  /** @param {string} reason */
  const none = (reason) => ({ use: false, bytes: Promise.resolve({ reason }) });
  if (!snapshot?.url) return none("this build has no snapshot");
  // (Infinity: from the cache or from memory, no link to spare)
  const slow = rate === Infinity ? null : slowLink();
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

/** @returns {Promise<{live: PyProxy, path: "snapshot" | "plain", fallback: string | null,
 *    packing: Packing} | null>} */
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
  // (the one-file page holds every file in memory: no link to measure, nothing to spare)
  let rate = config.inMemory ? Infinity : await bakedDone;
  const cached = await cachedBoot(config.snapshot, files);
  // on a slow link, the wasm and the standard library as .lzma; a visit from the cache reads
  // them as the first one kept them
  const packing = cached.packing ?? packingFor(files, rate);
  // (the package list comes with the config when the build put it there: no download)
  const gzipped = packing === "lzma" ? { ...files.gzipped, ...files.lzma }
    : packing === "inflated" ? {} : files.gzipped;
  const wanted = ["pyodide.asm.wasm", "python_stdlib.zip"];
  if (!config.lock) wanted.push("pyodide-lock.json");
  for (const name of wanted) {
    const url = new URL(name, files.pyodideURL).href;
    // a file the build also gzipped whole (the standard library: a host sends a zip as it
    // is) comes gzipped (or as .lzma), and Pyodide gets it inflated
    const packed = gzipped[name];
    const early = packed
      ? download(packed, new URL(packed, files.pyodideURL))
        .then((response) => inflatedResponse(name, response, packed.endsWith(".lzma")))
      : download(name, url);
    early.catch(() => {}); // reported by the watched fetch when Pyodide asks
    prefetched.set(url, early);
  }
  const archive = download("core", files.archiveURL).then(async (response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    // (gzipped by the build: web/site/build.py CORE; a plain zip passes as it is)
    return gunzipped(new Uint8Array(await response.arrayBuffer()));
  });
  archive.catch(() => {}); // reported by the watched fetch; awaited below
  arriving.set("pyodide.asm.mjs", [0, 1, sizes["pyodide.asm.mjs"]?.[1] ?? 0]);
  postProgress(true);
  // no baked frames: the wasm's first bytes measure the link (unless it says it is slow)
  if (cached.boot === null && !rate && config.snapshot?.url && !slowLink()) {
    rate = await probeRate(gzipped["pyodide.asm.wasm"] ?? "pyodide.asm.wasm");
  }
  // a visit after one that kept its files (static/sw.js) boots as that one did: from the cache
  // (rate: measured above whenever the snapshot may be fetched, a number then)
  /** @type {ReturnType<typeof fetchSnapshot>} */
  const frozen = cached.boot === "plain" ? { use: false, bytes: Promise.resolve(
    { reason: "the first visit booted without it, and the cache keeps what it used" }) }
    : fetchSnapshot(config.snapshot,
      cached.boot === "snapshot" ? Infinity : /** @type {number} */ (rate));
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
  const pyodideOptions = { indexURL: files.pyodideURL.href, packages: [],
    ...(config.lock ? { lockFileContents: config.lock } : {}) };
  await drawn;
  let pyodide = null;
  /** @type {string | null} */
  let fallback = null;
  if (config.snapshot?.url && config.snapshot.pyodide !== version) {
    // said whether or not the link would have fetched it: it could never be used
    fallback = `the snapshot was made by Pyodide ${config.snapshot.pyodide}, this is ${version}`;
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
      pyodide = await loadPyodide({ ...pyodideOptions, _loadSnapshot: snapshotBytes });
    } catch (error) {
      fallback = `the snapshot did not load: ${error?.message ?? error}`;
    }
  } else {
    fallback = (await frozen.bytes).reason ?? "not chosen";
  }
  if (!pyodide) {
    console.info(`Integrator Lab: starting Python without the snapshot (${fallback})`);
    pyodide = await loadPyodide(pyodideOptions);
  }
  if (bootFailed) return null; // a file failed, yet Pyodide went on: do not pretend to run
  /** @type {number[]} */ (arriving.get("pyodide.asm.mjs"))[0] = 1; // imported by loadPyodide
  timings.pyodide = performance.now();
  step = files.coreStep;
  progressKey = "boot.core";
  postProgress(true);
  // the snapshot holds the imported modules, not their files: unpack them either way, for a
  // module imported later
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(await archive, "zip", { extractDir: sitePackages });
  const path = fallback === null ? "snapshot" : "plain";
  if (path === "plain") pyodide.runPython(config.code);
  const live = pyodide.globals.get(config.global);
  timings.core = performance.now();
  self.pyodide = pyodide;
  keepInflated(files, config); // (not awaited: Python is up)
  return { live, path, fallback, packing };
}

