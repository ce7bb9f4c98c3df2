// @ts-check
// Integrator Lab page: the study view's part of the page state and of the URL query:
// `study=spring,pendulum` (the panels that show their study) and per system
// `SYSTEM.study.duration`, `.dtmax`, `.dtmin` (s), `.points` and `.error` (which error the
// diagrams show). Checked here like every other link setting; the core checks the rest
// (dt min below dt max, not too many steps) and the study view says what it refused.

import { data, SYSTEMS } from "./data.js";
import { t } from "./i18n.js";
import { checkRange } from "./params.js";

// defaults per system, error measures, the ranges of points and duration (views.study)
export const STUDY = data.study;
// query key suffix -> settings field (the core's names)
export const STUDY_KEYS = new Map([["duration", "duration"], ["dtmax", "dt_max"],
                                   ["dtmin", "dt_min"], ["points", "points"],
                                   ["error", "error"]]);

export function defaultStudyState() {
  return { study: [], studySettings: Object.fromEntries(SYSTEMS.map((s) => [s, {}])) };
}

/** @typedef {{study: string[], studySettings: Record<string, Record<string, any>>}} StudyState
 *    the study's part of the page state */
/** @typedef {import("./geometrystate.js").Fallback} Fallback */

/** The accepted values of one study setting, as words (for messages and the fields).
 * @param {string} field */
export function studyExpected(field) {
  const range = (/** @type {number[]} */ [lo, hi]) => ({ lo, hi });
  if (field === "duration") return t("expect.duration", range(STUDY.durationRange));
  if (field === "dt_max" || field === "dt_min") {
    return t("expect.dt_or_empty", range(data.dtRange));
  }
  if (field === "points") return t("expect.int", range(STUDY.pointsRange));
  return t("expect.one_of", { names: STUDY.measures.join(", ") });
}

/** A study setting checked, or undefined when refused ("" = the default, for dt bounds).
 * @param {string} field  @param {string} raw */
export function checkStudySetting(field, raw) {
  if (field === "error") return STUDY.measures.includes(raw) ? raw : undefined;
  if ((field === "dt_max" || field === "dt_min") && String(raw).trim() === "") return null;
  if (field === "points") {
    const x = checkRange(raw, STUDY.pointsRange);
    return x !== undefined && Number.isInteger(x) ? x : undefined;
  }
  return checkRange(raw, field === "duration" ? STUDY.durationRange : data.dtRange);
}

/** Read `study` or `SYSTEM.study.NAME` into `state`; false if the key is not the study's.
 * @param {StudyState} state  @param {string} key  @param {string} raw
 * @param {Fallback} fallback */
export function readStudyKey(state, key, raw, fallback) {
  if (key === "study") {
    const names = raw.split(",").map((s) => s.trim()).filter(Boolean);
    const good = [...new Set(names.filter((n) => SYSTEMS.includes(n)))];
    if (good.length !== names.length) {
      fallback(key, raw, t("expect.list", { names: SYSTEMS.join(", ") }),
               good.length ? good.join(", ") : t("msg.no_study"));
    }
    state.study = good;
    return true;
  }
  const match = /^([^.]+)\.study\.(.+)$/s.exec(key);
  if (!match || !SYSTEMS.includes(match[1])) return false;
  const [, system, name] = match;
  const field = STUDY_KEYS.get(name);
  if (!field) {
    fallback(key, raw, t("expect.study_setting", { names: [...STUDY_KEYS.keys()].join(", ") }),
             t("msg.nothing"));
    return true;
  }
  const x = checkStudySetting(field, raw);
  if (x === undefined || x === null) {
    fallback(key, raw, studyExpected(field), t("msg.the_default"));
  } else state.studySettings[system][field] = x;
  return true;
}

/** The study's part of the query (only what differs from the defaults).
 * @param {StudyState} state  @param {URLSearchParams} query */
export function writeStudyKeys(state, query) {
  if (state.study.length) query.set("study", state.study.join(","));
  for (const system of SYSTEMS) {
    const defaults = STUDY.defaults[system];
    for (const [name, field] of STUDY_KEYS) {
      const value = state.studySettings[system][field];
      if (value !== undefined && value !== null && value !== defaults[field]) {
        query.set(`${system}.study.${name}`, String(value));
      }
    }
  }
}

/** A system's study settings: the defaults with what the state changed.
 * @param {StudyState} state  @param {string} system */
export function studySettings(state, system) {
  return { ...STUDY.defaults[system], ...state.studySettings[system] };
}
