// Integrator Lab page: direct manipulation. Dragging the pendulum's bob, a cradle ball or the
// spring's mass in a scene sets that system's initial state: while the pointer is down the
// simulation of that system waits (the other systems go on) and every lane shows the body
// where the pointer puts it; on release the system restarts from there (t = 0, every
// integrator and the exact solution) and the URL says so. Pointer events, so a mouse, a pen
// and a finger all work; a press that misses every body is left alone (a touch there scrolls
// the page as before).
//
// Which body a press takes and what the pointer sets are dragmath.js's, the rules of
// web/views/drag.py (the Panel dashboard's), under a parity test (tests/js/drag.test.mjs); a
// lane's geometry and the rules' numbers come from the worker's layout (views.live:
// `origins`, the offset of each lane in the view, the system's `pivots` about it, `drag`).
// This file does the pointer events, the preview and the note of a clamped value.

import { SYSTEMS } from "./data.js";
import { live } from "./live.js";
import { model } from "./models.js";
import { dragValues, hitBody } from "./dragmath.js";
import { clampNoteText, paramDecl, say } from "./params.js";
import { state, saveState } from "./urlstate.js";
import { configureSystem, send } from "./worker.js";

function sceneView(system) {
  return Bokeh.index.query_one((v) => v.model && v.model.name === `${system}:scene`);
}

// the scene's hover tooltips (integrator, order) would cover the body being dragged
function showTips(view, shown) {
  const Hover = Bokeh.Models.get("HoverTool");
  for (const tool of view.model.toolbar.tools) {
    if (!(tool instanceof Hover)) continue;
    tool.active = shown;
    // a tooltip already open stays until its tool clears it (BokehJS's HoverToolView)
    const toolView = Bokeh.index.query_one((v) => v.model === tool);
    if (!shown && toolView && typeof toolView._clear === "function") toolView._clear();
  }
}

// the pointer in the scene's data coordinates, and the size of one pixel there
function toData(view, event) {
  const box = view.el.getBoundingClientRect();
  const frame = view.frame;
  const sx = event.clientX - box.left - frame.bbox.left;
  const sy = event.clientY - box.top - frame.bbox.top;
  const xr = model(`${view.model.name}:x_range`);
  return {
    x: frame.x_scale.invert(sx), y: frame.y_scale.invert(sy), sx, sy,
    inside: sx >= 0 && sy >= 0 && sx <= frame.bbox.width && sy <= frame.bbox.height,
    pixel: Math.abs(xr.end - xr.start) / frame.bbox.width,
  };
}

// the body under the pointer: {lane, ball} (the rules: dragmath.js, views/drag.py)
function hit(system, at) {
  const layout = live.systems[system].layout;
  return hitBody(model(`${system}:scene:bodies`).data, layout, state.hidden, at);
}

// the initial positions (view coordinates) of each ball of a lane, for `params`
function ballsAt(system, lane, params) {
  const layout = live.systems[system].layout;
  const [ox, oy] = layout.origins[lane];
  if (system === "spring") return [[params.x0 + ox, oy]];
  const length = params.length;
  return layout.pivots.map(([px, py], k) => {
    const theta = system === "pendulum" ? params.theta0
      : k < params.lifted ? -params.angle : 0;
    return [px + ox + length * Math.sin(theta), py + oy - length * Math.cos(theta)];
  });
}

// the preview: every lane's bodies (and rods, or springs) where the new state puts them
function preview(system, params) {
  const layout = live.systems[system].layout;
  const lanes = layout.integrators.length;
  const source = model(`${system}:scene:bodies`);
  const bodies = Object.assign({}, source.data);
  const links = Object.assign({}, model(`${system}:scene:links`).data);
  for (const columns of [bodies, links]) { // the moving columns arrive as typed arrays
    for (const c of Object.keys(columns)) {
      if (ArrayBuffer.isView(columns[c])) columns[c] = Array.from(columns[c]);
    }
  }
  const perBody = lanes ? layout.counts.bodies / lanes : 0;
  const perLink = lanes ? layout.counts.links / lanes : 0;
  for (let lane = 0; lane < lanes; lane += 1) {
    ballsAt(system, lane, params).forEach(([x, y], k) => {
      const row = lane * perBody + k;
      const old = Number.isFinite(bodies.x[row]) ? bodies.x[row] : bodies.fx[row];
      bodies.x[row] = x; bodies.y[row] = y;
      bodies.fx[row] = bodies.fy[row] = bodies.ax[row] = bodies.ay[row] = NaN;
      if (system !== "spring") {
        const link = lane * perLink + k;
        const [px, py] = layout.pivots[k];
        const [ox, oy] = layout.origins[lane];
        links.x0[link] = px + ox; links.y0[link] = py + oy;
        links.x1[link] = x; links.y1[link] = y;
        links.fx0[link] = links.fy0[link] = links.fx1[link] = links.fy1[link] = NaN;
        return;
      }
      // the spring's zigzag, stretched between the wall and the block's new left side
      const wall = layout.fixtures.x0[lane];
      const half = bodies.w[row] / 2;
      const scale = (x - half - wall) / (old - half - wall);
      for (let j = lane * perLink; j < (lane + 1) * perLink; j += 1) {
        const live0 = Number.isFinite(links.x0[j]);
        const [a, b, c, d] = live0 ? [links.x0, links.y0, links.x1, links.y1]
          : [links.fx0, links.fy0, links.fx1, links.fy1];
        const stretched = (v) => (Number.isFinite(scale) ? wall + (v - wall) * scale : v);
        const row0 = [stretched(a[j]), b[j], stretched(c[j]), d[j]];
        [links.x0[j], links.y0[j], links.x1[j], links.y1[j]] = row0;
        links.fx0[j] = links.fy0[j] = links.fx1[j] = links.fy1[j] = NaN;
      }
    });
  }
  source.data = bodies;
  model(`${system}:scene:links`).data = links;
  // the exact solution's ghost joins again from the new state
  const ghost = model(`${system}:scene:ghost_bodies`);
  const ghostData = Object.assign({}, ghost.data);
  ghostData.x = Array.from(ghostData.x || [], () => NaN);
  ghostData.y = Array.from(ghostData.y || [], () => NaN);
  ghost.data = ghostData;
  const ghostLinks = model(`${system}:scene:ghost_links`);
  ghostLinks.data = Object.fromEntries(Object.entries(ghostLinks.data)
    .map(([c, v]) => [c, Array.from(v, () => NaN)]));
}

