// Integrator Lab page: a boot that fails or takes long says what failed and what to do.

import { BOOT_SLOW_MS } from "./data.js";
import { setLoading, bootAlert } from "./messages.js";
import { live } from "./live.js";

function bootAdvice(file, detail) {
  const advice = ["Reload the page to try again."];
  if (/^HTTP 404\b/.test(detail)) {
    advice.push(`The host has no ${file}: publish the whole folder that ` +
                "`integrator-lab build` writes, not just index.html.");
  } else if (/^HTTP /.test(detail)) {
    advice.push(`The host refused ${file}; check its logs.`);
  } else {
    advice.push(`If it keeps failing, check the connection: a proxy, firewall or ` +
                `browser extension may block ${file}.`);
  }
  const missing = /^HTTP 404\b/.test(detail);
  if (file.endsWith(".wasm") && !missing) {
    advice.push("The host must serve .wasm files as application/wasm.");
  }
  if (/\.m?js$/.test(file) && /^served as /.test(detail)) {
    advice.push(`The host must serve .${file.split(".").pop()} files as JavaScript ` +
                "(text/javascript).");
  }
  return advice.join(" ");
}
export function bootFailed(file, detail) {
  if (live.error || live.ready) return; // the first failure is the cause
  live.error = `The simulation could not start: ${file} did not load (${detail}). ` +
    bootAdvice(file, detail);
  live.notice = null;
  bootAlert(live.error);
  setLoading(`Not running: ${file} did not load (see the message at the top)`, true);
}
export function bootSlow() {
  if (live.ready || live.error) return; // (called only once the worker exists)
  const what = live.step || "the simulation worker (static/worker.mjs)";
  live.notice = `Still starting after ${BOOT_SLOW_MS / 1000} s, loading ${what}. A slow ` +
    "connection may need longer; if nothing changes, reload the page.";
  bootAlert(live.notice);
  setLoading(`Still loading ${what}…`);
}
// The worker failed before it said anything: its own file did not load or run.
export function workerFailed(event) {
  const file = "static/worker.mjs";
  fetch(file, { method: "HEAD", cache: "no-store" }).then((response) => {
    const type = response.headers.get("content-type") || "no type";
    if (!response.ok) bootFailed(file, `HTTP ${response.status} ${response.statusText}`.trim());
    else if (!/javascript/.test(type)) bootFailed(file, `served as ${type}, not as JavaScript`);
    else bootFailed(file, event.message || "the browser could not run it as a module worker");
  }, (error) => bootFailed(file, `the download failed: ${error.message}`));
}
