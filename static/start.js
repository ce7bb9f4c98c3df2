// @ts-check
// Integrator Lab: start Python at once, before BokehJS loads and draws the dashboard.
//
// The worker has its own thread and its first work is downloading (Pyodide, the snapshot, the
// core), so it need not wait for the page. This is the one place that creates it (in the
// one-file build too, where a page shim answers `new Worker` with a data: URL worker). What
// it says before static/js/worker.js takes it over is kept here and handed on (a message that
// finds no handler is lost). From file:// there is no worker (browsers refuse it, and the
// page's modules): this script says so itself.
"use strict";
/** @import { BootConfig, SimulationWorker } from "./types/protocol" */
window.integratorLabEarly = (() => {
  // (watchPorts and spawn are set below, before there is any worker)
  const early = /** @type {IntegratorLabEarly} */ (/** @type {unknown} */ (
    { worker: null, messages: [], errors: [], failure: null, fileUrl: false }));
  // A text of the catalog in the page's language, for the page's texts before (or without)
  // its modules: as static/js/i18n.js chooses, the URL's lang, else the browser's first
  // language. The catalog is in the page, below this script: call it once that is parsed.
  /** @param {string} key
   * @param {Record<string, string>} [values] */
  const catalogText = (key, values = {}) => {
    const i18n = JSON.parse(/** @type {string} */ (
      /** @type {HTMLElement} */ (document.getElementById("il-data")).textContent)).i18n;
    const wanted = [new URLSearchParams(location.search).get("lang"),
      ((navigator.languages && navigator.languages[0]) || "").toLowerCase().split("-")[0]];
    const lang = wanted.find((/** @type {any} */ l) => l in i18n.languages) || i18n.default;
    document.documentElement.lang = lang;
    /** @type {string} */
    const text = i18n.catalog[key][lang] || i18n.catalog[key].en;
    return text.replace(/\{(\w+)\}/g, (all, name) => (name in values ? values[name] : all));
  };
  /** @param {string} long
   * @param {string} short */
  const sayStopped = (long, short) => {
    const note = /** @type {HTMLElement} */ (document.getElementById("il-served"));
    note.textContent = long;
    note.hidden = false;
    document.querySelectorAll(".il-loading").forEach((el) => {
      /** @type {HTMLElement} */ (el.querySelector("span")).textContent = short;
      el.classList.add("il-failed");
    });
  };
  if (location.protocol === "file:") {
    early.fileUrl = true;
    document.addEventListener("readystatechange", () => {
      sayStopped(catalogText("page.file_url"), catalogText("page.file_url.short"));
    }, { once: true });
    return early;
  }
  // A script of the page that does not load (BokehJS, its widgets, the page's module) leaves
  // nobody to say so: its element's error event, seen here, says which file, once the page is
  // parsed. So does one that came but did not run: what a host sends in place of a file it
  // lacks (its own HTML page, as many answer any path) does not parse, and its error, thrown
  // before the script's load event, names that script's URL.
  /** @type {Set<string>} the page's scripts that ran (their load event came) */
  const ran = new Set();
  window.addEventListener("load", (event) => {
    if (event.target instanceof HTMLScriptElement) ran.add(event.target.src);
  }, true);
  /** @param {Event} event */
  const failedScript = (event) => {
    const element = event.target;
    if (element instanceof HTMLScriptElement) return element.src;
    if (!(event instanceof ErrorEvent) || !event.filename || ran.has(event.filename)) return "";
    return Array.from(document.scripts, (script) => script.src).includes(event.filename)
      ? event.filename : "";
  };
  window.addEventListener("error", (event) => {
    const src = failedScript(event);
    if (!src || early.scriptFailed) return;
    const file = new URL(src, location.href).pathname.split("/").slice(-2).join("/");
    early.scriptFailed = file;
    const say = () => sayStopped(catalogText("page.script_failed", { file }),
      catalogText("page.script_failed.short", { file }));
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", say, { once: true });
    } else {
      say();
    }
  }, true);
  // The first paint already shows the URL's view: the dashboard stays hidden until main.js
  // has applied the URL's state to the models drawn at build time (their defaults), and an
  // embed (embed=1, the last one given wins, as in urlstate.js) never shows the page's header.
  const root = document.documentElement;
  root.classList.add("il-pending");
  if (new URLSearchParams(location.search).getAll("embed").pop() === "1") {
    root.classList.add("il-embed");
  }
  /** @type {BootConfig} */
  const boot = JSON.parse(/** @type {string} */ (
    /** @type {HTMLElement} */ (document.getElementById("il-boot-config")).textContent));
  const hostOrigin = boot.hostOrigin || location.origin;
  if (boot.host === "server") {
    // A server runs this page's engine (web/server/hosted.py): the page is a frame of the
    // server's own page, which carries the protocol's messages over its connection. There is
    // no worker to start, no watchdog (the server bounds a visitor's code) and no baked start.
    if (window.parent === window) {
      document.addEventListener("readystatechange", () => {
        sayStopped(catalogText("page.hosted_alone"), catalogText("page.hosted_alone.short"));
      }, { once: true });
      early.fileUrl = true; // (nothing to start: as from file://)
      return early;
    }
    early.host = window.parent; // (static/js/main.js tells it the view, as the URL changes)
    // the host's origin: this page's (served by the server that hosts it), or any ("*": a
    // notebook's page, from a loopback server of the kernel's; only the parent is heard)
    early.hostOrigin = hostOrigin;
    early.code = boot.visitorCode; // what the server does with a visitor's Python (editor.js says it)
    early.spawn = () => serverEngine(window.parent);
  } else {
    early.spawn = (bake = false) => workerEngine(bake);
  }
  // a new worker, told where its files are; the page replaces a worker that stopped
  // answering (a user's method that never returns) with another one from here. Its
  // watchdog's pings go on a port of their own (static/worker.mjs says why), handed over
  // before any user code runs: early.watchPorts maps each worker to the page's end
  early.watchPorts = new WeakMap();
  // (its script's name carries its content's hash in a hashed build: a new build's worker is
  // a new URL, which no cache of an earlier visit answers)
  early.workerUrl = boot.worker;
  /** @param {boolean} bake */
  function workerEngine(bake) {
    const worker = /** @type {SimulationWorker} */ (
      new Worker(boot.worker, { type: "module" }));
    const channel = new MessageChannel();
    early.watchPorts.set(worker, channel.port1);
    // (controlled: a service worker answers this page's requests, and its worker's: what
    // its cache holds is what the worker's downloads get)
    const controlled = Boolean(navigator.serviceWorker?.controller);
    worker.postMessage({ type: "boot", boot, bake, controlled, watch: channel.port2 },
      [channel.port2]);
    return worker;
  }
  // The engine on the server, as a worker the page talks to: messages to `host` (the frame's
  // parent, which alone may answer, from this origin); a frame's samples come as base64 of
  // little-endian doubles and are the worker's Float64Array again here. Each spawn is a new
  // engine (the page renews its worker after a visitor's method: the server does too).
  /** @param {Window} host */
  function serverEngine(host) {
    const engine = /** @type {SimulationWorker} */ (/** @type {unknown} */ ({
      onmessage: null,
      onerror: null,
      /** @param {unknown} msg */
      postMessage(msg) { host.postMessage({ integratorLab: "page", msg }, hostOrigin); },
      terminate() { window.removeEventListener("message", hear); },
    }));
    /** @param {MessageEvent} event */
    const hear = (event) => {
      if (event.source !== host || (hostOrigin !== "*" && event.origin !== hostOrigin)) return;
      if (event.data?.integratorLab === "host" && event.data.msg?.type === "apply") {
        // a view set by the host's Python (a Dashboard's parameters): as a link's, in place
        const query = String(event.data.msg.query);
        if (document.documentElement.dataset.drawn) window.integratorLab?.apply(query);
        else early.applyWhenDrawn = query; // (static/js/main.js, once drawn)
        return;
      }
      const msg = event.data?.integratorLab === "engine" ? event.data.msg : null;
      if (!msg) return;
      if (msg.type === "frame") {
        for (const frame of Object.values(msg.systems)) {
          const bytes = Uint8Array.from(atob(frame.data), (c) => c.charCodeAt(0));
          frame.data = new Float64Array(bytes.buffer);
        }
      }
      engine.onmessage?.(/** @type {MessageEvent} */ ({ data: msg }));
    };
    window.addEventListener("message", hear);
    host.postMessage({ integratorLab: "page", msg: { type: "spawn" } }, hostOrigin);
    return engine;
  }
  // the default view's first seconds, computed at build time: the page animates them while
  // Python boots (static/js/baked.js decodes them and decides). Not for a link that sets the
  // simulation otherwise (its query names more than how the page looks) or holds a method.
  // The worker downloads them at once and hands them over: a failed download there is no
  // error on the page's console.
  const looks = ["lang", "hide", "exact", "energy", "log", "phase", "embed"];
  const keys = Array.from(new URLSearchParams(location.search).keys());
  early.baked = null; // a promise of the file's bytes
  if (boot.baked && boot.host !== "server" && !location.hash && keys.every((key) => looks.includes(key))) {
    early.baked = new Promise((resolve, reject) => {
      // static/js/worker.js passes on the worker's answer, once it took the worker over
      early.bakedArrived = (msg) => (msg.bytes ? resolve(msg.bytes) : reject(new Error(msg.error)));
    });
    early.baked.catch(() => {}); // baked.js says why, once it looks
  }
  performance.mark("il:worker-start");
  try {
    early.worker = early.spawn(Boolean(early.baked));
  } catch (error) {
    early.failure = error;
    return early;
  }
  early.worker.onmessage = (event) => {
    if (event.data?.type === "baked") early.bakedArrived?.(event.data);
    else early.messages.push(event);
  };
  early.worker.onerror = (event) => early.errors.push(event);
  return early;
})();
