// Integrator Lab page: the study view of each panel ("Live | Study"): a convergence and
// work–precision study of the panel's system under the selected integrators, run by the worker
// in slices beside the live simulation (views.study), drawn as its points arrive into two
// log–log Bokeh diagrams built in Python (views.study_figures), with a progress bar, the
// fitted slopes, CSV (the CLI's columns) and PNG export. Its settings live in the URL
// (studystate.js). Every text is set as textContent, never as HTML.

import { data, DECL, SYSTEMS } from "./data.js";
import { t, integratorName } from "./i18n.js";
import { onLanguage } from "./localize.js";
import { findModel } from "./models.js";
import { saveState, state } from "./urlstate.js";
import { send, handlers, replacedHooks } from "./worker.js";
import {
  STUDY, STUDY_KEYS, checkStudySetting, studyExpected, studySettings,
} from "./studystate.js";

const FIELDS = [ // [settings field, its label's catalog key (views.i18n), kind]
  ["duration", "study.duration", "text"], ["dt_max", "study.dt_max", "text"],
  ["dt_min", "study.dt_min", "text"], ["points", "study.points", "text"],
  ["error", "study.error", "select"],
];
const SOURCES = ["points", "excluded", "lines", "refs"];
const studyViews = Object.fromEntries(SYSTEMS.map((s) => [s, {
  open: false, drawn: null, running: false, done: false, progress: 0, points: 0, total: 0,
  slopes: {}, excluded: [], error: null, csv: null, seconds: null, pageSeconds: null,
  startedAt: 0, settings: null, restarts: 0,
}]));

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}
// an element whose text is the catalog's `key`, in the page's language (localize.js
// sets it again when the language changes)
function textEl(tag, attrs, key) {
  return el(tag, Object.assign({ "data-i18n": key }, attrs), t(key));
}

// -- the panel's study block -------------------------------------------------------------
function buildBlock(system) {
  const section = document.querySelector(`.il-panel[data-system="${system}"]`);
  if (!section) return;
  const toggle = el("div", { class: "il-study-switch", role: "group",
                             "aria-label": t("study.switch") });
  for (const [view, key] of [["live", "study.live"], ["study", "study.study"]]) {
    const button = textEl("button", { type: "button", "data-view": view,
                                      id: `il-study-${system}-${view}` }, key);
    button.addEventListener("click", () => setOpen(system, view === "study", true));
    toggle.appendChild(button);
  }
  section.querySelector(".il-panel-title").after(toggle);

  const block = el("div", { class: "il-study", id: `il-study-${system}`, hidden: "" });
  block.appendChild(textEl("p", { class: "il-study-intro" }, "study.intro"));
  // a system whose contacts switch on and off: what its slopes can and cannot say, first
  if (DECL[system]?.not_smooth) {
    block.appendChild(textEl("p", { class: "il-study-note", id: `il-study-${system}-note` },
      "study.not_smooth"));
  }
  const form = el("div", { class: "il-study-form" });
  const defaults = STUDY.defaults[system];
  for (const [field, label, kind] of FIELDS) {
    const id = `il-study-${system}-${field}`;
    const wrap = el("label", { for: id });
    wrap.appendChild(textEl("span", {}, label));
    let input;
    if (kind === "select") {
      input = el("select", { id });
      for (const m of STUDY.measures) {
        input.appendChild(textEl("option", { value: m }, `study.measure.${m}`));
      }
    } else {
      input = el("input", { id, type: "text", inputmode: "decimal", size: "7" });
      if (field === "dt_max" || field === "dt_min") input.placeholder = t("study.auto");
    }
    input.title = studyExpected(field);
    input.addEventListener("change", () => settingChanged(system, field, input));
    wrap.appendChild(input);
    form.appendChild(wrap);
    void defaults;
  }
  const run = textEl("button", { type: "button", class: "il-study-run",
                                 id: `il-study-${system}-run` }, "study.run");
  run.addEventListener("click", () => startStudy(system));
  const stop = textEl("button", { type: "button", id: `il-study-${system}-stop` }, "study.stop");
  stop.addEventListener("click", () => stopStudy(system));
  form.append(run, stop);
  block.appendChild(form);
  const progress = el("progress", { id: `il-study-${system}-progress`, max: "1", value: "0",
                                    "aria-label": t("study.progress") });
  block.appendChild(progress);
  block.appendChild(el("p", { class: "il-study-status", id: `il-study-${system}-status`,
                              role: "status" }));
  block.appendChild(el("p", { class: "il-study-error", id: `il-study-${system}-alert`,
                              role: "alert", hidden: "" }));
  for (const role of Object.keys(data.items.study[system].roots)) {
    block.appendChild(el("div", { class: `il-root il-study-diagram il-study-${role}`,
                                  id: `il-study-${system}-${role}` }));
  }
  const exports = el("div", { class: "il-study-export" });
  const csv = textEl("button", { type: "button", id: `il-study-${system}-csv`, disabled: "" },
                     "control.download_csv");
  csv.addEventListener("click", () => download(`${system}-study.csv`,
    new Blob([studyViews[system].csv], { type: "text/csv" })));
  const png = textEl("button", { type: "button", id: `il-study-${system}-png` }, "study.png");
  png.addEventListener("click", async () => {
    const blob = await (await fetch(await studyPng(system))).blob();
    download(`${system}-study.png`, blob);
  });
  exports.append(csv, png);
  block.appendChild(exports);
  section.appendChild(block);
  showSettings(system);
}

