// @ts-check
// Integrator Lab page: what a demo embedded in an <iframe> (embed=1) adds: a link that opens
// the same view in the full lab, and a pause while the frame is scrolled out of view, so that
// a documentation page with many demos only computes the ones a reader sees.

import { state, queryFromState } from "./urlstate.js";
import { live, setStatusText } from "./live.js";
import { send } from "./worker.js";

const link = /** @type {HTMLAnchorElement} */ (document.getElementById("il-open"));

// The full page's URL for the current state, relative to this site (this page's own file,
// index.html), so it holds wherever the site is published.
export function showOpenLink() {
  link.hidden = !state.embed;
  if (!state.embed) return;
  // on the title line of the first panel shown: the top rows are the embed's scarce room
  const first = document.querySelector(`.il-panel[data-system="${state.systems[0]}"]`);
  if (first && link.parentElement !== first) first.prepend(link);
  const query = queryFromState(Object.assign({}, state, { embed: false }));
  const page = location.pathname.split("/").pop() || "index.html";
  link.href = page + (query ? "?" + query : "");
}

// Whether the simulation should step now: playing, and (in a frame) in view.
export function running() {
  return state.playing && !live.offscreen;
}

// The observer's root is the top-level viewport (also for a cross-origin frame), so a
// frame scrolled off its host page stops intersecting. A top-level page is always in view.
export function pauseOffscreen() {
  if (window.self === window.top || !("IntersectionObserver" in window)) return;
  new IntersectionObserver((entries) => {
    const offscreen = !entries[entries.length - 1].isIntersecting;
    if (offscreen === live.offscreen) return;
    live.offscreen = offscreen;
    send({ type: "play", value: running() }); // the URL's play setting stays as it was
    for (const system of state.systems) {
      const entry = live.systems[system];
      setStatusText(system, entry.simTime, entry.realTimeFactor);
    }
  }).observe(document.body);
}
