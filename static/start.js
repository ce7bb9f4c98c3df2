// Integrator Lab: start Python at once, before BokehJS loads and draws the dashboard.
//
// The worker has its own thread and its first work is downloading (Pyodide, the snapshot, the
// core), so it need not wait for the page. This is the one place that creates it (in the
// one-file build too, where a page shim answers `new Worker` with a data: URL worker). What
// it says before static/js/worker.js takes it over is kept here and handed on (a message that
// finds no handler is lost). From file:// there is no worker (browsers refuse it, and the
// page's modules): this script says so itself.
"use strict";
window.integratorLabEarly = (() => {
  const early = { worker: null, messages: [], errors: [], failure: null, fileUrl: false };
  if (location.protocol === "file:") {
    early.fileUrl = true;
    // the note and the loading texts are in the page, below this script: once it is parsed
    document.addEventListener("readystatechange", () => {
      // in the page's language (the modules that choose it do not run from file://: as
      // static/js/i18n.js does, the URL's lang, else the browser's first language)
      const i18n = JSON.parse(document.getElementById("il-data").textContent).i18n;
      const wanted = [new URLSearchParams(location.search).get("lang"),
        ((navigator.languages && navigator.languages[0]) || "").toLowerCase().split("-")[0]];
      const lang = wanted.find((l) => l in i18n.languages) || i18n.default;
      const text = (key) => i18n.catalog[key][lang] || i18n.catalog[key].en;
      document.documentElement.lang = lang;
      const note = document.getElementById("il-served");
      note.textContent = text("page.file_url");
      note.hidden = false;
      document.querySelectorAll(".il-loading").forEach((el) => {
        el.querySelector("span").textContent = text("page.file_url.short");
        el.classList.add("il-failed");
      });
    }, { once: true });
    return early;
  }
  // The first paint already shows the URL's view: the dashboard stays hidden until main.js
  // has applied the URL's state to the models drawn at build time (their defaults), and an
  // embed (embed=1, the last one given wins, as in urlstate.js) never shows the page's header.
  const root = document.documentElement;
  root.classList.add("il-pending");
  if (new URLSearchParams(location.search).getAll("embed").pop() === "1") {
    root.classList.add("il-embed");
  }
  const boot = JSON.parse(document.getElementById("il-boot-config").textContent);
  // a new worker, told where its files are; the page replaces a worker that stopped
  // answering (a user's method that never returns) with another one from here
  early.spawn = (bake = false) => {
    const worker = new Worker("static/worker.mjs", { type: "module" });
    worker.postMessage({ type: "boot", boot, bake });
    return worker;
  };
  // the default view's first seconds, computed at build time: the page animates them while
  // Python boots (static/js/baked.js decodes them and decides). Not for a link that sets the
  // simulation otherwise (its query names more than how the page looks) or holds a method.
  // The worker downloads them at once and hands them over: a failed download there is no
  // error on the page's console.
  const looks = ["lang", "hide", "exact", "energy", "log", "phase", "embed"];
  const keys = Array.from(new URLSearchParams(location.search).keys());
  early.baked = null; // a promise of the file's bytes
  if (boot.baked && !location.hash && keys.every((key) => looks.includes(key))) {
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
    if (event.data?.type === "baked") early.bakedArrived(event.data);
    else early.messages.push(event);
  };
  early.worker.onerror = (event) => early.errors.push(event);
  return early;
})();
