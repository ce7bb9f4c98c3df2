// @ts-check
// Integrator Lab page: nothing needs a mouse. On a touch screen a swipe over a plot scrolls
// the page (no drag or wheel tool of the plots is active there, since an active one takes
// the touch; the toolbar still turns them on), and a widget's "?" help opens on a tap (or a
// click): BokehJS shows a text description only as a native tooltip, which needs a hover.

import { SYSTEMS } from "./data.js";
import { model } from "./models.js";

export const touchScreen = () =>
  navigator.maxTouchPoints > 0 || window.matchMedia("(pointer: coarse)").matches;

export function releaseTouch() {
  if (!touchScreen()) return;
  for (const system of SYSTEMS) {
    for (const role of ["energy", "phase"]) {
      const toolbar = model(`${system}:${role}`).toolbar;
      toolbar.active_drag = null;
      toolbar.active_scroll = null;
    }
  }
}

const help = /** @type {HTMLElement} */ (document.getElementById("il-help"));
/** @param {HTMLElement} icon */
function showHelp(icon) {
  help.textContent = icon.title;
  help.hidden = false;
  const box = icon.getBoundingClientRect();
  const width = help.offsetWidth;
  const left = Math.max(4, Math.min(box.left, document.documentElement.clientWidth - width - 4));
  help.style.left = `${left + window.scrollX}px`;
  help.style.top = `${box.bottom + 4 + window.scrollY}px`;
}
export function helpOnTap() {
  // one listener for every widget, even those drawn later: the click's composed path
  // reaches into the widgets' (open) shadow roots
  document.addEventListener("click", (event) => {
    const icon = /** @type {HTMLElement | undefined} */ (event.composedPath().find((el) =>
      el instanceof HTMLElement && el.classList.contains("bk-description") && el.title));
    if (icon) event.preventDefault(); // the icon sits in a <label>: no click on its field
    if (icon && (help.hidden || help.textContent !== icon.title)) showHelp(icon);
    else help.hidden = true;
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") help.hidden = true;
  });
}
