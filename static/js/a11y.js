// Integrator Lab page: what makes the dashboard usable without a mouse or without sight
// (issue 29): names and labels the Bokeh widgets draw without, visible focus inside their
// shadow roots, and a polite live region that says in words what the energy plots show.
//
// BokehJS draws each widget into an open shadow root and draws some again when a property
// changes (a label, a language), so the names are put back by a pass over every shadow root
// after each draw, on a language change and every few seconds (a cheap walk of a few hundred
// elements; an attribute already right is left alone).

import { language, t } from "./i18n.js";
import { live } from "./live.js";
import { onLanguage } from "./localize.js";
import { status } from "./status.js";
import { state } from "./urlstate.js";

const FIX_INTERVAL_MS = 3000;
export const DESCRIBE_INTERVAL_MS = 5000; // the live region's calm rate (wall time)
// an energy error this small (a relative error) is "kept"
const KEPT_WITHIN = 1e-3;

// focus rings inside Bokeh's shadow roots (the page's own CSS does not reach in there)
const FOCUS_CSS = `:focus-visible { outline: 3px solid #1a5fb4 !important; outline-offset: 2px; }
.noUi-handle:focus-visible { box-shadow: 0 0 0 3px #1a5fb4 !important; }`;
let focusSheet = null;

function* shadowRoots(root) {
  for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot) {
      yield el.shadowRoot;
      yield* shadowRoots(el.shadowRoot);
    }
  }
}

const setAttr = (el, name, value) => {
  if (value && el.getAttribute(name) !== value) el.setAttribute(name, value);
};

// the text of the label the widget draws above itself (a Bokeh input group's <label>)
function titleIn(root) {
  const label = root.querySelector(".bk-input-group > label, label.bk-input-title, label");
  return label ? label.textContent.replace(/:\s*$/, "").trim() : "";
}

// the title of the Bokeh model drawn in this shadow root's host, where it has one
function modelTitle(host) {
  const view = window.Bokeh?.index?.query_one?.((v) => v.el === host);
  // a field's title, or a checkbox's label
  const title = view?.model?.title ?? view?.model?.label;
  return typeof title === "string" ? title : "";
}

const watched = new WeakSet(); // shadow roots whose redraws are followed

function fixRoot(root) {
  if (!watched.has(root) && typeof MutationObserver === "function") {
    // a widget drawn again (a new value, a new label) is fixed before it is next painted
    watched.add(root);
    new MutationObserver(() => {
      try { fixRoot(root); } catch { /* a widget drawn differently: leave it */ }
    }).observe(root, { childList: true, subtree: true });
  }
  if (focusSheet && !root.adoptedStyleSheets.includes(focusSheet)) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, focusSheet];
  }
  const title = titleIn(root) || modelTitle(root.host);
  // a spinner's arrows: a name each; the field takes the arrow keys, so they stay out of
  // the tab order (one stop per field, not three)
  for (const button of root.querySelectorAll(".bk-spin-btn, button.bk-spin-btn-up, " +
      "button.bk-spin-btn-down")) {
    const up = button.classList.contains("bk-spin-btn-up");
    setAttr(button, "aria-label", t(up ? "a11y.increase" : "a11y.decrease"));
    setAttr(button, "tabindex", "-1");
  }
  // sliders (noUiSlider handles): named by the slider's title
  for (const handle of root.querySelectorAll("[role=slider]")) {
    if (title) setAttr(handle, "aria-label", title);
  }
  // the multiple choice's chosen items (Choices.js) carry aria-selected without a role
  // that allows it: their "Remove item" buttons say what they are
  for (const item of root.querySelectorAll("[aria-selected]:not([role])")) {
    item.removeAttribute("aria-selected");
  }
  // an input without a label element (a field or a checkbox): named by the title
  for (const input of root.querySelectorAll("input, select")) {
    if (input.type === "hidden" || input.labels?.length || input.getAttribute("aria-label")) {
      continue;
    }
    const text = input.closest("label")?.textContent.trim() || title ||
      input.getAttribute("placeholder") || "";
    if (text) setAttr(input, "aria-label", text);
  }
}

/** One pass over the page's shadow roots: names, labels and focus rings. */
export function fixWidgets() {
  if (!focusSheet && typeof CSSStyleSheet === "function") {
    try {
      focusSheet = new CSSStyleSheet();
      focusSheet.replaceSync(FOCUS_CSS);
    } catch { focusSheet = null; }
  }
  for (const root of shadowRoots(document)) {
    try { fixRoot(root); } catch { /* a widget drawn differently: leave it */ }
  }
}

// -- the live description ----------------------------------------------------------------
const percent = (x) => {
  const size = Math.abs(100 * x);
  return size >= 1e4 ? size.toExponential(1) : size >= 100 ? size.toFixed(0)
    : Number(size.toPrecision(2)).toString();
};
const seconds = (x) => Number(x.toPrecision(2)).toString();

function integratorName(name) {
  const key = `integrator.${name}`;
  const text = t(key);
  return text === key ? name : text;
}

// One sentence per shown system from status() (the numbers the energy plots draw): each
// integrator gains, loses or keeps energy, and by how much; which diverged and when.
export function describe(systems = status().systems) {
  const sentences = [];
  for (const system of state.systems) {
    const entry = systems[system];
    if (!entry) continue;
    const parts = [];
    for (const [name, info] of Object.entries(entry.integrators)) {
      if (state.hidden.includes(name) || !info.samples) continue;
      const who = integratorName(name);
      const e = info.energyError;
      let part;
      if (e === null || !Number.isFinite(e)) part = null;
      else if (Math.abs(e) <= KEPT_WITHIN) {
        part = t("a11y.keeps", { name: who, pct: percent(KEPT_WITHIN) });
      } else {
        part = t(e > 0 ? "a11y.gains" : "a11y.loses", { name: who, pct: percent(e) });
      }
      if (info.divergedAt !== null) {
        const at = seconds(info.divergedAt);
        part = part ? t("a11y.and_diverged", { text: part, at })
          : t("a11y.diverged", { name: who, at });
      }
      if (part) parts.push(part);
    }
    if (!parts.length) continue;
    sentences.push(t("a11y.system", {
      system: t(`system.${system}`), time: entry.simTime.toFixed(1),
      parts: parts.join(t("a11y.separator")),
    }));
  }
  return sentences.join(" ");
}

let lastDiverged = "";
let lastSaid = 0;
function sayDescription(force) {
  const region = document.getElementById("il-describe");
  if (!region || !live.ready) return;
  let systems;
  try { systems = status().systems; } catch { return; }
  const diverged = JSON.stringify(Object.values(systems).map((s) =>
    Object.values(s.integrators).map((i) => i.divergedAt)));
  const now = performance.now();
  if (!force && diverged === lastDiverged && now - lastSaid < DESCRIBE_INTERVAL_MS) return;
  lastDiverged = diverged;
  lastSaid = now;
  const text = describe(systems);
  if (text && region.textContent !== text) region.textContent = text;
}

/** The live region and the widget pass, once the dashboard is drawn. */
export function initA11y() {
  fixWidgets();
  setInterval(fixWidgets, FIX_INTERVAL_MS);
  onLanguage(() => { fixWidgets(); sayDescription(true); });
  // checked every second: said every DESCRIBE_INTERVAL_MS, or at once when one diverges
  setInterval(() => sayDescription(false), 1000);
  window.integratorLabA11y = { describe: () => describe(), fixWidgets, language };
}
