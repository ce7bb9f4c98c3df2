// @ts-check
// Integrator Lab page: numbers and parameters. Parses and checks values against the core's
// declarations (as Param.validate does) and says why a value was refused.

import { data, DECL } from "./data.js";
import { language, paramLabel, systemTitle, t } from "./i18n.js";
import { dismissButton, quote } from "./messages.js";
import { model, quietly } from "./models.js";

/** @typedef {{name: string, label: string, symbol?: string | null, kind: string,
 *    unit?: string | null, min: number | null, max: number | null, min_open: boolean,
 *    max_open: boolean, choices?: string[]}} Param
 *    a parameter's declaration, as the core describes it (Param.describe) */

// -- validation against the core's declarations (mirrors Param.validate) ----------------
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** @param {unknown} raw */
function parseNumber(raw) {
  const text = String(raw).trim();
  return NUMBER.test(text) ? Number(text) : NaN;
}
/** What `raw` is as a value of `p`, or undefined when `p` refuses it.
 * @param {Param} p  @param {unknown} raw
 * @returns {number | string | undefined} */
export function checkParam(p, raw) {
  if (p.kind === "choice") {
    return typeof raw === "string" && (p.choices ?? []).includes(raw) ? raw : undefined;
  }
  const x = typeof raw === "number" ? raw : parseNumber(raw);
  if (!Number.isFinite(x)) return undefined;
  if (p.kind === "int" && !Number.isInteger(x)) return undefined;
  if (p.min !== null && (x < p.min || (p.min_open && x === p.min))) return undefined;
  if (p.max !== null && (x > p.max || (p.max_open && x === p.max))) return undefined;
  return x;
}
/** @param {unknown} raw  @param {number[]} range  [lo, hi], both included */
export function checkRange(raw, [lo, hi]) {
  const x = typeof raw === "number" ? raw : parseNumber(raw);
  return Number.isFinite(x) && x >= lo && x <= hi ? x : undefined;
}
/** @param {string} system  @param {string} name  @returns {Param} */
export function paramDecl(system, name) {
  return DECL[system].params.find((/** @type {Param} */ p) => p.name === name);
}
// the time step as a declaration of its own (its range is the worker's, data.dtRange)
/** @type {Param} */
export const DT_DECL = {
  name: "dt", label: "time step", symbol: "dt", kind: "float", unit: "s", min: data.dtRange[0], max: data.dtRange[1],
  min_open: false, max_open: false,
};

// -- the time step on a log scale (views.shared: DT_RANGE, DT_DIGITS; the build's dt_mark) --
const DT_LO = data.dtRange[0];
const DT_HI = data.dtRange[1];
const roundDt = (/** @type {number} */ x) => Number(x.toPrecision(data.dtDigits));
const clampDt = (/** @type {number} */ x) => Math.min(Math.max(x, DT_LO), DT_HI);
export const dtPosition = (/** @type {number} */ dt) => Math.log10(clampDt(dt));
export const dtAt = (/** @type {number} */ position) => clampDt(roundDt(10 ** position));
/** `dt` times `factor`, kept in the range, and whether the range changed it.
 * @param {number} dt  @param {number} factor  @returns {[number, boolean]} */
export function dtScaled(dt, factor) {
  const wanted = roundDt(dt * factor);
  return wanted < DT_LO || wanted > DT_HI ? [clampDt(wanted), true] : [wanted, false];
}
const dtMark = (/** @type {number} */ dt) => 100 * (dtPosition(dt) - Math.log10(DT_LO)) /
  (Math.log10(DT_HI) - Math.log10(DT_LO));
// A system's time-step widgets (the field and the slider) show `dt`; with `recommended`,
// the slider's mark moves there (its stylesheet reads these two CSS properties)
/** @param {string} system  @param {number} dt  @param {number} [recommended] */
export function showDt(system, dt, recommended) {
  quietly(() => {
    model(`${system}:dt`).value = dt;
    const slider = model(`${system}:dt:slider`);
    const position = dtPosition(dt);
    if (Math.abs(slider.value - position) > slider.step / 2) slider.value = position;
  });
  if (recommended !== undefined && recommended > 0) {
    const box = /** @type {HTMLElement} */ (document.getElementById(`il-panel-${system}-params`));
    box.style.setProperty("--il-dt-mark", `${dtMark(recommended).toFixed(3)}%`);
    box.style.setProperty("--il-dt-mark-text", JSON.stringify(t("dt.mark", { dt: recommended })));
  }
}

