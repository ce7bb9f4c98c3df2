// Integrator Lab: names and labels the Bokeh widgets draw without, and visible focus inside
// their shadow roots (issue 29), for the static page (a11y.js) and the Panel dashboard's page
// (web/server/app.py runs this file there, with a default export added): one home for both.
// No imports: the Panel page has none of the static page's modules.
//
// BokehJS draws each widget into an open shadow root and draws some again when a property
// changes (a label, a language), so the names are put back by a pass over every shadow root
// after each draw (a MutationObserver per root), on a language change and every few seconds
// (a cheap walk of a few hundred elements; an attribute already right is left alone).

/** How often the whole pass runs again (ms), besides the observers. */
export const FIX_INTERVAL_MS = 3000;

// focus rings inside Bokeh's shadow roots (the page's own CSS does not reach in there); the
// × of a chosen integrator's chip (blue) rings in white inside itself: the page's blue ring
// on the chip's blue could not be seen, and the chip's box clips what is drawn outside it
const FOCUS_CSS = `:focus-visible { outline: 3px solid #1a5fb4 !important; outline-offset: 2px; }
.noUi-handle:focus-visible { box-shadow: 0 0 0 3px #1a5fb4 !important; }
.choices__button:focus-visible { outline: 2px solid #ffffff !important; outline-offset: -2px; }`;
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
let widgetNames = { increase: "Increase", decrease: "Decrease" }; // a spinner's arrows

// a plot's tool buttons (pan, zoom, save, the overflow menu) and its canvas layers, which
// Bokeh makes focusable: tools for a pointer (the keyboard has the page's own controls), kept
// out of the tab order (issue 48: 24 of the 95 Tab stops above the editor were these)
const POINTER_ONLY = ".bk-OnOffButton, .bk-ClickButton, .bk-tool-overflow, .bk-layer[tabindex]";
// what in a shadow root may need a name or a tab index; a root with none of it (a plot, a
// text) is not watched: its redraws, many a second, cost nothing here
const CONTROLS = "input, select, [role=slider], [aria-selected]:not([role]), .bk-spin-btn, " +
  POINTER_ONLY;

function fixRoot(root) {
  if (focusSheet && !root.adoptedStyleSheets.includes(focusSheet)) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, focusSheet];
  }
  if (!root.querySelector(CONTROLS)) return;
  if (!watched.has(root) && typeof MutationObserver === "function") {
    // a widget drawn again (a new value, a new label) is fixed before it is next painted
    watched.add(root);
    new MutationObserver(() => {
      try { fixRoot(root); } catch { /* a widget drawn differently: leave it */ }
    }).observe(root, { childList: true, subtree: true });
  }
  // the title: the drawn label's text, else the model's (a search through every view of
  // the page: only when a control below needs it)
  for (const tool of root.querySelectorAll(POINTER_ONLY)) setAttr(tool, "tabindex", "-1");
  let title = null;
  const titled = () => (title ??= titleIn(root) || modelTitle(root.host));
  // a spinner's arrows: a name each; the field takes the arrow keys, so they stay out of
  // the tab order (one stop per field, not three)
  for (const button of root.querySelectorAll(".bk-spin-btn, button.bk-spin-btn-up, " +
      "button.bk-spin-btn-down")) {
    const up = button.classList.contains("bk-spin-btn-up");
    setAttr(button, "aria-label", up ? widgetNames.increase : widgetNames.decrease);
    setAttr(button, "tabindex", "-1");
  }
  // sliders (noUiSlider handles): named by the slider's title
  for (const handle of root.querySelectorAll("[role=slider]")) {
    if (titled()) setAttr(handle, "aria-label", titled());
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
    const text = input.closest("label")?.textContent.trim() || titled() ||
      input.getAttribute("placeholder") || "";
    if (text) setAttr(input, "aria-label", text);
  }
}

/** One pass over the page's shadow roots: names, labels and focus rings. `texts`: the
 * spinner arrows' names in the page's language, {increase, decrease} (kept for the
 * redraws the observers catch). */
export function fixWidgets(texts) {
  if (texts) widgetNames = texts;
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
