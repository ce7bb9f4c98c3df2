// @ts-check
// Integrator Lab page: the one legend of the page, near the controls: a chip per selected
// integrator in its colour, with its name and order; a click (or Enter/Space: chips are
// buttons) hides or shows that integrator in every panel, without restarting the run.
// The hidden set is view state: in the URL (hide=...) and in window.integratorLab.state().

import { data, INTEGRATORS } from "./data.js";
import { applyView } from "./plots.js";
import { state, saveState } from "./urlstate.js";
import { userNames } from "./method.js";
import { t } from "./i18n.js";

const legend = /** @type {HTMLElement} */ (document.getElementById("il-legend"));

/** @param {string} name */
function toggle(name) {
  state.hidden = state.hidden.includes(name)
    ? state.hidden.filter((n) => n !== name) : [...state.hidden, name];
  saveState();
  applyView();
  showLegend();
}

// Built with DOM calls and textContent only: nothing here is ever parsed as HTML.
export function showLegend() {
  /** @type {HTMLCollectionOf<HTMLButtonElement>} */
  const children = /** @type {any} */ (legend.children);
  const chips = new Map(Array.from(children, (chip) => [chip.dataset.integrator, chip]));
  const wanted = [...state.integrators, ...userNames()]; // the user's method last
  if (wanted.join() !== [...chips.keys()].join()) {
    legend.replaceChildren(...wanted.map((name) => {
      const chip = chips.get(name) || document.createElement("button");
      if (!chips.has(name)) {
        chip.type = "button";
        chip.className = "il-chip";
        chip.dataset.integrator = name;
        chip.style.setProperty("--il-chip-color", data.colors[name] || "#555555");
        const swatch = document.createElement("span");
        swatch.className = "il-chip-swatch";
        swatch.setAttribute("aria-hidden", "true");
        const label = document.createElement("span");
        label.className = "il-chip-label";
        chip.append(swatch, label);
        chip.addEventListener("click", () => toggle(name));
      }
      return chip;
    }));
  }
  for (const chip of children) { // labels in the page's language (a user's: its own)
    const name = chip.dataset.integrator ?? "";
    const text = INTEGRATORS.includes(name) ? t(`label.${name}`)
      : data.labels[name] || name;
    const label = /** @type {HTMLElement} */ (chip.querySelector(".il-chip-label"));
    if (label.textContent !== text) label.textContent = text;
    chip.title = INTEGRATORS.includes(name) ? t(`about.${name}`) : data.abouts[name] || name;
    chip.setAttribute("aria-pressed", String(!state.hidden.includes(name)));
  }
}
