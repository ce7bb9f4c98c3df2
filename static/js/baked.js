// Integrator Lab page: the baked start. The build computed the default view's first seconds
// (web/site/bake.py: the frames the worker would post, in one gzip file that static/start.js
// starts downloading at once). When the page shows that view, it animates those frames from
// its first draw, in real time, through the same code as the worker's frames (frames.js),
// while Python boots. Then it hands over: the worker, which computed the same frames itself,
// goes on from the frame shown last (static/worker.mjs), so that no sample is repeated or
// missing. Any change the worker must hear of ends the bake first (worker.js's send).

/** @import { PageMessage } from "../types/protocol" */

import { SYSTEMS } from "./data.js";
import { applyLayout, applyFrame, flushDue } from "./frames.js";
import { live, setStatusText } from "./live.js";
import { state } from "./urlstate.js";

const BAKE_MAGIC = "ILBK"; // views.live.BAKE_MAGIC
const BAKE_FORMAT = 1; // views.live.BAKE_FORMAT
// after the first draw, the baked file's download is waited for this long at most: then the
// worker starts without it
export const BAKE_WAIT_MS = 1000;
// baked frames played again from their start at most this often while Python is not up (on a
// slow link that takes longer than the frames last): the page never stands still
const MAX_REPLAYS = 30;

export const baked = {
  playing: false, // baked frames are being animated
  shown: -1, // the last baked frame drawn
  framesDrawn: 0, // baked frames drawn
  replays: 0, // times the frames were played again from their start (Python not up yet)
  handedOver: false, // the worker was told to go on from baked frame `shown`
  bake: null, // {header, data, offsets}
  started: 0, // performance.now() when baked frame 0 was due
  /** @type {((frame: number, then: PageMessage | null) => void) | null} */
  handoff: null, // function(frame): tells the worker (worker.js)
};

/** The baked frames from the download static/start.js started: {header, data, offsets}.
 * Throws on a missing, truncated or foreign file. */
export async function loadBake(download) {
  // inflated by the worker (static/worker.mjs): what is left here takes no await
  const bytes = new Uint8Array(await download);
  if (bytes.length < 8 || new TextDecoder().decode(bytes.subarray(0, 4)) !== BAKE_MAGIC) {
    throw new Error("not a baked-frames file");
  }
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
  const start = 8 + length;
  if (start > bytes.length || start % 8) throw new Error("truncated header");
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, start)));
  if (header.format !== BAKE_FORMAT || header.frames.length !== header.ticks) {
    throw new Error(`format ${header.format}, ${header.frames.length} frames`);
  }
  const offsets = [];
  let size = 0;
  for (const frame of header.frames) {
    const at = {};
    for (const [system, f] of Object.entries(frame)) { at[system] = size; size += f.size; }
    offsets.push(at);
  }
  if ((bytes.length - start) !== 8 * size) {
    throw new Error(`${(bytes.length - start) / 8} numbers, expected ${size}`);
  }
  // a copy: the data must start at a multiple of 8 bytes of its own buffer
  const data = new Float64Array(bytes.slice(start).buffer);
  return { header, data, offsets };
}

const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether the page shows the view the build baked (`view`; without it: whether it may):
 * the same systems, integrators, parameters and steps, at speed 1, playing and in view,
 * with no study open and no method of the user's (the URL's fragment), and Python's boot has
 * not failed. */
export function bakeWanted(view = null) {
  // (nor when Python could not start: the panels say so instead)
  if (live.error || state.speed !== 1 || !state.playing || live.offscreen ||
      state.study.length || location.hash) return false;
  if (!view) return true;
  return sameList(state.systems, view.systems) && sameList(state.integrators, view.integrators) &&
    state.systems.every((s) => state.dt[s] === view.dt[s] &&
      sameList(Object.keys(view.params[s]), Object.keys(state.params[s])) &&
      Object.entries(view.params[s]).every(([name, value]) => state.params[s][name] === value));
}

/** Animate the baked frames from now; `handoff(frame)` tells the worker where to go on.
 * @param {any} bake
 * @param {(frame: number, then: PageMessage | null) => void} handoff */
export function playBake(bake, handoff) {
  baked.bake = bake;
  baked.handoff = handoff;
  for (const result of bake.header.layouts) applyLayout(result.layout, result.errors);
  live.source = "baked";
  // the panels move at once: their loading notes go (worker.js's "ready" would do it later)
  document.querySelectorAll(".il-loading").forEach((el) => { el.hidden = true; });
  baked.playing = true;
  baked.started = performance.now();
  requestAnimationFrame(drawBaked);
}

function applyBaked(index, scene) {
  const { header, data, offsets } = baked.bake;
  for (const [system, f] of Object.entries(header.frames[index])) {
    const at = offsets[index][system];
    applyFrame(system, Object.assign({}, f, { data: data.subarray(at, at + f.size) }), scene);
  }
}

// Once per animation frame: every baked frame due by now (never ahead of real time), so that
// the plots get every sample even when the browser skips animation frames; the scenes take
// the last one's picture only (each picture given to BokehJS costs its renderers' update).
function drawBaked() {
  if (!baked.playing) return;
  const { header } = baked.bake;
  const last = header.ticks - 1;
  const due = Math.min(last,
    Math.floor((performance.now() - baked.started) / 1000 / header.wall));
  if (due > baked.shown) {
    while (baked.shown < due) {
      baked.shown += 1;
      baked.framesDrawn += 1;
      applyBaked(baked.shown, baked.shown === due);
    }
    live.framesDrawn += 1;
    flushDue();
    if (!live.marked) {
      live.marked = true;
      performance.mark("il:live");
    }
  }
  // played again, Python came: hand over now (the worker goes back to the frame shown)
  if (baked.replays && live.ready) endBake();
  else if (baked.shown === last && !live.ready && !live.error && baked.replays < MAX_REPLAYS) {
    replay();
    requestAnimationFrame(drawBaked);
  } else if (baked.shown === last) endBake();
  else requestAnimationFrame(drawBaked);
}

// The frames ran out before Python is up: from the start again (the layouts clear the plots).
function replay() {
  baked.replays += 1;
  // as the first time (playBake): the layouts, then frame 0 at the next animation frame
  for (const result of baked.bake.header.layouts) applyLayout(result.layout, result.errors);
  baked.shown = -1;
  baked.started = performance.now();
}

/** Stop animating baked frames and tell the worker to go on from the one shown last (it
 * queues that until Python is up; meanwhile the panels say that Python is starting), after
 * the message `then` (a change that ended the bake), if any. Whether it did.
 * @param {PageMessage | null} [then] */
export function endBake(then = null) {
  if (!baked.playing) return false;
  baked.playing = false;
  baked.handedOver = true;
  live.holding = true;
  baked.handoff(baked.shown, then);
  for (const system of SYSTEMS) {
    const entry = live.systems[system];
    if (state.systems.includes(system)) setStatusText(system, entry.simTime, entry.realTimeFactor);
  }
  return true;
}

/** Where the page's frames come from, for status(). */
export function bakeStatus() {
  return {
    source: live.source ?? null, // "baked" or "worker", null before the first frame
    bakedFrames: baked.framesDrawn,
    bakeReplays: baked.replays,
    // "playing" baked frames; "held": they ran out (or a change ended them) and the worker
    // has not yet sent its first frame; "handed over"; null: no bake on this page
    bake: baked.playing ? "playing" : !baked.handedOver ? null
      : live.holding ? "held" : "handed over",
  };
}