let drag = null; // {system, lane, ball, pointerId, view, params}

function move(event) {
  if (!drag || event.pointerId !== drag.pointerId) return;
  event.preventDefault();
  const at = toData(drag.view, event);
  const { system, lane, ball } = drag;
  const { values, clamped } = dragValues(system, live.systems[system].layout,
    state.params[system], (name) => paramDecl(system, name), lane, ball, at);
  drag.params = Object.assign({}, state.params[system], values);
  drag.clamped = clamped;
  preview(system, drag.params);
}

function release(event) {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const { system, params, clamped, view } = drag;
  live.systems[system].dragging = false;
  view.el.style.cursor = "";
  showTips(view, true);
  drag = null;
  window.removeEventListener("pointermove", move, true);
  window.removeEventListener("pointerup", release, true);
  window.removeEventListener("pointercancel", release, true);
  if (event.type === "pointercancel" || !params) {
    // the browser took the pointer (a scroll, a second finger): nothing is set, and the
    // run starts again from the settings in force (the preview moved its bodies)
    configureSystem(system);
    send({ type: "hold", system, value: false });
    return;
  }
  if (clamped.length) say(system, clampNoteText(system, clamped));
  state.params[system] = params;
  saveState();
  // a new run from the dragged state, at t = 0 (the worker rebuilds the system)
  configureSystem(system);
  send({ type: "hold", system, value: false });
}

function press(event) {
  if (drag || (event.pointerType === "mouse" && event.button !== 0)) return;
  for (const system of state.systems) {
    const layout = SYSTEMS.includes(system) ? live.systems[system].layout : null;
    if (!layout || !layout.drag.draggable.includes(system)) continue;
    const view = sceneView(system);
    if (!view || !view.el.isConnected) continue;
    const at = toData(view, event);
    if (!at.inside) continue;
    const found = hit(system, at);
    if (!found) return;
    // the body is taken: no text selection, no scrolling, no Bokeh gesture
    event.preventDefault();
    event.stopPropagation();
    drag = { system, view, pointerId: event.pointerId, pointerType: event.pointerType,
             params: null, clamped: [], ...found };
    view.el.style.cursor = "grabbing";
    showTips(view, false);
    live.systems[system].dragging = true;
    // this system's run waits for the release; the other systems go on
    send({ type: "hold", system, value: true });
    window.addEventListener("pointermove", move, true);
    window.addEventListener("pointerup", release, true);
    window.addEventListener("pointercancel", release, true);
    move(event);
    return;
  }
}

// A finger on a body drags it rather than scroll the page: a touch's scroll can only be
// refused at its touchstart (which follows its pointerdown); elsewhere a touch scrolls.
function holdTouch(event) {
  if (drag && drag.pointerType === "touch") event.preventDefault();
}

// a mouse over a body shows that it can be taken
let hovered = null; // the scene view whose cursor was set
function hover(event) {
  if (drag || event.pointerType !== "mouse" || event.buttons) return;
  let over = null;
  for (const system of state.systems) {
    const layout = live.systems[system].layout;
    if (!layout || !layout.drag.draggable.includes(system)) continue;
    const view = sceneView(system);
    if (!view || !view.el.isConnected) continue;
    const at = toData(view, event);
    if (at.inside && hit(system, at)) over = view;
  }
  if (hovered && hovered !== over) hovered.el.style.cursor = "";
  if (over) over.el.style.cursor = "grab";
  hovered = over;
}

export function enableDrag() {
  document.addEventListener("pointerdown", press, true);
  document.addEventListener("touchstart", holdTouch, { capture: true, passive: false });
  document.addEventListener("pointermove", hover, { passive: true });
}
