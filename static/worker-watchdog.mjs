// @ts-check
// Integrator Lab: the simulation worker's answers to the page's watchdog (static/js/worker.js),
// a module of the worker (static/worker.mjs, bundled with it by the build).
//
// The page replaces a worker that stops answering while a user's method may run. Its pings and
// this worker's answers travel on a MessagePort handed over in the boot message, before any
// user code runs, and kept in this module's scope: Python's `js` module reaches the worker's
// global scope, never this port, and the functions that answer are taken when this module is
// evaluated, before any user code could replace them. So user code can neither answer for a
// worker it froze nor stop the answers of a worker that is alive (other than by keeping the
// thread busy, which is what the watchdog measures). It can post on the worker's own channel,
// where no liveness is read.

/** @import { PingMessage, PongMessage } from "./types/protocol" */

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
let watchPort = null; // the watchdog's port, from the boot message
/** @type {[number, number][]} */
const calls = []; // [end, duration] of the calls into Python of the last SLOWEST_WINDOW_MS

/** Answer the pings that come on `port` (the boot message's; the first one given is kept).
 * @param {MessagePort | undefined} port */
export function watchOn(port) {
  if (!port || watchPort) return;
  watchPort = port;
  watchPort.onmessage = answerPing;
}

/** Run `work` (a call into Python) and remember how long it took, for the watchdog: the
 * recurring slices (ticks, study slices), not a message's one-off work (a new method, a new
 * system), which says nothing of how long the next slice may take.
 * @template T
 * @param {() => T} work
 * @returns {T} */
export function timed(work) {
  const began = now();
  try {
    return work();
  } finally {
    const end = now();
    calls.push([end, end - began]);
    while (calls.length && calls[0][0] < end - SLOWEST_WINDOW_MS) calls.shift();
  }
}

/** Answer a ping (`event.data.id`; none: an answer unasked, as when Python is up) with the
 * longest recent call into Python.
 * @param {{data?: PingMessage}} event */
export function answerPing(event) {
  const id = event.data?.id ?? 0;
  let slowest = 0;
  for (const [, duration] of calls) slowest = Math.max(slowest, duration);
  if (watchPort) {
    apply(portPost, watchPort, [/** @satisfies {PongMessage} */ ({ type: "pong", id, slowest })]);
  }
}
