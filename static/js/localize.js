// Integrator Lab page: puts the page in its language: the texts in the page itself
// (elements marked data-i18n), the fixed texts of the Bokeh models (the catalog's table,
// views.i18n.model_texts) and the texts that depend on the state (the play button, the
// energy axis, the legends, the status lines); and wires the EN / 日本語 switch.

import { data, SYSTEMS, INTEGRATORS } from "./data.js";
import { LANGUAGES, language, setLanguage, t } from "./i18n.js";
import { findModel, quietly } from "./models.js";
import { state, saveState } from "./urlstate.js";

const hooks = []; // what else follows the language (other modules register here)
/** Call `fn` now and whenever the language changes (after the fixed texts are set). */
export function onLanguage(fn) {
  hooks.push(fn);
}

function localizeDocument() {
  document.documentElement.lang = language();
  for (const el of document.querySelectorAll("[data-i18n]")) {
    const text = t(el.dataset.i18n);
    if (el.textContent !== text) el.textContent = text;
  }
  for (const section of document.querySelectorAll(".il-panel[data-system]")) {
    section.setAttribute("aria-label", t(`system.${section.dataset.system}`));
  }
  document.getElementById("il-legend").setAttribute("aria-label", t("legend.label"));
  const nav = document.getElementById("il-lang");
  nav.setAttribute("aria-label", t("page.language"));
  for (const button of nav.querySelectorAll("button[data-lang]")) {
    button.setAttribute("aria-pressed", String(button.dataset.lang === language()));
  }
}

function localizeModels() {
  quietly(() => {
    for (const [name, property, key] of data.i18n.modelTexts) {
      const model = findModel(name);
      if (!model) continue;
      // a list property: keys, or [value, key] pairs (a menu's options)
      const value = Array.isArray(key)
        ? key.map((k) => (Array.isArray(k) ? [k[0], t(k[1])] : t(k)))
        : t(key, data.i18n.values);
      if (JSON.stringify(model[property]) !== JSON.stringify(value)) model[property] = value;
    }
    // tooltips of the controls (html_attributes: the widget keeps its other attributes)
    const tips = [["controls:systems", "control.systems.tip"], ["controls:step", "control.step.tip"],
      ["controls:reset", "control.reset.tip"], ["controls:log_scale", "control.log.tip"],
      ["controls:copy_link", "control.copy.tip"]];
    for (const system of SYSTEMS) {
      tips.push([`${system}:dt:half`, "dt.half"], [`${system}:dt:double`, "dt.double"]);
    }
    for (const [name, key] of tips) {
      const model = findModel(name);
      if (model) model.html_attributes = Object.assign({}, model.html_attributes, { title: t(key) });
    }
    // the integrators' legend labels and the breakdown's line styles
    for (const system of SYSTEMS) {
      for (const name of INTEGRATORS) {
        const item = findModel(`${system}:legend:${name}`);
        if (item) item.label = { value: t(`label.${name}`) };
      }
      for (const kind of data.energyAxis.breakdownKinds) {
        const item = findModel(`${system}:legend-style:${kind}`);
        if (item) item.label = { value: t(`energy.${kind}`) };
      }
    }
  });
}

/** Put the whole page in the current language. */
export function localize() {
  localizeDocument();
  localizeModels();
  for (const fn of hooks) fn();
}

/** The switch in the header: choosing a language re-labels the page and keeps it in the URL. */
export function wireLanguageSwitch() {
  for (const button of document.querySelectorAll("#il-lang button[data-lang]")) {
    button.addEventListener("click", () => {
      const lang = button.dataset.lang;
      if (!LANGUAGES.includes(lang) || lang === language()) return;
      setLanguage(lang);
      state.lang = lang;
      saveState();
      localize();
    });
  }
}