function showSettings(system) {
  const settings = studySettings(state, system);
  for (const [field] of FIELDS) {
    const input = document.getElementById(`il-study-${system}-${field}`);
    const value = settings[field];
    input.value = value === null || value === undefined ? "" : String(value);
  }
}

function settingChanged(system, field, input) {
  const x = checkStudySetting(field, input.value);
  const name = [...STUDY_KEYS].find(([, f]) => f === field)[0];
  if (x === undefined) {
    showError(system, t("study.setting", { name, raw: JSON.stringify(input.value),
      expected: studyExpected(field), kept: studySettings(state, system)[field] ?? t("study.auto") }));
    showSettings(system);
    return;
  }
  showError(system, null);
  state.studySettings[system][field] = x;
  saveState();
}

function showError(system, text) {
  const box = document.getElementById(`il-study-${system}-alert`);
  box.textContent = text || "";
  box.hidden = !text;
  studyViews[system].error = text || null;
}

function setOpen(system, open, byUser) {
  const view = studyViews[system];
  view.open = open;
  document.getElementById(`il-study-${system}`).hidden = !open;
  for (const v of ["live", "study"]) {
    document.getElementById(`il-study-${system}-${v}`)
      .setAttribute("aria-pressed", String((v === "study") === open));
  }
  const shown = state.study.includes(system);
  if (open && !shown) state.study = SYSTEMS.filter((s) => s === system || state.study.includes(s));
  if (!open && shown) state.study = state.study.filter((s) => s !== system);
  if (byUser) saveState();
  if (!open) {
    stopStudy(system);
    return;
  }
  if (!view.drawn) {
    const item = data.items.study[system];
    const roots = {};
    for (const [role, id] of Object.entries(item.roots)) roots[id] = `il-study-${system}-${role}`;
    view.drawn = Bokeh.embed.embed_items({ [`il-study-${system}`]: item.doc },
      [{ docid: `il-study-${system}`, roots, root_ids: Object.keys(roots) }]);
    view.drawn.then(() => localizeStudy(system));
  }
  if (!view.running && !view.done) view.drawn.then(() => startStudy(system));
  // pressed: the study, its progress and diagrams, comes into view (it is below the panel)
  if (byUser) view.drawn.then(() => bringIntoView(system));
}
function bringIntoView(system) {
  const block = document.getElementById(`il-study-${system}`);
  if (block.hidden) return;
  const tall = block.getBoundingClientRect().height > window.innerHeight;
  // from its start (its form and progress), or, if it all fits, whole
  block.scrollIntoView({ block: tall ? "start" : "nearest", behavior: "instant" });
}

