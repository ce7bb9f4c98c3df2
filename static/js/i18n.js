// @ts-check
// Integrator Lab page: the language of the page and its texts (the one catalog,
// integrator_lab.views.i18n, embedded in the page data; see that module for how to add one).
//
// `t(key, values)` is the text `key` in the current language with its {placeholders}
// filled. The language is the URL's `lang` when it names one the catalog has, else the
// browser's first language when that is Japanese, else English (the default).

import { data } from "./data.js";

const I18N = data.i18n;
export const LANGUAGES = Object.keys(I18N.languages);
export const LANGUAGE_NAMES = I18N.languages;

/** The language the browser asks for first, if the catalog has it; else the default. */
export function browserLanguage() {
  const first = (navigator.languages && navigator.languages[0]) || navigator.language || "";
  const base = first.toLowerCase().split("-")[0];
  return LANGUAGES.includes(base) ? base : I18N.default;
}
function urlLanguage() {
  const raw = new URLSearchParams(location.search).get("lang");
  return raw !== null && LANGUAGES.includes(raw) ? raw : null;
}

let current = urlLanguage() || browserLanguage();
export const language = () => current;
/** @param {string} lang */
export function setLanguage(lang) {
  if (LANGUAGES.includes(lang)) current = lang;
}

/** @typedef {Record<string, unknown>} Values the {placeholders} of a text and what fills them */
const fill = (/** @type {string} */ template, /** @type {Values | undefined} */ values) =>
  values ? template.replace(/\{(\w+)\}/g, (all, k) => (k in values ? String(values[k]) : all))
    : template;
/** The text `key` in the current language (English where it has none), filled from `values`.
 * @param {string} key
 * @param {Values} [values] */
export function t(key, values) {
  const entry = I18N.catalog[key];
  if (!entry) return key;
  return fill(entry[current] || entry.en, values);
}
/** The name integrator `name` is shown by (views.i18n.integrator_name): a built-in's short
 * name in the current language, a user's method its own. */
/** @param {string} name */
export function integratorName(name) {
  return I18N.catalog[`name.${name}`] ? t(`name.${name}`) : name;
}
/** The system's title in the current language. */
export const systemTitle = (/** @type {string} */ system) => t(`system.${system}`);
/** A parameter's label (the core's Param.label, or its translation). */
/** @param {string} system  @param {{name: string, label: string}} p */
export const paramLabel = (system, p) =>
  I18N.catalog[`param.${system}.${p.name}`] ? t(`param.${system}.${p.name}`) : p.label;
