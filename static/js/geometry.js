// Integrator Lab page: the geometry view of each panel (a "Geometry" button beside Live and
// Study). Left, the stability plot: the plane of z = dt·λ with its axes and ticks, each
// selected integrator's region boundary in its colour (solid when the system's point lies
// inside it, dashed when outside: that run diverges), the system's points dt·λ as black ×,
// the time step's own control beside it and one verdict per integrator as its legend.
// Right, each integrator's ring of states in a frame of its own, fitted to it, beside the
// start ring at the same scale, with its area ratio as a bar on a log scale; a ring that
// diverged is greyed and says so. The worker computes everything
// (views.geometry.Geometries, following the live run); this module only draws it, as SVG.
// Every text is set as textContent, never as HTML.

import { data, SYSTEMS } from "./data.js";
import { integratorName, language, t } from "./i18n.js";
import { onLanguage } from "./localize.js";
import { model } from "./models.js";
import { dtAt, dtPosition, dtScaled, sayClamped } from "./params.js";
import { onSave, saveState, state } from "./urlstate.js";
import { send, handlers } from "./worker.js";

const GEO_SVG = "http://www.w3.org/2000/svg";
// the stability plot (px of its viewBox): the plot's margins hold the ticks and axis titles
const PLOT = { width: 340, left: 46, right: 10, top: 10, bottom: 40 };
const RING_SIZE = 120; // px, each ring's square frame
const RING_PAD = 8; // px, inside the frame
const BAR_DECADES = 3; // the area bar spans 1/1000 to 1000 (log scale)
const POINT_ARM = 7; // px, half the × of a point
const DASHES = { true: "", false: "7 5", null: "2 4" }; // a region's line by its verdict
const DIVERGED_COLOR = "#9a9a9a";
const geoViews = Object.fromEntries(SYSTEMS.map((s) => [s, {
  open: false, window: null, regions: null, colors: {}, texts: null, updates: 0,
  points: null, verdicts: null, areas: null, cards: null,
}]));

