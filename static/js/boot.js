// @ts-check
// Integrator Lab page: a boot that fails or takes long says what failed and what to do.

import { BOOT_SLOW_MS } from "./data.js";
import { t } from "./i18n.js";
import { setLoading, bootAlert } from "./messages.js";
import { live } from "./live.js";

/** @param {string} file  @param {string} detail */
function bootAdvice(file, detail) {
  const advice = [t("boot.reload")];
  if (/^HTTP 404\b/.test(detail)) {
    advice.push(t("boot.missing", { file }));
  } else if (/^HTTP /.test(detail)) {
    advice.push(t("boot.refused", { file }));
  } else {
    advice.push(t("boot.connection", { file }));
  }
  const missing = /^HTTP 404\b/.test(detail);
  if (file.endsWith(".wasm") && !missing) {
    advice.push(t("boot.wasm"));
  }
  if (/\.m?js$/.test(file) && /^served as /.test(detail)) {
    advice.push(t("boot.js", { ext: file.split(".").pop() }));
  }
  return advice.join(" ");
}
/** @param {string} file  @param {string} detail */
export function bootFailed(file, detail) {
  if (live.error || live.ready) return; // the first failure is the cause
  live.error = t("boot.failed", { file, detail, advice: bootAdvice(file, detail) });
  live.notice = null;
  bootAlert(live.error);
  setLoading(t("boot.failed.short", { file }), true);
}
export function bootSlow() {
  if (live.ready || live.error) return; // (called only once the worker exists)
  const what = live.step || t("boot.worker");
  live.notice = t("boot.slow", { seconds: BOOT_SLOW_MS / 1000, what });
  bootAlert(live.notice);
  setLoading(t("boot.slow.short", { what }));
}
// The worker failed before it said anything: its own file (`file`) did not load or run.
/** @param {ErrorEvent | Event} event
 * @param {string} file */
export function workerFailed(event, file) {
  fetch(file, { method: "HEAD", cache: "no-store" }).then((response) => {
    const type = response.headers.get("content-type") || "no type";
    if (!response.ok) bootFailed(file, `HTTP ${response.status} ${response.statusText}`.trim());
    else if (!/javascript/.test(type)) bootFailed(file, `served as ${type}, not as JavaScript`);
    else bootFailed(file, ("message" in event && event.message) ||
      "the browser could not run it as a module worker");
  }, (error) => bootFailed(file, `the download failed: ${error.message}`));
}
