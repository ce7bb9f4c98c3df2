// Integrator Lab page: the page state and the URL query that holds it (read once, validated;
// rewritten on every change), and links to the current view.

import { data, SYSTEMS, DECL, INTEGRATORS, DEFAULTS } from "./data.js";
import { browserLanguage, language, LANGUAGES, t } from "./i18n.js";
import { message, quote } from "./messages.js";
import { checkParam, checkRange, expected, paramDecl } from "./params.js";
import { defaultStudyState, readStudyKey, writeStudyKeys } from "./studystate.js";
import { defaultGeometryState, readGeometryKey, writeGeometryKeys } from "./geometrystate.js";

// -- state and the URL query -------------------------------------------------------------
// A visitor who asked for less motion (prefers-reduced-motion) gets a page that waits,
// paused, for Play (a link's play=1 still plays)
const reducedMotion = () => Boolean(window.matchMedia?.("(prefers-reduced-motion: reduce)").matches);
function defaultState() {
  return {
    systems: SYSTEMS.slice(),
    integrators: DEFAULTS.integrators.slice(),
    // integrators toggled off in the legend: they run, but are not drawn
    hidden: /** @type {string[]} */ ([]),
    speed: DEFAULTS.speed, playing: DEFAULTS.playing && !reducedMotion(), exact: DEFAULTS.exact,
    energy: DEFAULTS.energy, log: DEFAULTS.log, phase: DEFAULTS.phase,
    embed: DEFAULTS.embed, dt: Object.assign({}, DEFAULTS.dt),
    lesson: null, // the lesson whose note is shown (scenarios.js), or null
    lang: language(), // i18n.js read the URL's lang (or the browser's language) first
    params: Object.fromEntries(SYSTEMS.map((s) => [s, Object.assign({}, DEFAULTS.params[s])])),
    ...defaultStudyState(),
    ...defaultGeometryState(),
  };
}
// 0/1 settings: query key -> state field ("embed" is the compact view for <iframe>s)
// (a Map: a query key such as "__proto__" or "toString" must not find anything inherited)
const FLAGS = new Map([["play", "playing"], ["exact", "exact"], ["log", "log"],
                       ["phase", "phase"], ["embed", "embed"]]);

export function stateFromQuery(search) {
  const state = defaultState();
  const query = new URLSearchParams(search);
  const fallback = (key, raw, expected, shown) =>
    message(t("msg.link_setting", { key, raw: quote(raw), expected, shown }));
  const theDefault = t("msg.the_default");
  for (const [key, raw] of query) {
    if (readStudyKey(state, key, raw, fallback)) continue;
    if (readGeometryKey(state, key, raw, fallback)) continue;
    if (key === "lang") {
      if (!LANGUAGES.includes(raw)) {
        fallback(key, raw, t("expect.language", { names: LANGUAGES.join(", ") }),
                 state.lang);
      }
      continue;
    }
    if (key === "hide") {
      const names = raw.split(",").map((s) => s.trim()).filter(Boolean);
      const bad = names.filter((n) => !INTEGRATORS.includes(n));
      if (bad.length) {
        fallback(key, raw, t("expect.list", { names: INTEGRATORS.join(", ") }),
                 t("msg.none_hidden"));
      } else state.hidden = [...new Set(names)];
    } else if (key === "integrators" || key === "systems") {
      const valid = key === "integrators" ? INTEGRATORS : SYSTEMS;
      const names = raw.split(",").map((s) => s.trim()).filter(Boolean);
      const bad = names.filter((n) => !valid.includes(n));
      const good = [...new Set(names.filter((n) => valid.includes(n)))];
      if (bad.length || !good.length) {
        fallback(key, raw, t("expect.list", { names: valid.join(", ") }),
                 good.length ? good.join(", ") : theDefault);
      }
      if (good.length) state[key] = good;
    } else if (key === "speed") {
      const x = checkRange(raw, data.speedRange);
      if (x === undefined) {
        fallback(key, raw, t("expect.range", { lo: data.speedRange[0], hi: data.speedRange[1] }),
                 t("msg.default_value", { value: DEFAULTS.speed }));
      } else state.speed = x;
    } else if (FLAGS.has(key)) {
      if (raw === "1" || raw === "0") state[FLAGS.get(key)] = raw === "1";
      else fallback(key, raw, t("expect.flag"), theDefault);
    } else if (key === "lesson") {
      if (data.lessons.some((l) => l.id === raw)) state.lesson = raw;
      else {
        fallback(key, raw, t("expect.one_of", { names: data.lessons.map((l) => l.id).join(", ") }),
                 t("msg.none"));
      }
    } else if (key === "energy") {
      if (data.energyModes.includes(raw)) state.energy = raw;
      else fallback(key, raw, t("expect.one_of", { names: data.energyModes.join(", ") }), theDefault);
    } else if (key.includes(".") && SYSTEMS.includes(key.split(".")[0])) {
      const [system, name] = key.split(/\.(.*)/s);
      if (name === "dt") {
        const x = checkRange(raw, data.dtRange);
        if (x === undefined) {
          fallback(key, raw, t("expect.dt", { lo: data.dtRange[0], hi: data.dtRange[1] }),
                   t("msg.default_value", { value: `${DEFAULTS.dt[system]} s` }));
        } else state.dt[system] = x;
        continue;
      }
      const p = paramDecl(system, name);
      if (!p) {
        message(t("msg.unknown_param", { key: quote(key), system, name: quote(name),
                                         names: DECL[system].params.map((q) => q.name).join(", ") }));
        continue;
      }
      const x = checkParam(p, raw);
      if (x === undefined) {
        // the core's declaration says it in English; the catalog's parts in other languages
        const accepted = language() === "en" ? p.accepted : expected(p);
        fallback(key, raw, accepted, t("msg.default_value", { value: p.default }));
      }
      else state.params[system][name] = x;
    } else {
      message(t("msg.unknown_setting", { key: quote(key) }));
    }
  }
  state.hidden = state.hidden.filter((n) => state.integrators.includes(n));
  return state;
}