// -- running -----------------------------------------------------------------------------
// A study runs in the worker: a new worker (worker.js replaceWorker) starts every study that
// was running again, from its first point, with the settings it had, and says so.
function restartStudies() {
  for (const system of SYSTEMS) {
    const view = studyViews[system];
    if (!view.running) continue;
    view.restarts += 1;
    startStudy(system, view.settings);
    setProgress(system, 0, t("study.restarted"));
  }
}

function startStudy(system, kept = null) {
  const view = studyViews[system];
  Object.assign(view, { running: true, done: false, progress: 0, points: 0, csv: null,
                        seconds: null, pageSeconds: null, startedAt: performance.now(),
                        settings: kept ?? studySettings(state, system) });
  showError(system, null);
  document.getElementById(`il-study-${system}-csv`).disabled = true;
  setProgress(system, 0, t("study.starting"));
  // JavaScript null would reach Python as jsnull: an unset bound is left out (the default)
  const settings = Object.fromEntries(Object.entries(view.settings)
    .filter(([, v]) => v !== null && v !== undefined));
  send({ type: "study", system, params: state.params[system],
         integrators: state.integrators, settings });
}

function stopStudy(system) {
  const view = studyViews[system];
  if (!view.running) return;
  view.running = false;
  send({ type: "study-stop", system });
  setProgress(system, view.progress,
              t("study.stopped", { points: view.points, total: view.total }));
}

function setProgress(system, fraction, text) {
  document.getElementById(`il-study-${system}-progress`).value = fraction;
  if (text !== undefined) document.getElementById(`il-study-${system}-status`).textContent = text;
}

function slopeText(slopes) {
  return Object.entries(slopes)
    .map(([name, s]) => `${integratorName(name)} ${s === null ? "–" : s.toFixed(2)}`).join(", ");
}
// Python's None arrives as undefined: keep it as null, so that "no slope" is said
function orNull(slopes) {
  return Object.fromEntries(Object.entries(slopes).map(([k, v]) => [k, v ?? null]));
}

function receiveStudy(msg) {
  const system = msg.system;
  const view = studyViews[system];
  if (!view || !view.running) return; // stopped meanwhile, or restarted: a late message
  if (msg.error) {
    view.running = false;
    showError(system, t("study.failed.why", { error: msg.error }));
    setProgress(system, 0, t("study.failed"));
    return;
  }
  view.progress = msg.progress;
  if (!msg.columns) { // a slice within a long point
    setProgress(system, msg.progress);
    return;
  }
  view.points = msg.points;
  view.total = msg.total;
  view.slopes = orNull(msg.slopes);
  view.excluded = msg.columns.excluded.reason.slice();
  for (const role of SOURCES) {
    const source = findModel(`${system}:study-source-${role}`);
    if (source) source.data = msg.columns[role];
  }
  view.measure = msg.measure;
  relabelLines(system);
  localizeStudy(system);
  if (msg.done) {
    view.running = false;
    view.done = true;
    view.csv = msg.csv;
    view.seconds = msg.seconds;
    view.pageSeconds = (performance.now() - view.startedAt) / 1000;
    document.getElementById(`il-study-${system}-csv`).disabled = false;
    setProgress(system, 1, t("study.done", { points: msg.points,
      seconds: view.pageSeconds.toFixed(1), slopes: slopeText(view.slopes) }));
  } else {
    setProgress(system, msg.progress, t("study.running",
      { points: msg.points, total: msg.total, slopes: slopeText(view.slopes) }));
  }
}

