// Integrator Lab page: the energy and phase plots: their sample sources, lines built on
// demand, the log scale, and the view options (display only, no simulation change).

import { data, SYSTEMS, DECL, INTEGRATORS, COLUMNS, BREAKDOWN } from "./data.js";
import { t, integratorName } from "./i18n.js";
import { findModel, model, newModel } from "./models.js";
import { state } from "./urlstate.js";
import { userMethod, userNames } from "./method.js";
import { showHeld } from "./documents.js";
import { fit, firstEnergyHeight } from "./layout.js";
import { applyEnergyBars, applyEnergyView } from "./energyview.js";

// -- view options (display only, no simulation change) ---------------------------------
// Lines are built on demand, as the build does in Python (figures.SystemFigures.line): only
// for the selected integrators and the kinds on view, which keeps the embedded document light.

const createdSources = {}; // sources of integrators not selected at build time
export function sampleSource(system, name) {
  const key = `${system}:samples:${name}`;
  let source = findModel(key) || createdSources[key];
  if (!source) {
    source = newModel("ColumnDataSource", {
      data: Object.fromEntries(COLUMNS.map((c) => [c, []])), name: key,
    });
    createdSources[key] = source;
  }
  return source;
}

function ensureLine(system, kind, name) {
  const lineName = `${system}:line:${kind}:${name}`;
  const existing = findModel(lineName);
  if (existing) return existing;
  const style = Object.assign({}, data.lineStyles[kind]);
  const x = style.x;
  const y = style.y;
  delete style.x;
  delete style.y;
  const glyph = newModel("Line", Object.assign(
    { x: { field: x }, y: { field: y }, line_color: data.colors[name] }, style));
  const renderer = newModel("GlyphRenderer", {
    data_source: sampleSource(system, name), glyph, name: lineName,
  });
  const fig = model(kind === "phase" ? `${system}:phase` : `${system}:energy`);
  fig.renderers = [...fig.renderers, renderer];
  return renderer;
}
function ensureStyleItems(system) {
  if (findModel(`${system}:legend-style:kinetic`)) return;
  const source = newModel("ColumnDataSource", { data: { t: [NaN], y: [NaN] } });
  const fig = model(`${system}:energy`);
  const items = BREAKDOWN.map((kind) => {
    const glyph = newModel("Line", {
      x: { field: "t" }, y: { field: "y" }, line_color: "#666666",
      line_width: data.lineStyles[kind].line_width, line_dash: data.lineStyles[kind].line_dash,
    });
    const renderer = newModel("GlyphRenderer", { data_source: source, glyph });
    fig.renderers = [...fig.renderers, renderer];
    return newModel("LegendItem", {
      label: { value: t(`energy.${kind}`) }, renderers: [renderer],
      name: `${system}:legend-style:${kind}`,
    });
  });
  const legend = model(`${system}:energy:legend`);
  legend.items = [...legend.items, ...items];
}
// The energy view's mode (views.energy.MODES): the breakdown, the log view (?log=1) or the
// linear one (the default).
export function energyMode() {
  if (state.energy === "breakdown") return "breakdown";
  return state.log ? "log" : "linear";
}
// The energy plot's axis in `mode` (views.energy_figures.axis_models), its lines on the
// mode's column, and the y-range and clipped marks the worker's last frame said for it
// (views.energy.EnergyView.view: the range is decided in Python, once for both front ends).
function setEnergyAxis(system, mode) {
  const axis = model(`${system}:energy:yaxis`);
  if (axis.tags[0] !== mode) {
    const ticker = newModel("BasicTicker",
      mode === "log" ? { min_interval: 1, desired_num_ticks: 6 } : {});
    axis.ticker = ticker;
    const code = data.energyView.tickCodes[mode];
    axis.formatter = code
      ? newModel("CustomJSTickFormatter", { code })
      : newModel("BasicTickFormatter");
    axis.tags = [mode];
    model(`${system}:energy:ygrid`).ticker = ticker;
  }
  const exact = model(`${system}:energy:exact-label`); // the zero line: the exact motion
  if (exact.visible !== (mode === "linear")) exact.visible = mode === "linear";
  const column = data.energyAxis.columns[mode === "log" ? "log" : "linear"];
  for (const name of [...INTEGRATORS, ...userMethod.known]) {
    const line = findModel(`${system}:line:error:${name}`);
    if (line && line.glyph.y.field !== column) line.glyph.y = { field: column };
  }
}
// A frame's energy view (frame.energy), or the last one again after the mode changed: what
// the mode on view shows of it (views.energy_figures.view_for_mode), applied by the code the
// Panel page runs too (energyview.js), its marks named in the page's language first
export function showEnergyView(system, view) {
  if (!view) return;
  energyViews[system] = view;
  const mode = energyMode();
  applyEnergyView(findModel, system, {
    mode, range: view[mode], bars: view.bars,
    clipped: mode === "linear" ? inLanguage(view.clipped) : null,
  }, data.energyView.marks);
}
// A frame's energy view, kept (status().energy; showEnergyView applies it with the samples
// it describes, frames.js flushSamples) and its bars beside the lanes drawn at once
export function noteEnergyView(system, view) {
  if (!view) return false;
  energyViews[system] = view;
  applyEnergyBars(findModel, system, view);
  return true;
}
// The baked frames' marks name the integrators by their code names (the build has no
// language): the worker's name them as the page does (Live.set_shown_names)
function inLanguage(clipped) {
  if (!clipped || !clipped.text.some((text, i) => text.startsWith(`${clipped.name[i]} `))) {
    return clipped;
  }
  const text = clipped.text.map((text, i) => {
    const name = clipped.name[i];
    return text.startsWith(`${name} `) ? integratorName(name) + text.slice(name.length) : text;
  });
  return { ...clipped, text };
}
// the last energy view of each system (status().energy, and a mode change redraws it)
export const energyViews = {};