export function queryFromState(state) {
  const query = new URLSearchParams();
  if (state.lesson) query.set("lesson", state.lesson);
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (!same(state.systems, SYSTEMS)) query.set("systems", state.systems.join(","));
  if (!same(state.integrators, DEFAULTS.integrators)) {
    query.set("integrators", state.integrators.join(","));
  }
  const hidden = state.hidden.filter((n) => state.integrators.includes(n));
  if (hidden.length) query.set("hide", hidden.join(","));
  if (state.speed !== DEFAULTS.speed) query.set("speed", String(state.speed));
  for (const [key, field] of FLAGS) {
    if (state[field] !== DEFAULTS[field]) query.set(key, state[field] ? "1" : "0");
  }
  if (state.energy !== DEFAULTS.energy) query.set("energy", state.energy);
  for (const system of SYSTEMS) {
    if (state.dt[system] !== DEFAULTS.dt[system]) {
      query.set(`${system}.dt`, String(state.dt[system]));
    }
    for (const [name, value] of Object.entries(state.params[system])) {
      if (value !== DEFAULTS.params[system][name]) query.set(`${system}.${name}`, String(value));
    }
  }
  writeStudyKeys(state, query);
  writeGeometryKeys(state, query);
  // the language is in the link when it is not what the browser asks for anyway
  if (state.lang !== browserLanguage()) query.set("lang", state.lang);
  return query.toString();
}

// The URL fragment holds the user's own method (static/js/editor.js encodes it): "" or
// "#method=...". It is never sent to a server.
let fragment = location.hash;
export function setFragment(text) {
  fragment = text ? `#${text}` : "";
  saveState();
}

export function linkFor(state) {
  const query = queryFromState(state);
  return location.origin + location.pathname + (query ? "?" + query : "") + fragment;
}

export const state = stateFromQuery(location.search);
const saveListeners = []; // called after every change of the URL (embed.js's link)
export function onSave(fn) {
  saveListeners.push(fn);
}
// `push`: a new entry in the history (a lesson chosen: Back returns to the view before)
export function saveState(push = false) {
  const query = queryFromState(state);
  const url = location.pathname + (query ? "?" + query : "") + fragment;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
  for (const fn of saveListeners) fn();
}

export function systemSettings(system) {
  return { params: state.params[system], dt: state.dt[system] };
}
