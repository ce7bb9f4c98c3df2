// @ts-check
// Integrator Lab page: the geometry view's part of the page state and of the URL query:
// `geometry=spring,pendulum` (the panels that show their geometry view, js/geometry.js).

import { SYSTEMS } from "./data.js";
import { t } from "./i18n.js";

export function defaultGeometryState() {
  return { geometry: [] };
}

/** @typedef {(key: string, raw: string, expected: string, kept: string) => void} Fallback
 *    says that a key's value was refused (what was expected, what is kept) */

/** Read `geometry` into `state`; false if the key is not the geometry view's.
 * @param {{geometry: string[]}} state  @param {string} key  @param {string} raw
 * @param {Fallback} fallback */
export function readGeometryKey(state, key, raw, fallback) {
  if (key !== "geometry") return false;
  const names = raw.split(",").map((s) => s.trim()).filter(Boolean);
  const good = [...new Set(names.filter((n) => SYSTEMS.includes(n)))];
  if (good.length !== names.length || !good.length) {
    fallback(key, raw, t("expect.list", { names: SYSTEMS.join(", ") }),
             good.length ? good.join(", ") : t("msg.the_default"));
  }
  state.geometry = good;
  return true;
}

/** The geometry view's part of the query.
 * @param {{geometry: string[]}} state  @param {URLSearchParams} query */
export function writeGeometryKeys(state, query) {
  if (state.geometry.length) query.set("geometry", state.geometry.join(","));
}
