// Integrator Lab page: the first screen. Each shown panel's scene and energy plot are sized
// to the room the window leaves below the page's top rows (the rule: views.layout,
// data.firstScreen), so that both are in view with the page scrolled to the top: a scene
// keeps its content's aspect and gets narrower rather than taller than that room, and never
// grows into empty space. On a phone the controls fold into one bar (lessons, play, the
// systems as tabs, "more"), and a tab brings its system's scene and energy view into view.
// status().layout reports where the scenes and the energy plots' plotting areas are.

import { data } from "./data.js";
import { systemTitle, t } from "./i18n.js";
import { onLanguage } from "./localize.js";
import { findModel } from "./models.js";
import { state } from "./urlstate.js";

const RULE = data.firstScreen;

const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));
const figureView = (name) => Bokeh.index.query_one((v) => v.model && v.model.name === name);
const docTop = (el) => el.getBoundingClientRect().top + window.scrollY;

export const isPhone = () => window.innerWidth <= RULE.phoneWidth;

// width / height of a system's scene (its figure scales to its width at this aspect)
function sceneAspect(system) {
  const fig = findModel(`${system}:scene`);
  return fig && fig.width > 0 && fig.height > 0 ? fig.width / fig.height : 4 / 3;
}

// The energy figure's height for each shown system (px), and the scene's width, from the
// room below each panel's head. `measure`: the page is drawn (else an estimate, before the
// first draw, from the window alone).
function sizes() {
  const out = {};
  const phone = isPhone();
  for (const system of state.systems) {
    const part = document.getElementById(`il-panel-${system}-scene`);
    if (!part) continue;
    const body = part.parentElement;
    const width = body.clientWidth;
    // on a phone a tab scrolls its panel to the top, under the bar: the first panel's room
    const anchor = phone ? document.getElementById(`il-panel-${state.systems[0]}-scene`) : part;
    const room = window.innerHeight - docTop(anchor) - RULE.bottom;
    const aspect = sceneAspect(system);
    const side = !phone && body.closest(".il-panel").clientWidth >= RULE.sideBySideFrom;
    let sceneWidth;
    let energy;
    if (side) {
      sceneWidth = Math.min(width * RULE.sideShare, Math.max(RULE.sceneMin, room) * aspect);
      energy = clamp(Math.min(room, sceneWidth / aspect), RULE.energyMin, RULE.energyMax);
    } else {
      energy = clamp(room * RULE.energyShare, RULE.energyMin, RULE.energyMax);
      const sceneHeight = Math.max(RULE.sceneMin, room - energy - RULE.gap);
      sceneWidth = Math.min(width, sceneHeight * aspect);
    }
    out[system] = { side, sceneWidth: Math.floor(sceneWidth), energy: Math.floor(energy) };
  }
  return out;
}

let fitted = false; // the dashboard is drawn: fit() may measure it
// The first screen's sizes, applied: each scene's width (CSS: --il-scene-width on its
// panel's body) and each energy figure's height; the phase plot, under it, as tall (its line
// styles' legend aside) so that the two read as one column of plots.
export function fit() {
  if (!fitted || state.embed) return;
  showTabs(); // first: the phone's bar holds them, above the room measured
  for (const [system, size] of Object.entries(sizes())) {
    const body = document.getElementById(`il-panel-${system}-scene`).parentElement;
    body.style.setProperty("--il-scene-width", `${size.sceneWidth}px`);
    body.classList.toggle("il-side", size.side);
    const fig = findModel(`${system}:energy`);
    const height = size.energy + (energyExtra() || 0);
    if (fig && fig.height !== height) fig.height = height;
    const phase = findModel(`${system}:phase`); // drawn later (documents.js): found all the same
    if (phase && phase.height !== size.energy) phase.height = size.energy;
  }
}
// the breakdown's legend of line styles takes room below the energy plot (figures.py)
function energyExtra() {
  const { heights } = data.energyAxis;
  return heights[state.energy] - heights.error;
}

// A rough first size, before BokehJS draws (so that its first layout is nearly the final
// one): the energy figure's height from the window alone.
export function firstEnergyHeight() {
  const room = window.innerHeight * (isPhone() ? 0.55 : 0.62);
  return Math.round(clamp(room * RULE.energyShare, RULE.energyMin, RULE.energyMax));
}

