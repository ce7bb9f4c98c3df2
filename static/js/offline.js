// @ts-check
// Integrator Lab page: once Python is up, the service worker (the site's sw.js, written by the
// build) is registered and told which files this visit used, the worker's included: a second
// visit then reads nothing but index.html, and a visit with no network still runs.

/** @import { BootConfig, WorkerHandlers } from "../types/protocol" */

/** For status(): null (no service worker here), "registering", "kept" (the files are cached),
 * or "failed: why".
 * @type {{state: string | null, kept: number}} */
export const offline = { state: null, kept: 0 };

/** `handlers`: worker.js's map of further message types (no import: status.js reads this).
 * @param {WorkerHandlers} handlers */
export function keepOffline(handlers) {
  /** @type {BootConfig} */
  const boot = JSON.parse(/** @type {string} */ (
    /** @type {HTMLElement} */ (document.getElementById("il-boot-config")).textContent));
  if (!boot.serviceWorker || !("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) {
    return;
  }
  // the worker says which files it fetched, after "ready" (static/worker.mjs)
  handlers.set("fetched", (msg) => {
    if (offline.state) return; // once a page (a replaced worker says it again)
    offline.state = "registering";
    keep(/** @type {string} */ (boot.serviceWorker), msg.urls).catch((error) => {
      offline.state = `failed: ${error?.message ?? error}`;
      console.info(`Integrator Lab: no offline copy (${offline.state})`);
    });
  });
}

/** @param {string} script
 * @param {string[]} workerUrls */
async function keep(script, workerUrls) {
  await navigator.serviceWorker.register(script);
  const registration = await navigator.serviceWorker.ready;
  // (the icon, which the browser fetched itself, is in no list)
  const urls = [location.href, new URL("favicon.ico", location.href).href, ...workerUrls,
    ...performance.getEntriesByType("resource").map((entry) => entry.name)];
  const channel = new MessageChannel();
  /** @type {Promise<{kept: number}>} */
  const answered = new Promise((resolve) => { channel.port1.onmessage = (e) => resolve(e.data); });
  /** @type {ServiceWorker} */ (registration.active) // (ready: there is an active one)
    .postMessage({ type: "keep", urls }, [channel.port2]);
  offline.kept = (await answered).kept;
  offline.state = "kept";
}
