// Integrator Lab page: numbers and parameters. Parses and checks values against the core's
// declarations (as Param.validate does) and says why a value was refused.

import { data, DECL } from "./data.js";
import { message, quote } from "./messages.js";

// -- validation against the core's declarations (mirrors Param.validate) ----------------
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
function parseNumber(raw) {
  const text = String(raw).trim();
  return NUMBER.test(text) ? Number(text) : NaN;
}
export function checkParam(p, raw) {
  if (p.kind === "choice") return p.choices.includes(raw) ? raw : undefined;
  const x = typeof raw === "number" ? raw : parseNumber(raw);
  if (!Number.isFinite(x)) return undefined;
  if (p.kind === "int" && !Number.isInteger(x)) return undefined;
  if (p.min !== null && (x < p.min || (p.min_open && x === p.min))) return undefined;
  if (p.max !== null && (x > p.max || (p.max_open && x === p.max))) return undefined;
  return x;
}
export function checkRange(raw, [lo, hi]) {
  const x = typeof raw === "number" ? raw : parseNumber(raw);
  return Number.isFinite(x) && x >= lo && x <= hi ? x : undefined;
}
export function paramDecl(system, name) {
  return DECL[system].params.find((p) => p.name === name);
}
// the time step as a declaration of its own (its range is the worker's, data.dtRange)
export const DT_DECL = {
  name: "dt", label: "time step", symbol: "dt", kind: "float", unit: "s", min: data.dtRange[0], max: data.dtRange[1],
  min_open: false, max_open: false,
};

// -- what a rejected value says: the parameter, what was typed, the range, what is kept --
function shortNumber(x) {
  return String(Number(x.toPrecision(6)));
}
function withUnit(text, p) {
  return p.unit ? `${text} ${p.unit}` : text;
}
export function expected(p) {
  if (p.kind === "choice") return `one of ${p.choices.join(", ")}`;
  const what = p.kind === "int" ? "a whole number" : "a number";
  const lo = p.min === null ? null : shortNumber(p.min);
  const hi = p.max === null ? null : shortNumber(p.max);
  const low = lo === null ? "" : p.min_open ? `above ${lo}` : `from ${lo}`;
  const upTo = lo === null ? "up to" : "to";
  const high = hi === null ? "" : p.max_open ? `below ${hi}` : `${upTo} ${hi}`;
  const span = [low, high].filter(Boolean).join(p.min_open && hi !== null ? " and up " : " ");
  return withUnit(span ? `${what} ${span}` : what, p);
}
export function span(p) {
  const lo = p.min === null ? "−∞" : shortNumber(p.min);
  const hi = p.max === null ? "∞" : shortNumber(p.max);
  const excluded = [p.min_open && p.min !== null ? lo : null,
                    p.max_open && p.max !== null ? hi : null].filter(Boolean);
  const note = excluded.length ? ` (${excluded.join(" and ")} excluded)` : "";
  return withUnit(`${lo}–${hi}`, p) + note;
}
// A refused value is said at the top (with the other messages) and under the panel's
// fields, where the eyes are (on a phone the top of the page is out of view).
const NOTE_MS = 10000;
const noteTimers = {};
export function refuse(system, p, typed, kept) {
  const text = rejection(system, p, typed, kept);
  message(text);
  const note = document.getElementById(`il-note-${system}`);
  note.textContent = text;
  note.hidden = false;
  clearTimeout(noteTimers[system]);
  noteTimers[system] = setTimeout(() => { note.hidden = true; }, NOTE_MS);
}
// what people read (the core's Param.label and symbol: "initial angle θ₀"), not the code name
export function readableName(p) {
  return [p.label || p.name, p.symbol].filter(Boolean).join(" ");
}
function rejection(system, p, typed, kept) {
  const head = `${DECL[system].title}, ${readableName(p)}: `;
  const tail = `; kept ${withUnit(String(kept), p)}.`;
  const text = typed === null || typed === undefined ? "" : String(typed).trim();
  if (!text) return `${head}empty; expected ${expected(p)}${tail}`;
  const x = parseNumber(text);
  if (!Number.isFinite(x)) {
    return `${head}${quote(text)} is not a number; expected ${expected(p)}${tail}`;
  }
  if (p.kind === "int" && !Number.isInteger(x)) {
    return `${head}${text} is not a whole number; expected ${expected(p)}${tail}`;
  }
  return `${head}${text} is outside ${span(p)}${tail}`;
}
