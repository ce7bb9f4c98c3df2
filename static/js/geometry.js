// Integrator Lab page: the geometry view of each panel (a "Geometry" button beside Live and
// Study): the stability regions of the selected integrators with the system's points
// dt·λ, which move with the dt slider and turn grey outside a region, and each integrator's
// ring of states in the phase plane with its area ratio. The worker computes everything
// (views.geometry.Geometries, following the live run); this module only draws it, as SVG.
// Every text is set as textContent, never as HTML.

import { SYSTEMS } from "./data.js";
import { language } from "./i18n.js";
import { onLanguage } from "./localize.js";
import { onSave, saveState, state } from "./urlstate.js";
import { send, handlers } from "./worker.js";

const GEO_SVG = "http://www.w3.org/2000/svg";
const GEO_SIZE = 260; // px, each drawing's square
const geoViews = Object.fromEntries(SYSTEMS.map((s) => [s, {
  open: false, window: null, regions: null, colors: {}, texts: null, updates: 0,
}]));

function geoEl(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function geoSvg(tag, attrs = {}) {
  const node = document.createElementNS(GEO_SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function geoLang() {
  return language() === "ja" ? "ja" : "en";
}

function geoLabel() {
  return geoLang() === "ja" ? "幾何" : "Geometry";
}

function buildGeometry(system) {
  const section = document.querySelector(`.il-panel[data-system="${system}"]`);
  if (!section) return;
  const group = section.querySelector(".il-study-switch");
  const button = geoEl("button", { type: "button", id: `il-geometry-${system}-toggle`,
                                   "aria-pressed": "false",
                                   "aria-controls": `il-geometry-${system}` },
                       geoLabel());
  button.addEventListener("click", () => {
    // the state says which views are open (`geometry=` in the link); syncGeometry follows it
    const open = !geoViews[system].open;
    state.geometry = SYSTEMS.filter((s) => (s === system ? open : state.geometry.includes(s)));
    saveState();
  });
  if (group) group.appendChild(button);
  else section.querySelector(".il-panel-title").after(button);
  const block = geoEl("div", { class: "il-geometry", id: `il-geometry-${system}`, hidden: "" });
  block.appendChild(geoEl("p", { class: "il-geometry-intro", id: `il-geometry-${system}-intro` }));
  block.appendChild(geoEl("p", { class: "il-geometry-verdicts", role: "status",
                                 id: `il-geometry-${system}-verdicts` }));
  const drawings = geoEl("div", { class: "il-geometry-drawings" });
  for (const role of ["region", "phase"]) {
    const figure = geoEl("figure", { class: `il-geometry-${role}` });
    figure.appendChild(geoEl("figcaption", { id: `il-geometry-${system}-${role}-title` }));
    // named by its caption: an image once the caption has come (showTexts)
    figure.appendChild(geoSvg("svg", { id: `il-geometry-${system}-${role}`,
                                       "aria-labelledby": `il-geometry-${system}-${role}-title`,
                                       viewBox: `0 0 ${GEO_SIZE} ${GEO_SIZE}`,
                                       width: GEO_SIZE, height: GEO_SIZE }));
    drawings.appendChild(figure);
  }
  block.appendChild(drawings);
  block.appendChild(geoEl("p", { class: "il-geometry-areas", id: `il-geometry-${system}-areas` }));
  section.querySelector(".il-panel-title").parentNode.insertBefore(
    block, (group ?? button).nextSibling);
}

export function setGeometryOpen(system, open) {
  const view = geoViews[system];
  view.open = open;
  document.getElementById(`il-geometry-${system}`).hidden = !open;
  document.getElementById(`il-geometry-${system}-toggle`)
    .setAttribute("aria-pressed", String(open));
  view.regions = null;
  send({ type: "geometry", system, open, lang: geoLang() });
}

// -- drawing -------------------------------------------------------------------------------
function geoScale(x0, x1, y0, y1) {
  const pad = 8;
  const k = (GEO_SIZE - 2 * pad) / Math.max(x1 - x0, y1 - y0);
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  return (x, y) => [GEO_SIZE / 2 + (x - cx) * k, GEO_SIZE / 2 - (y - cy) * k];
}

function geoPath(points, at) {
  return points.map(([x, y], i) => {
    const [px, py] = at(x, y);
    return `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`;
  }).join("");
}

function drawRegion(system, update) {
  const view = geoViews[system];
  const svg = document.getElementById(`il-geometry-${system}-region`);
  const [x0, x1, y0, y1] = view.window;
  const at = geoScale(x0, x1, y0, y1);
  svg.replaceChildren();
  const [ox, oy] = at(0, 0);
  const [lx, ty] = at(x0, y1);
  const [rx, by] = at(x1, y0);
  svg.appendChild(geoSvg("rect", { x: lx, y: ty, width: rx - lx, height: by - ty,
                                   fill: "#fbfbfa", stroke: "#bbb" }));
  svg.appendChild(geoSvg("path", { d: `M${lx},${oy}H${rx}M${ox},${ty}V${by}`, stroke: "#888",
                                   "stroke-width": 1, fill: "none" }));
  for (const [name, pieces] of Object.entries(view.regions)) {
    for (const piece of pieces) {
      svg.appendChild(geoSvg("path", { d: geoPath(piece, at), fill: "none",
                                       stroke: view.colors[name], "stroke-width": 2,
                                       "data-name": name }));
    }
  }
  const p = update.points;
  for (let i = 0; i < p.x.length; i++) {
    if (p.x[i] < x0 || p.x[i] > x1 || p.y[i] < y0 || p.y[i] > y1) continue;
    const [cx, cy] = at(p.x[i], p.y[i]);
    svg.appendChild(geoSvg("circle", { cx, cy, r: p.size[i] / 2, fill: "none",
                                       stroke: p.color[i], "stroke-width": 2.5,
                                       class: "il-geometry-point", "data-name": p.name[i] }));
  }
  const note = geoSvg("text", { x: 6, y: GEO_SIZE - 6, "font-size": 11, fill: "#444" });
  note.textContent = `dt = ${update.dt} s`;
  svg.appendChild(note);
}

function drawRings(system, update) {
  const view = geoViews[system];
  const svg = document.getElementById(`il-geometry-${system}-phase`);
  svg.replaceChildren();
  const rings = update.rings;
  if (!rings.xs.length) return;
  // framed as Python decided for both dashboards (views.geometry GeometrySession.ring_window:
  // the rings whose area stayed near the start's; a runaway ring is drawn clipped)
  if (!update.ring_window) return;
  const [x0, x1, y0, y1] = update.ring_window;
  const at = geoScale(x0, x1, y0, y1);
  svg.appendChild(geoSvg("rect", { x: 0, y: 0, width: GEO_SIZE, height: GEO_SIZE,
                                   fill: "#fbfbfa", stroke: "#bbb" }));
  for (let i = 0; i < rings.xs.length; i++) {
    const points = rings.xs[i].map((x, k) => [x, rings.ys[i][k]]);
    svg.appendChild(geoSvg("path", { d: geoPath(points, at), fill: rings.color[i],
                                     "fill-opacity": 0.12, stroke: rings.color[i],
                                     "stroke-width": 2, "data-name": rings.name[i] }));
  }
  void view;
}

function showTexts(system) {
  const texts = geoViews[system].texts;
  if (!texts) return;
  document.getElementById(`il-geometry-${system}-intro`).textContent = texts.intro;
  document.getElementById(`il-geometry-${system}-region-title`).textContent = texts.region;
  document.getElementById(`il-geometry-${system}-phase-title`).textContent = texts.phase;
  for (const role of ["region", "phase"]) {
    document.getElementById(`il-geometry-${system}-${role}`).setAttribute("role", "img");
  }
}

function geometryUpdate(update) {
  const view = geoViews[update.system];
  if (!view || !view.open) return;
  const verdicts = document.getElementById(`il-geometry-${update.system}-verdicts`);
  if (update.error) {
    verdicts.textContent = update.error;
    return;
  }
  if (update.regions) {
    Object.assign(view, { regions: update.regions, colors: update.colors,
                          window: update.window, texts: update.texts });
    showTexts(update.system);
  }
  if (!view.regions) return;
  if (update.points) {
    view.lastPoints = update;
    drawRegion(update.system, update);
    verdicts.textContent = update.verdict_text;
    view.verdicts = update.verdicts;
  }
  drawRings(update.system, update);
  document.getElementById(`il-geometry-${update.system}-areas`).textContent = update.area_text;
  view.areas = update.areas;
  view.updates += 1;
}

// open and close the views as the state says (a click, a link, a lesson)
function syncGeometry() {
  for (const system of SYSTEMS) {
    const open = state.geometry.includes(system);
    if (open !== geoViews[system].open && document.getElementById(`il-geometry-${system}`)) {
      setGeometryOpen(system, open);
    }
  }
}

export function initGeometry() {
  for (const system of SYSTEMS) buildGeometry(system);
  onSave(syncGeometry);
  handlers.set("geometry", geometryUpdate);
  onLanguage(() => {
    for (const system of SYSTEMS) {
      const button = document.getElementById(`il-geometry-${system}-toggle`);
      if (button) button.textContent = geoLabel();
      // an open view is drawn again in the new language
      if (geoViews[system].open) setGeometryOpen(system, true);
    }
  });
  syncGeometry(); // a link's `geometry=` (the worker buffers the message until Python is up)
  // what tests and curious visitors read: per system, the updates drawn and the verdicts
  window.integratorLabGeometry = {
    state: (system) => {
      const v = geoViews[system];
      return { open: v.open, updates: v.updates, verdicts: v.verdicts ?? null,
               areas: v.areas ?? null };
    },
  };
}