// The rows of a scene source (a body or link each) whose integrator is not hidden, as
// figures.lane_filter builds it: by their "integrator" column, so it holds for every frame.
function laneFilter(hidden) {
  if (!hidden.length) return newModel("AllIndices");
  return newModel("IntersectionFilter", {
    operands: hidden.map((group) => newModel("InversionFilter", {
      operand: newModel("GroupFilter", { column_name: "integrator", group }),
    })),
  });
}

export function applyView() {
  const breakdown = state.energy === "breakdown";
  const shown = new Set([...state.integrators, ...userNames()]
    .filter((n) => !state.hidden.includes(n)));
  // the log view draws each integrator's largest error so far: solid a gain, dashed a loss
  const kinds = (breakdown ? BREAKDOWN : ["error"]).concat(
    energyMode() === "log" ? ["loss"] : [], state.phase ? ["phase"] : []);
  for (const system of SYSTEMS) {
    const section = document.querySelector(`.il-panel[data-system="${system}"]`);
    section.hidden = !state.systems.includes(system);
    section.style.order = String(state.systems.indexOf(system)); // the order of `systems=`
    for (const role of ["scene:ghost-links-renderer", "scene:ghost-bodies-renderer",
                        "phase:exact-renderer"]) {
      model(`${system}:${role}`).visible = state.exact;
    }
    if (state.phase) showHeld(`${system}:phase`); // drawn when first shown
    model(`${system}:phase`).visible = state.phase;
    for (const name of [...state.integrators, ...userNames()]) {
      for (const kind of kinds) ensureLine(system, kind, name);
    }
    for (const name of userNames()) { // the same name may come back with another order
      const item = findModel(`${system}:legend:${name}`);
      if (item && item.label.value !== data.labels[name]) item.label = { value: data.labels[name] };
    }
    for (const name of [...INTEGRATORS, ...userMethod.known]) {
      for (const kind of ["error", "loss", ...BREAKDOWN, "phase"]) {
        const line = findModel(`${system}:line:${kind}:${name}`);
        if (line) line.visible = shown.has(name) && kinds.includes(kind);
      }
    }
    const lanes = laneFilter(state.hidden); // a model belongs to one document: one each
    for (const role of ["scene:links-renderer", "scene:bodies-renderer",
                        "scene:diverged-links-renderer", "scene:diverged-bodies-renderer",
                        "scene:edge-arrows-renderer"]) {
      model(`${system}:${role}`).view.filter = lanes;
    }
    if (breakdown) ensureStyleItems(system);
    for (const kind of BREAKDOWN) {
      const item = findModel(`${system}:legend-style:${kind}`);
      if (item) item.visible = breakdown;
    }
    setEnergyAxis(system, energyMode());
    showEnergyView(system, energyViews[system]);
    model(`${system}:energy:yaxis`).axis_label = t(`energy.axis.${energyMode()}`);
    if (!state.embed) setHeights(system);
  }
  // the breakdown is in joules on a linear axis: "Log scale" does nothing there
  model("controls:log_scale").disabled = breakdown;
  document.getElementById("il-panels").style.setProperty(
    "--il-columns", String(Math.max(1, state.systems.length)));
  document.documentElement.classList.toggle("il-embed", state.embed);
  // an embed keeps, of a panel's fields, only the compact time-step row (slider, ÷2, ×2)
  for (const system of SYSTEMS) {
    model(`${system}:dt`).visible = !state.embed;
    for (const p of DECL[system].params) {
      model(`${system}:param:${p.name}`).visible = !state.embed;
    }
  }
  if (state.embed && sizedFor !== null) fitEmbed(); // once drawn: e.g. the phase plot shown
  if (!state.embed) fit(); // the first screen (once drawn): systems shown, breakdown's legend
}