// -- export ------------------------------------------------------------------------------
function download(name, blob) {
  const a = el("a", { download: name });
  a.href = URL.createObjectURL(blob);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** Both diagrams side by side as one PNG (a data: URL), drawn by BokehJS's own export. */
async function studyPng(system) {
  await studyViews[system].drawn;
  const canvases = Object.keys(data.items.study[system].roots).map((role) => {
    const name = `${system}:study-${role}`;
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === name);
    return view.export("png").canvas;
  });
  const out = document.createElement("canvas");
  out.width = canvases.reduce((w, c) => w + c.width, 0);
  out.height = Math.max(...canvases.map((c) => c.height));
  const ctx = out.getContext("2d");
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, out.width, out.height);
  let x = 0;
  for (const c of canvases) {
    ctx.drawImage(c, x, 0);
    x += c.width;
  }
  return out.toDataURL("image/png");
}

/** What the study view of `system` shows, as plain data (tests, benchmarks). */
function studyStatus(system) {
  const { drawn, ...rest } = studyViews[system];
  return JSON.parse(JSON.stringify({ ...rest, drawn: Boolean(drawn) }));
}

// -- the diagrams' texts in the page's language (the catalog's study.*) --------------------
const X_COLUMNS = { convergence: "dt", work: "evaluations" }; // views.study_figures.DIAGRAMS
function localizeStudy(system) {
  const view = studyViews[system];
  if (!view.drawn) return;
  const measure = view.measure || document.getElementById(`il-study-${system}-error`)?.value;
  const hover = { integrator: "study.hover.integrator", evaluations: "study.hover.evaluations",
                  error: "study.hover.error" };
  for (const role of Object.keys(data.items.study[system].roots)) {
    const fig = findModel(`${system}:study-${role}`);
    if (!fig) continue;
    fig.title.text = t(`study.title.${role}`);
    fig.below[0].axis_label = t(`study.axis.${X_COLUMNS[role]}`);
    if (measure) fig.left[0].axis_label = t(`study.measure.${measure}`);
    for (const tool of fig.toolbar.tools) {
      if (!Array.isArray(tool.tooltips)) continue;
      // the rows' order is study_figures': integrator, dt, evaluations, error, reason
      const fields = ["integrator", null, "evaluations", "error", null];
      tool.tooltips = tool.tooltips.map(([label, value], i) =>
        [fields[i] ? t(hover[fields[i]]) : label, value]);
    }
  }
  relabelLines(system);
}
// each line's legend entry: its integrator and fitted slope (views.study's label column)
function relabelLines(system) {
  const source = findModel(`${system}:study-source-lines`);
  const slopes = studyViews[system].slopes;
  if (!source || !source.data.integrator) return;
  const label = source.data.integrator.map((name) => {
    const slope = slopes[name];
    const shown = integratorName(name);
    return slope === null || slope === undefined ? t("study.no_slope", { name: shown })
      : t("study.slope", { name: shown, slope: slope.toFixed(2) });
  });
  source.data = Object.assign({}, source.data, { label });
}

// main.js calls this once the dashboard is drawn
export function initStudy() {
  handlers.set("study", receiveStudy);
  replacedHooks.push(restartStudies);
  onLanguage(() => {
    for (const system of state.systems) {
      if (studyViews[system].drawn) localizeStudy(system);
      const view = studyViews[system];
      if (view.done) {
        setProgress(system, 1, t("study.done", { points: view.points,
          seconds: view.pageSeconds.toFixed(1), slopes: slopeText(view.slopes) }));
      }
    }
    for (const input of document.querySelectorAll(".il-study-form input, .il-study-form select")) {
      const field = input.id.split("-").pop();
      if (field !== "error") input.title = studyExpected(field);
      if (input.placeholder) input.placeholder = t("study.auto");
    }
  });
  // every panel's, not only the shown ones': a view applied in place (a lesson, Back) shows
  // the others with their Live | Study switch too
  for (const system of SYSTEMS) buildBlock(system);
  Object.assign(window.integratorLab, {
    study: studyStatus,
    studyCsv: (system) => studyViews[system].csv,
    studyPng,
  });
  for (const system of state.study) {
    if (state.systems.includes(system)) setOpen(system, true, false);
  }
  for (const system of SYSTEMS) {
    if (!state.study.includes(system)) setOpen(system, false, false);
  }
}
