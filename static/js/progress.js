// @ts-check
// Integrator Lab page: the progress bar while Python downloads ("Python 4.1 of 5.2 MB", from
// the worker's "progress" messages: bytes as a host that compresses sends them), and the word
// that a change made meanwhile waits for Python. Gone once Python answers.

import { t } from "./i18n.js";
import { live } from "./live.js";

const progressBox = document.getElementById("il-progress");
// (the bar and its text are there whenever the box is: render)
const progressBar = /** @type {HTMLProgressElement} */ (
  document.getElementById("il-progress-bar"));
const progressText = /** @type {HTMLElement} */ (document.getElementById("il-progress-text"));

/** What the bar shows, for status(): bytes, updates received, whether a change waits. */
export const progress = { loaded: 0, total: 0, updates: 0, queued: false };

const megabytes = (/** @type {number} */ bytes) => (bytes / 1e6).toFixed(1);

function render() {
  if (!progressBox) return;
  if (live.ready || live.error || !progress.total) {
    progressBox.hidden = true;
    return;
  }
  progressBar.max = progress.total;
  progressBar.value = Math.min(progress.loaded, progress.total);
  const done = progress.loaded >= progress.total * 0.999;
  const what = done ? t("boot.progress.starting")
    : t("boot.progress", { loaded: megabytes(progress.loaded), total: megabytes(progress.total) });
  progressText.textContent = progress.queued ? `${what} · ${t("boot.queued")}` : what;
  progressBox.hidden = false;
}

/** A "progress" message of the worker.
 * @param {import("../types/protocol").ProgressMessage} msg */
export function showProgress(msg) {
  if (typeof msg.total !== "number") return;
  progress.loaded = msg.loaded;
  progress.total = msg.total;
  progress.updates += 1;
  render();
}

/** The page sent the worker a change before Python was up: say it waits. */
export function noteQueued() {
  if (live.ready || live.error) return;
  progress.queued = true;
  render();
}

/** Python answers, or failed: the bar goes. */
export const endProgress = render;