// -- the phone's bar ---------------------------------------------------------------------
let tabs = null;
function showTabs() {
  if (!tabs) return;
  const names = state.systems;
  if (tabs.dataset.systems !== names.join()) {
    tabs.replaceChildren(...names.map((system) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.system = system;
      button.addEventListener("click", () => showSystem(system));
      return button;
    }));
    tabs.dataset.systems = names.join();
  }
  for (const button of tabs.children) button.textContent = systemTitle(button.dataset.system);
  tabs.hidden = names.length < 2;
  markTab();
}
// the tab of the panel nearest the top of the window
function markTab() {
  if (!tabs) return;
  const bar = document.getElementById("il-bar");
  const line = bar ? bar.getBoundingClientRect().bottom + 8 : 0;
  let current = state.systems[0];
  for (const system of state.systems) {
    const panel = document.querySelector(`.il-panel[data-system="${system}"]`);
    if (panel && panel.getBoundingClientRect().top <= line + 40) current = system;
  }
  for (const button of tabs.children) {
    button.setAttribute("aria-pressed", String(button.dataset.system === current));
  }
}
// A tab: its panel's head just under the bar (the first panel: the page's top)
function showSystem(system) {
  if (system === state.systems[0]) {
    window.scrollTo({ top: 0 });
    return;
  }
  const panel = document.querySelector(`.il-panel[data-system="${system}"]`);
  const bar = document.getElementById("il-bar");
  const below = bar && getComputedStyle(bar).position === "sticky" ? bar.offsetHeight : 0;
  window.scrollTo({ top: docTop(panel) - below - 4 });
}

function buildBar() {
  const bar = document.getElementById("il-bar");
  if (!bar) return;
  tabs = document.createElement("nav");
  tabs.className = "il-tabs";
  tabs.id = "il-tabs";
  tabs.setAttribute("aria-label", t("layout.tabs"));
  const more = document.createElement("button");
  more.type = "button";
  more.className = "il-more";
  more.id = "il-more";
  more.setAttribute("aria-expanded", "false");
  more.setAttribute("aria-controls", "il-controls");
  const label = () => { more.textContent = t("layout.more"); };
  label();
  onLanguage(() => {
    label();
    tabs.setAttribute("aria-label", t("layout.tabs"));
    showTabs();
  });
  more.addEventListener("click", () => {
    const open = !bar.classList.contains("il-bar-open");
    bar.classList.toggle("il-bar-open", open);
    more.setAttribute("aria-expanded", String(open));
  });
  bar.append(tabs, more);
  window.addEventListener("scroll", markTab, { passive: true });
}

// -- where the parts are (status().layout) --------------------------------------------------
// [x, y, w, h] in CSS px of the page (= the viewport's, the page scrolled to the top), rounded
function box(left, top, width, height) {
  return [left + window.scrollX, top + window.scrollY, width, height]
    .map((v) => Math.round(v * 10) / 10);
}
export function layoutStatus() {
  if (!fitted) return null;
  const out = {};
  for (const system of state.systems) {
    const section = document.querySelector(`.il-panel[data-system="${system}"]`);
    const scene = figureView(`${system}:scene`);
    const energy = figureView(`${system}:energy`);
    if (!section || section.hidden || !scene || !energy) continue;
    const s = scene.el.getBoundingClientRect();
    const e = energy.el.getBoundingClientRect();
    const frame = energy.frame.bbox;
    out[system] = {
      scene: box(s.left, s.top, s.width, s.height),
      // the plotting area: BokehJS's frame (inner_x, inner_y, inner_width, inner_height)
      energy: box(e.left + frame.left, e.top + frame.top, frame.width, frame.height),
    };
  }
  return out;
}

// main.js: once the dashboard is drawn. The sizes follow the window, and the rows above the
// panels (a lesson's note, messages, the controls wrapping differently in another language).
export function initLayout() {
  fitted = true;
  buildBar();
  fit();
  let timer = null;
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(fit, 60);
  };
  window.addEventListener("resize", later);
  const observer = new ResizeObserver(later);
  for (const id of ["il-top", "il-bar", "il-legend", "il-messages", "il-panels"]) {
    const el = document.getElementById(id);
    if (el) observer.observe(el);
  }
  window.integratorLab.layout = layoutStatus;
}