function geoEl(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function geoSvg(tag, attrs = {}, text = "") {
  const node = document.createElementNS(GEO_SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  return node;
}

function geoLang() {
  return language() === "ja" ? "ja" : "en";
}

// a number as people write it: 3 digits, or a power of ten with superscripts far from 1
const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶",
                      7: "⁷", 8: "⁸", 9: "⁹" };
export function readableRatio(x) {
  if (x >= 0.01 && x < 1000) return x.toPrecision(3);
  const exponent = Math.floor(Math.log10(x));
  const mantissa = Number((x / 10 ** exponent).toPrecision(2));
  const power = `10${[...String(exponent)].map((c) => SUPERSCRIPT[c]).join("")}`;
  return mantissa === 1 ? power : `${mantissa}×${power}`;
}

// a tick's label: "−2" with a true minus sign
const tickLabel = (v) => (v < 0 ? `−${-v}` : String(v));

function buildDtControl(system) {
  const box = geoEl("div", { class: "il-geometry-dt" });
  const id = `il-geometry-${system}-dt`;
  box.appendChild(geoEl("label", { for: id, "data-i18n": "geometry.dt" }, t("geometry.dt")));
  const half = geoEl("button", { type: "button", class: "il-geometry-dt-step",
                                 "data-factor": "0.5" }, "÷2");
  const range = geoEl("input", { type: "range", id,
                                 min: String(Math.log10(data.dtRange[0])),
                                 max: String(Math.log10(data.dtRange[1])), step: "0.01" });
  const double = geoEl("button", { type: "button", class: "il-geometry-dt-step",
                                   "data-factor": "2" }, "×2");
  const shown = geoEl("output", { for: id, id: `${id}-value` });
  const setDt = (x) => {
    // as typed into the panel's own field: that field's handler checks it and restarts the run
    model(`${system}:dt`).value = x;
  };
  range.addEventListener("input", () => {
    const x = dtAt(Number(range.value));
    shown.textContent = `${x} s`;
    range.setAttribute("aria-valuetext", `${x} s`);
  });
  range.addEventListener("change", () => setDt(dtAt(Number(range.value))));
  for (const button of [half, double]) {
    button.addEventListener("click", () => {
      const factor = Number(button.dataset.factor);
      const [x, clamped] = dtScaled(state.dt[system], factor);
      if (clamped) sayClamped(system, state.dt[system] * factor, x);
      setDt(x);
    });
  }
  box.append(half, range, double, shown);
  return box;
}

function relabel(system) {
  const button = document.getElementById(`il-geometry-${system}-toggle`);
  if (button) {
    button.textContent = t("geometry.open");
    button.title = t("geometry.open.tip");
  }
  const block = document.getElementById(`il-geometry-${system}`);
  if (!block) return;
  const [half, double] = block.querySelectorAll(".il-geometry-dt-step");
  half.setAttribute("aria-label", t("dt.half"));
  double.setAttribute("aria-label", t("dt.double"));
}

function buildGeometry(system) {
  const section = document.querySelector(`.il-panel[data-system="${system}"]`);
  if (!section) return;
  const group = section.querySelector(".il-study-switch");
  const button = geoEl("button", { type: "button", id: `il-geometry-${system}-toggle`,
                                   "aria-pressed": "false",
                                   "aria-controls": `il-geometry-${system}` });
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
  const drawings = geoEl("div", { class: "il-geometry-drawings" });
  // the stability plot, and beside it the time step and the legend (one verdict a line)
  const region = geoEl("figure", { class: "il-geometry-region" });
  region.appendChild(geoEl("figcaption", { id: `il-geometry-${system}-region-title` }));
  region.appendChild(geoSvg("svg", { id: `il-geometry-${system}-region`,
                                     "aria-labelledby": `il-geometry-${system}-region-title`,
                                     viewBox: `0 0 ${PLOT.width} ${PLOT.width}` }));
  drawings.appendChild(region);
  const side = geoEl("div", { class: "il-geometry-side" });
  side.appendChild(buildDtControl(system));
  // (a live region around the list: a list's own role must stay "list" for its items)
  const verdicts = geoEl("div", { role: "status" });
  verdicts.appendChild(geoEl("ul", { class: "il-geometry-verdicts",
                                     id: `il-geometry-${system}-verdicts` }));
  side.appendChild(verdicts);
  drawings.appendChild(side);
  // the rings, one frame each
  const phase = geoEl("figure", { class: "il-geometry-phase" });
  phase.appendChild(geoEl("figcaption", { id: `il-geometry-${system}-phase-title` }));
  phase.appendChild(geoEl("div", { class: "il-geometry-cards", id: `il-geometry-${system}-phase`,
                                   role: "group",
                                   "aria-labelledby": `il-geometry-${system}-phase-title` }));
  phase.appendChild(geoEl("p", { class: "il-geometry-note", "data-i18n": "geometry.rings.note" },
                          t("geometry.rings.note")));
  drawings.appendChild(phase);
  block.appendChild(drawings);
  section.querySelector(".il-panel-title").parentNode.insertBefore(
    block, (group ?? button).nextSibling);
  relabel(system);
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

// -- the stability plot --------------------------------------------------------------------
function plotFrame(window) {
  const [x0, x1, y0, y1] = window;
  const k = (PLOT.width - PLOT.left - PLOT.right) / (x1 - x0); // px per unit, both axes
  const height = PLOT.top + k * (y1 - y0) + PLOT.bottom;
  const at = (x, y) => [PLOT.left + (x - x0) * k, PLOT.top + (y1 - y) * k];
  return { x0, x1, y0, y1, k, height, at };
}

function geoPath(points, at) {
  return points.map(([x, y], i) => {
    const [px, py] = at(x, y);
    return `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`;
  }).join("");
}

function drawAxes(svg, frame, texts) {
  const { x0, x1, y0, y1, at, height } = frame;
  const [lx, ty] = at(x0, y1);
  const [rx, by] = at(x1, y0);
  svg.appendChild(geoSvg("rect", { x: lx, y: ty, width: rx - lx, height: by - ty,
                                   fill: "#fbfbfa", stroke: "#999" }));
  const ticks = svg.appendChild(geoSvg("g", { class: "il-geometry-ticks", "font-size": 11,
                                              fill: "#333" }));
  for (let v = Math.ceil(x0); v <= Math.floor(x1); v++) {
    const [px] = at(v, 0);
    svg.appendChild(geoSvg("path", { d: `M${px},${ty}V${by}`, stroke: v ? "#e6e6e2" : "#777",
                                     "stroke-width": 1 }));
    svg.appendChild(geoSvg("path", { d: `M${px},${by}v5`, stroke: "#555" }));
    ticks.appendChild(geoSvg("text", { x: px, y: by + 16, "text-anchor": "middle",
                                       class: "il-geometry-tick" }, tickLabel(v)));
  }
  for (let v = Math.ceil(y0); v <= Math.floor(y1); v++) {
    const [, py] = at(0, v);
    svg.appendChild(geoSvg("path", { d: `M${lx},${py}H${rx}`, stroke: v ? "#e6e6e2" : "#777",
                                     "stroke-width": 1 }));
    svg.appendChild(geoSvg("path", { d: `M${lx},${py}h-5`, stroke: "#555" }));
    ticks.appendChild(geoSvg("text", { x: lx - 8, y: py + 4, "text-anchor": "end",
                                       class: "il-geometry-tick" }, tickLabel(v)));
  }
  svg.appendChild(geoSvg("text", { x: (lx + rx) / 2, y: height - 6, "text-anchor": "middle",
                                   "font-size": 12, fill: "#222",
                                   class: "il-geometry-axis" }, texts.x));
  const [, cy] = at(0, (y0 + y1) / 2);
  svg.appendChild(geoSvg("text", { x: 0, y: 0, "text-anchor": "middle", "font-size": 12,
                                   fill: "#222", class: "il-geometry-axis",
                                   transform: `translate(13,${cy}) rotate(-90)` }, texts.y));
}

// a point dt·λ: a black × (on a white halo, over the coloured lines); one off the plot is
// drawn at its edge, as an arrow with its value
function drawPoint(svg, frame, [x, y]) {
  const { x0, x1, y0, y1, at } = frame;
  const inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
  const [px, py] = at(Math.min(Math.max(x, x0), x1), Math.min(Math.max(y, y0), y1));
  const group = svg.appendChild(geoSvg("g", { class: "il-geometry-point",
                                              "data-x": x, "data-y": y }));
  if (inside) {
    const a = POINT_ARM;
    const d = `M${px - a},${py - a}L${px + a},${py + a}M${px - a},${py + a}L${px + a},${py - a}`;
    group.appendChild(geoSvg("path", { d, stroke: "#fff", "stroke-width": 6 }));
    group.appendChild(geoSvg("path", { d, stroke: "#000", "stroke-width": 2.5 }));
    return;
  }
  // an arrow pointing out of the plot, its tip on the edge
  const dx = x < x0 ? -1 : x > x1 ? 1 : 0;
  const dy = y > y1 ? -1 : y < y0 ? 1 : 0; // (px grow downwards)
  const norm = Math.hypot(dx, dy);
  const [ux, uy] = [dx / norm, dy / norm];
  const tip = [px, py];
  const back = [px - 12 * ux, py - 12 * uy];
  const d = `M${back[0] + 6 * uy},${back[1] - 6 * ux}L${tip[0]},${tip[1]}` +
            `L${back[0] - 6 * uy},${back[1] + 6 * ux}Z`;
  group.appendChild(geoSvg("path", { d, fill: "#000", stroke: "#fff", "stroke-width": 1 }));
  const value = `${x.toFixed(2)} ${y < 0 ? "−" : "+"} ${Math.abs(y).toFixed(2)}i`
    .replace(/^-/, "−");
  const label = geoSvg("text", { x: back[0] - 4 * ux, y: back[1] - 4 * uy + 4, "font-size": 11,
                                 "text-anchor": ux > 0 ? "end" : "start", fill: "#000" },
                       t("geometry.off_plot", { value }));
  group.appendChild(label);
}

function drawRegion(system) {
  const view = geoViews[system];
  const svg = document.getElementById(`il-geometry-${system}-region`);
  const frame = plotFrame(view.window);
  svg.setAttribute("viewBox", `0 0 ${PLOT.width} ${frame.height.toFixed(1)}`);
  svg.replaceChildren();
  drawAxes(svg, frame, view.texts);
  for (const [name, pieces] of Object.entries(view.regions)) {
    const verdict = view.verdicts ? view.verdicts[name] ?? null : null;
    for (const piece of pieces) {
      svg.appendChild(geoSvg("path", { d: geoPath(piece, frame.at), fill: "none",
                                       stroke: view.colors[name], "stroke-width": 2.5,
                                       "stroke-dasharray": DASHES[verdict],
                                       "stroke-linejoin": "round",
                                       class: "il-geometry-boundary",
                                       "data-verdict": String(verdict), "data-name": name }));
    }
  }
  for (const point of view.points ?? []) drawPoint(svg, frame, point);
}

// the legend: a line per integrator (its colour, solid or dashed as on the plot) with its
// verdict, after the × and what it stands for
function drawLegend(system, update) {
  const view = geoViews[system];
  const list = document.getElementById(`il-geometry-${system}-verdicts`);
  const swatch = (draw) => {
    const svg = geoSvg("svg", { width: 28, height: 14, viewBox: "0 0 28 14",
                                "aria-hidden": "true" });
    draw(svg);
    return svg;
  };
  const item = (name, mark, text) => {
    const li = geoEl("li", name ? { "data-name": name } : { class: "il-geometry-legend-point" });
    li.append(mark, geoEl("span", {}, text));
    return li;
  };
  const items = [item(null, swatch((svg) => svg.appendChild(geoSvg("path", {
    d: "M9,2L19,12M9,12L19,2", stroke: "#000", "stroke-width": 2.5 }))),
    update.point_text)];
  for (const line of update.verdict_lines) {
    const ok = line.ok ?? null;
    const li = item(line.name, swatch((svg) => svg.appendChild(geoSvg("path", {
      d: "M1,7H27", stroke: view.colors[line.name], "stroke-width": 3,
      "stroke-dasharray": DASHES[ok] }))), line.text);
    li.dataset.verdict = String(ok);
    items.push(li);
  }
  list.replaceChildren(...items);
}

function showDtValue(system, dt) {
  const range = /** @type {HTMLInputElement} */ (
    document.getElementById(`il-geometry-${system}-dt`));
  if (document.activeElement !== range) range.value = String(dtPosition(dt));
  range.setAttribute("aria-valuetext", `${dt} s`);
  document.getElementById(`il-geometry-${system}-dt-value`).textContent = `${dt} s`;
}

// -- the rings -----------------------------------------------------------------------------
function ringCard(system, card) {
  const id = `il-geometry-${system}-card-${card.name}`;
  let box = document.getElementById(id);
  if (!box) {
    box = geoEl("div", { class: "il-geometry-card", id, "data-name": card.name });
    box.appendChild(geoEl("div", { class: "il-geometry-card-name" }));
    box.appendChild(geoSvg("svg", { class: "il-geometry-ring", role: "img",
                                    viewBox: `0 0 ${RING_SIZE} ${RING_SIZE}` }));
    const bar = geoEl("div", { class: "il-geometry-bar", "aria-hidden": "true" });
    bar.appendChild(geoEl("span", { class: "il-geometry-bar-fill" }));
    box.appendChild(bar);
    box.appendChild(geoEl("div", { class: "il-geometry-ratio" }));
  }
  // (Python's None arrives as undefined or null, as the host converts it)
  const diverged = typeof card.diverged_at === "number";
  const color = diverged ? DIVERGED_COLOR : card.color;
  box.classList.toggle("il-geometry-diverged", diverged);
  const name = integratorName(card.name);
  box.querySelector(".il-geometry-card-name").textContent = name;
  box.style.setProperty("--il-ring-color", color);
  // the frame holds the ring and the start ring (radius 1 in these units) round its centre
  const [cx, cy] = card.centre;
  const xs = [...card.xs, cx - 1, cx + 1];
  const ys = [...card.ys, cy - 1, cy + 1];
  const [lo, hi] = [Math.min(...xs), Math.max(...xs)];
  const [bottom, top] = [Math.min(...ys), Math.max(...ys)];
  const k = (RING_SIZE - 2 * RING_PAD) / Math.max(hi - lo, top - bottom);
  const mx = (lo + hi) / 2;
  const my = (bottom + top) / 2;
  const at = (x, y) => [RING_SIZE / 2 + (x - mx) * k, RING_SIZE / 2 - (y - my) * k];
  const svg = box.querySelector("svg");
  const [ox, oy] = at(cx, cy);
  const ring = card.xs.map((x, i) => [x, card.ys[i]]);
  svg.replaceChildren(
    geoSvg("rect", { x: 0.5, y: 0.5, width: RING_SIZE - 1, height: RING_SIZE - 1,
                     fill: "#fbfbfa", stroke: "#bbb" }),
    geoSvg("circle", { cx: ox, cy: oy, r: Math.max(k, 0.5), fill: "none", stroke: "#666",
                       "stroke-width": 1.2, "stroke-dasharray": "4 3",
                       class: "il-geometry-start-ring" }),
    geoSvg("path", { d: geoPath(ring, at) + "Z", fill: color, "fill-opacity": 0.18,
                     stroke: color, "stroke-width": 2, class: "il-geometry-ring-line",
                     "data-name": card.name }),
  );
  // a ring shrunk below a pixel or two is still shown where it is
  const [left] = at(Math.min(...card.xs), 0);
  const [right] = at(Math.max(...card.xs), 0);
  const [, high] = at(0, Math.max(...card.ys));
  const [, low] = at(0, Math.min(...card.ys));
  if (Math.max(right - left, low - high) < 3) {
    const [dx, dy] = at(cx, cy);
    svg.appendChild(geoSvg("circle", { cx: dx, cy: dy, r: 2.5, fill: color,
                                       class: "il-geometry-ring-dot" }));
  }
  const ratio = readableRatio(card.ratio);
  const said = diverged ? t("geometry.diverged_at", { at: card.diverged_at.toFixed(2) })
    : t("geometry.area", { ratio });
  box.querySelector(".il-geometry-ratio").textContent = said;
  svg.setAttribute("aria-label", `${name}: ${said}`);
  if (diverged) {
    svg.appendChild(geoSvg("text", { x: RING_SIZE / 2, y: 22, "text-anchor": "middle",
                                     "font-size": 14, "font-weight": 600, fill: "#444",
                                     stroke: "#fff", "stroke-width": 4, "paint-order": "stroke",
                                     class: "il-geometry-diverged-label" },
                           t("geometry.diverged")));
  }
  // the bar: log10 of the ratio from the middle (1), clipped at BAR_DECADES either way
  const fill = /** @type {HTMLElement} */ (box.querySelector(".il-geometry-bar-fill"));
  const share = Math.max(-1, Math.min(1, Math.log10(card.ratio) / BAR_DECADES));
  fill.style.left = `${50 + Math.min(share, 0) * 50}%`;
  fill.style.width = `${Math.abs(share) * 50}%`;
  box.querySelector(".il-geometry-bar").classList.toggle("il-geometry-bar-clipped",
                                                          Math.abs(share) >= 1);
  box.querySelector(".il-geometry-bar").dataset.side = share >= 0 ? "up" : "down";
  return box;
}

function drawRings(system, cards) {
  const holder = document.getElementById(`il-geometry-${system}-phase`);
  const boxes = cards.map((card) => ringCard(system, card));
  if (boxes.some((box, i) => holder.children[i] !== box) || holder.children.length !== boxes.length) {
    holder.replaceChildren(...boxes);
  }
}

function showTexts(system) {
  const texts = geoViews[system].texts;
  if (!texts) return;
  document.getElementById(`il-geometry-${system}-intro`).textContent = texts.intro;
  document.getElementById(`il-geometry-${system}-region-title`).textContent = texts.region;
  document.getElementById(`il-geometry-${system}-phase-title`).textContent = texts.phase;
  document.getElementById(`il-geometry-${system}-region`).setAttribute("role", "img");
}

function geometryUpdate(update) {
  const view = geoViews[update.system];
  if (!view || !view.open) return;
  const verdicts = document.getElementById(`il-geometry-${update.system}-verdicts`);
  if (update.error) {
    verdicts.replaceChildren(geoEl("li", {}, update.error));
    return;
  }
  if (update.regions) {
    Object.assign(view, { regions: update.regions, colors: update.colors,
                          window: update.window, texts: update.texts });
    showTexts(update.system);
  }
  if (!view.regions) return;
  if (update.points) {
    Object.assign(view, { points: update.points, verdicts: update.verdicts });
    drawLegend(update.system, update);
    showDtValue(update.system, update.dt);
  }
  if (update.regions || update.points) drawRegion(update.system);
  drawRings(update.system, update.cards);
  Object.assign(view, { areas: update.areas, cards: update.cards });
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
      relabel(system);
      // an open view is drawn again in the new language
      if (geoViews[system].open) setGeometryOpen(system, true);
    }
  });
  syncGeometry(); // a link's `geometry=` (the worker buffers the message until Python is up)
  // what tests and curious visitors read: per system, the updates drawn, the verdicts, the
  // area ratios (null once a ring diverged), the points dt·λ and each ring's last area
  window.integratorLabGeometry = {
    state: (system) => {
      const v = geoViews[system];
      return { open: v.open, updates: v.updates, verdicts: v.verdicts ?? null,
               areas: v.areas ?? null, points: v.points ?? null,
               cards: v.cards ? v.cards.map((c) => ({ name: c.name, ratio: c.ratio,
                                                      divergedAt: c.diverged_at ?? null }))
                 : null };
    },
  };
}