// -- plot sizes --------------------------------------------------------------------------
// The energy and phase plots take a share of the window's height (within bounds), so that
// they grow with a big screen; no legend inside them takes from their data area (the page
// has one legend, see legend.js). An <iframe> (embed) keeps the build-time sizes: its
// host page chose its height.
const PLOT_HEIGHT_SHARE = 0.3;
const PLOT_HEIGHT_RANGE = [200, 460]; // px
export function plotHeight(windowHeight) {
  const [low, high] = PLOT_HEIGHT_RANGE;
  return Math.round(Math.min(high, Math.max(low, windowHeight * PLOT_HEIGHT_SHARE)));
}
// An embed fits its <iframe>, whose height the host page chose: the animation no taller than
// the window leaves below the page's top rows, and the plots (below the time-step row, beside
// the animation) down to the window's bottom edge, within bounds; the animation no wider than
// leaves the energy plot's plotting area at least as large as the animation (the lesson is
// in the energy plot).
const EMBED_PLOT_RANGE = [140, 460]; // px
const EMBED_MARGIN = 16; // px below the last part (the panel's and the page's padding)
function fitEmbed() {
  const first = document.getElementById(`il-panel-${state.systems[0]}-scene`);
  if (!first) return;
  const top = (el) => el.getBoundingClientRect().top + window.scrollY;
  document.body.style.setProperty("--il-chrome", `${Math.round(top(first)) + EMBED_MARGIN}px`);
  const [low, high] = EMBED_PLOT_RANGE;
  for (const system of state.systems) {
    const plots = document.getElementById(`il-panel-${system}-plots`);
    const room = (window.innerHeight - top(plots) - EMBED_MARGIN) / (state.phase ? 2 : 1);
    const height = Math.round(Math.min(high, Math.max(low, room)));
    for (const role of ["energy", "phase"]) {
      const fig = model(`${system}:${role}`);
      if (fig.height !== height) fig.height = height;
    }
  }
  capEmbedScene(model(`${state.systems[0]}:energy`).height);
}
// The scene's widest (px) for the energy plot's plotting area beside it to be at least as
// large: with the plot's frame e px high and its axes taking `off` px of the column, a scene
// s wide (s / aspect high) leaves (W - s - off) e; solved for equality. Measured on the drawn
// page (the axes' room does not change with the width); side by side only.
function capEmbedScene(figureHeight) {
  const system = state.systems[0];
  const scene = document.getElementById(`il-panel-${system}-scene`);
  const plots = document.getElementById(`il-panel-${system}-plots`);
  const view = Bokeh.index.query_one((v) => v.model && v.model.name === `${system}:energy`);
  if (!scene || !plots || !view || plots.offsetLeft <= scene.offsetLeft) {
    document.body.style.removeProperty("--il-scene-cap");
    return;
  }
  const frame = view.frame.bbox;
  const e = figureHeight - (view.el.offsetHeight - frame.height);
  const width = scene.parentElement.clientWidth;
  const off = width - scene.offsetWidth - frame.width; // gap, axes, toolbar
  const k = 1 / (scene.offsetHeight > 0 ? scene.offsetWidth / scene.offsetHeight : 4 / 3);
  if (!(e > 0 && width > off)) return;
  const cap = (-e + Math.sqrt(e * e + 4 * k * e * (width - off))) / (2 * k);
  document.body.style.setProperty("--il-scene-cap", `${Math.floor(cap)}px`);
}
// The energy plot is taller in breakdown mode by what the kinds' legend takes from it.
// Its height follows the first screen once drawn (layout.js); before, an estimate.
function plotHeights() {
  const base = plotHeight(window.innerHeight);
  const { heights } = data.energyAxis;
  return { energy: firstEnergyHeight() + heights[state.energy] - heights.error, phase: base };
}
function setHeights(system) { // the phase plot's; the energy plot's: layout.js's fit()
  const fig = model(`${system}:phase`);
  const height = plotHeights().phase;
  if (fig.height !== height) fig.height = height;
}
// Before BokehJS draws: the plots' heights set in the documents themselves, so that the first
// layout is the final one (setting them on drawn figures lays every panel out again, which
// cost a fifth of the first draw). An embed is fitted once drawn: it measures the page.
export function sizeDocuments(items) {
  if (state.embed) return;
  const heights = plotHeights();
  const wanted = new Map(SYSTEMS.flatMap((s) => Object.entries(heights).map(
    ([role, height]) => [`${s}:${role}`, height])));
  const visit = (value) => {
    if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (value && typeof value === "object") {
      if (value.type === "object" && wanted.has(value.attributes?.name)) {
        value.attributes.height = wanted.get(value.attributes.name);
      }
      for (const child of Object.values(value)) visit(child);
    }
  };
  for (const item of items) visit(item.doc.roots);
}
let sizedFor = null; // null until the dashboard is drawn
export function sizePlots() {
  sizedFor = window.innerHeight;
  if (state.embed) {
    fitEmbed(); // a resize fits it again
    return;
  }
  for (const system of SYSTEMS) setHeights(system);
}
let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  if (sizedFor !== null) resizeTimer = setTimeout(sizePlots, 150); // once drawn
});
