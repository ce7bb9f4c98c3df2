// Integrator Lab: start Python at once, before BokehJS loads and draws the dashboard.
//
// The worker has its own thread and its first work is downloading (Pyodide, the snapshot, the
// core), so it need not wait for the page. What it says before bridge.js takes it over is kept
// here and handed on (a message that finds no handler is lost). From file:// there is no
// worker (browsers refuse it): bridge.js says so, or, in the one-file build, makes its own.
"use strict";
window.integratorLabEarly = (() => {
  if (location.protocol === "file:") return null;
  const boot = JSON.parse(document.getElementById("il-boot-config").textContent);
  performance.mark("il:worker-start");
  const early = { worker: null, messages: [], errors: [] };
  try {
    early.worker = new Worker("static/worker.mjs", { type: "module" });
  } catch (error) {
    early.failure = error;
    return early;
  }
  early.worker.onmessage = (event) => early.messages.push(event);
  early.worker.onerror = (event) => early.errors.push(event);
  early.worker.postMessage({ type: "boot", boot });
  return early;
})();
