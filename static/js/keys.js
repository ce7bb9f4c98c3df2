// @ts-check
// Integrator Lab page: keyboard shortcuts for the common actions (issue 29), listed in the
// page's footer (a11y.keys): Space play/pause, "." one step, "r" reset, "[" / "]" dt halved /
// doubled in every shown system. None fires while the user types in a field (an input, a
// select, the code editor) or holds a modifier, and Space leaves a focused button or link
// to do what it does.

import { resetAll, scaleShownDt, stepOnce, togglePlay } from "./widgets.js";

/** @type {Record<string, () => void>} */
const ACTIONS = {
  " ": togglePlay,
  ".": stepOnce,
  r: resetAll,
  "[": () => scaleShownDt(0.5),
  "]": () => scaleShownDt(2),
};

// the element the key really went to (Bokeh's widgets sit in shadow roots: the event is
// retargeted to their host by the time it reaches the document)
const realTarget = (/** @type {KeyboardEvent} */ event) =>
  event.composedPath?.()[0] ?? event.target;

/** @param {EventTarget | null} el */
function typing(el) {
  if (!(el instanceof Element)) return false;
  if (/** @type {HTMLElement} */ (el).isContentEditable ||
      el.closest?.("[contenteditable=''], [contenteditable=true]")) {
    return true;
  }
  const tag = el.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = /** @type {HTMLInputElement} */ (el).type;
    return !["button", "checkbox", "radio", "submit", "reset", "range"].includes(type);
  }
  return el.getAttribute("role") === "textbox" || el.getAttribute("role") === "combobox";
}

// Space on a control that Space already operates (a button, a link, a checkbox, a slider,
// the lessons' summary) is that control's
/** @param {EventTarget | null} el */
function spaceOwner(el) {
  if (!(el instanceof Element)) return false;
  return Boolean(el.closest("button, a[href], summary, input, [role=button], [role=slider], " +
    "[role=checkbox], [role=radio], [role=tab], [role=option], [role=menuitem]"));
}

/** @param {KeyboardEvent} event */
function shortcutKey(event) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  if (document.documentElement.dataset.drawn !== "1") return;
  const key = event.key === "R" ? null : event.key;
  const action = key === null ? undefined : ACTIONS[key];
  if (!action) return;
  const target = realTarget(event);
  if (typing(target)) return;
  if (key === " " && spaceOwner(target)) return;
  event.preventDefault();
  action();
}

/** The shortcuts, once the dashboard's widgets are wired. */
export function wireKeys() {
  document.addEventListener("keydown", shortcutKey);
  // the skip link moves focus to the panels without writing "#il-panels" into the URL (its
  // fragment is the user's method: urlstate.js)
  for (const link of document.querySelectorAll("a.il-skip")) {
    link.addEventListener("click", (event) => {
      const target = document.getElementById((link.getAttribute("href") ?? "#").slice(1));
      if (!target) return;
      event.preventDefault();
      target.focus();
      target.scrollIntoView({ block: "start" });
    });
  }
}
