// Integrator Lab, one-file build: the page's worker comes from a data: URL
// (web/site/single_file.py puts this before static/start.js, which creates the worker).
//
// The embedded files are script elements at the end of the body: they are posted to the worker
// once the page is parsed (readyState "interactive", before the page's modules run); the
// worker keeps any message that comes earlier. The builder fills in the placeholders (the
// names between double underscores).
(function () {
  "use strict";
  const WORKER_URL = "__WORKER_URL__";
  const files = () => Array.from(document.querySelectorAll('script[type="__FILE_TYPE__"]'),
    (el) => ({ name: el.dataset.name, gzip: el.dataset.gzip === "1", base64: el.textContent }));
  const whenParsed = (fn) => {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("readystatechange", fn, { once: true });
  };
  const NativeWorker = window.Worker;
  window.Worker = function IntegratorLabWorker() {
    const worker = new NativeWorker(WORKER_URL, { type: "module" });
    whenParsed(() => worker.postMessage({ __FILES_KEY__: files() }));
    return worker;
  };
})();