// -- what a rejected value says: the parameter, what was typed, the range, what is kept --
// a number in 6 significant digits, as Python's "%g" writes it (views.i18n._short): "0.5",
// "123456", "1e+12", "2.5e-05"
/** @param {number} x */
export function shortNumber(x) {
  if (!Number.isFinite(x) || x === 0) return String(x);
  const [mantissa, e] = x.toExponential(5).split("e");
  const exponent = Number(e);
  if (exponent >= -4 && exponent < 6) return String(Number(x.toPrecision(6)));
  const digits = mantissa.includes(".") ? mantissa.replace(/\.?0+$/, "") : mantissa;
  const sign = exponent < 0 ? "-" : "+";
  return `${digits}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
}
/** @param {string} text  @param {Param} p */
function withUnit(text, p) {
  return p.unit ? `${text} ${p.unit.replace(" or ", t("unit.or"))}` : text;
}
/** What `p` accepts, in words. @param {Param} p */
export function expected(p) {
  if (p.kind === "choice") return t("range.one_of", { names: (p.choices ?? []).join(", ") });
  const what = t(p.kind === "int" ? "range.whole" : "range.number");
  const lo = p.min === null ? null : shortNumber(p.min);
  const hi = p.max === null ? null : shortNumber(p.max);
  const low = lo === null ? "" : t(p.min_open ? "range.above" : "range.from", { lo });
  const upTo = lo === null ? "range.up_to" : "range.to";
  const high = hi === null ? "" : t(p.max_open ? "range.below" : upTo, { hi });
  const span = [low, high].filter(Boolean)
    .join(t(p.min_open && hi !== null ? "range.join_open" : "range.join"));
  return withUnit(span ? t("range.expected", { what, span }) : what, p);
}
/** `p`'s range, "lo–hi unit". @param {Param} p */
export function span(p) {
  const lo = p.min === null ? "−∞" : shortNumber(p.min);
  const hi = p.max === null ? "∞" : shortNumber(p.max);
  const excluded = [p.min_open && p.min !== null ? lo : null,
                    p.max_open && p.max !== null ? hi : null].filter(Boolean);
  const note = excluded.length
    ? t("range.excluded", { values: excluded.join(t("range.and")) }) : "";
  return withUnit(`${lo}–${hi}`, p) + note;
}
// A refused value is said once, under the panel's fields, where the eyes are (on a phone the
// top of the page is out of view), until it is dismissed or the next one replaces it.
/** @param {string} system  @param {Param} p  @param {unknown} typed  @param {unknown} kept */
export function refuse(system, p, typed, kept) {
  say(system, rejection(system, p, typed, kept));
}
// a decimal comma typed into a field: taken as a point, and said so (never dropped)
/** @param {string} system  @param {Param} p  @param {string} fixed */
export function sayComma(system, p, fixed) {
  say(system, t("note.comma", {
    head: t("reject.head", { system: systemTitle(system), name: readableName(p, system) }),
    fixed,
  }));
}
// ×2 / ÷2 past an end of the accepted range: the step stops at that end, and says so
/** @param {string} system  @param {number} wanted  @param {number} set */
export function sayClamped(system, wanted, set) {
  say(system, t("dt.clamped", {
    system: systemTitle(system), name: readableName(DT_DECL, system), wanted: shortNumber(wanted),
    span: span(DT_DECL), set, end: t(set === DT_LO ? "dt.smallest" : "dt.largest"),
  }));
}
// A drag past a parameter's range (drag.js): each value as dragged, the range and what was
// set, in the words of views.i18n.drag_note (the numbers as %g); `clamped` is
// [[decl, dragged to, set], ...]
/** @param {string} system  @param {[Param, number, number][]} clamped */
export function clampNoteText(system, clamped) {
  const unit = (/** @type {Param} */ p) => (p.unit ? ` ${p.unit}` : "");
  const parts = clamped.map(([p, value, set]) => t("drag.clamped", {
    name: readableName(p, system), value: `${shortNumber(value)}${unit(p)}`, span: span(p),
    set: `${shortNumber(set)}${unit(p)}`,
  }));
  return t("drag.note", { system: systemTitle(system), parts: parts.join(t("drag.join")) });
}
/** @param {string} system  @param {string} text */
export function say(system, text) {
  const note = /** @type {HTMLElement} */ (document.getElementById(`il-note-${system}`));
  note.replaceChildren(document.createTextNode(text), dismissButton(() => { note.hidden = true; }));
  note.hidden = false;
}
// what people read (the core's Param.label and symbol: "initial angle θ₀"), not the code name
/** @param {Param} p  @param {string} [system] */
export function readableName(p, system) {
  const label = p === DT_DECL ? t("dt.name") : system ? paramLabel(system, p) : p.label;
  return [label || p.name, p.symbol].filter(Boolean).join(" ");
}
/** @param {string} system  @param {Param} p  @param {unknown} typed  @param {unknown} kept */
function rejection(system, p, typed, kept) {
  const head = t("reject.head", { system: systemTitle(system), name: readableName(p, system) });
  const tail = t("reject.tail", { kept: withUnit(String(kept), p) });
  const text = typed === null || typed === undefined ? "" : String(typed).trim();
  const parts = { head, tail, text, expected: expected(p), span: span(p) };
  if (!text) return t("reject.empty", parts);
  // a decimal comma is refused, and said so (never read as another number)
  if (/^[+-]?\d*,\d+$/.test(text)) {
    return t("reject.comma", { ...parts, text: quote(text), fixed: text.replace(",", ".") });
  }
  const x = parseNumber(text);
  if (!Number.isFinite(x)) return t("reject.nan", { ...parts, text: quote(text) });
  if (p.kind === "int" && !Number.isInteger(x)) return t("reject.int", parts);
  return t("reject.range", parts);
}

// A value the core refused (views.live.refusal: system, parameter, value, the range that
// applied): said in the page's language from those parts. In English, or for any other
// objection (no parts), the core's own sentences: nothing is lost.
/** @param {string[] | null | undefined} errors
 * @param {{system: string, param: string, value: unknown, min?: number | null,
 *   max?: number | null, min_open?: boolean, max_open?: boolean, then?: string} | null}
 *   [refused] */
export function coreErrors(errors, refused) {
  const declared = refused && paramDecl(refused.system, refused.param);
  if (!declared || language() === "en") return errors || [];
  const system = refused.system;
  // Python's None arrives as undefined: an unbounded end is null, as in the declarations
  const p = Object.assign({}, declared, {
    min: refused.min ?? null, max: refused.max ?? null,
    min_open: Boolean(refused.min_open), max_open: Boolean(refused.max_open),
  });
  const value = typeof refused.value === "string" ? quote(refused.value) : refused.value;
  const error = t("core.rejected", { system: systemTitle(system), name: readableName(p, system),
                                     value, expected: expected(p) });
  return [t(refused.then === "kept" ? "core.kept" : "core.defaults", { error })];
}
