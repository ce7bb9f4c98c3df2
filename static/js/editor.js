// Integrator Lab page: "Add your method", the editor of the user's own integrator.
//
// Three ways to write one (integrator_lab.core.custom): Python code (CodeMirror 6, bundled at
// build time into static/vendor/editor.js; a plain text box when that did not load), a Butcher
// tableau (a grid of a, b, c) and a splitting (a list of kicks and drifts with their weights),
// each with templates. "Run" sends the definition to the worker, which validates it with the
// core and races it beside the selected built-ins on every panel, in its own colour; what the
// core says (its order, or every problem with its line) shows below the editor.
//
// Sharing: a method that runs travels in the URL fragment, "#method=" + base64url of the
// deflate-raw compressed JSON, so "Copy link" shares it. A tableau or a splitting from a link
// is data and runs at once; Python code from a link is shown and runs only when the visitor
// has read it and pressed Run. Nothing from the link is ever inserted as HTML.

import { data, DECL } from "./data.js";
import { systemTitle, t } from "./i18n.js";
import { banner, message } from "./messages.js";
import { applyView } from "./plots.js";
import { showLegend } from "./legend.js";
import { state, setFragment } from "./urlstate.js";
import { renewWorker, send } from "./worker.js";
import { methodHooks, userMethod } from "./method.js";

const FRAGMENT_KEY = "method";
// the kinds of method; their titles are the catalog's editor.kind.KIND
const KINDS = ["python", "tableau", "splitting"];
// the editor's first line on a page a server hosts (static/start.js: what the server does
// with a visitor's Python); on the static page, "editor.intro" (the code runs in this tab)
/** @type {Record<string, string>} */
const INTRO = {
  refused: "editor.intro.refused", sandbox: "method.code_banner",
  unconfined: "method.code_banner_unconfined",
};
const MAX_STAGES = 16; // core.custom.MAX_STAGES
const MAX_STEPS = 64; // core.custom.MAX_SEQUENCE
const MAX_FRAGMENT_CHARS = 200000; // a code of 100 000 characters compresses well below that
// The most a link's method may inflate to: a method is a few kB; the largest the core takes
// (core.custom.MAX_CODE_CHARS, 100 000 characters of code, as JSON) fits. A link that
// inflates to more is refused with a message, its inflation stopped there: a small link can
// inflate to gigabytes (deflate packs up to about 1000:1), so the bytes go in INFLATE_PIECE at
// a time and the output is counted as it comes.
export const MAX_METHOD_BYTES = 256 * 1024;
const INFLATE_PIECE = 1024; // compressed bytes per write: at most about 1 MB comes out of it
// how deep a definition's JSON may nest: a tableau's entry is three levels down
const MAX_DEPTH = 6;

const editorRefs = {}; // the editor's elements, by role
let codeBox = null; // {get, set, goToLine} of CodeMirror or of the fallback text box
let sentId = 0; // the id of the last definition sent to the worker
let sentDefinition = null; // and the definition itself (it goes into the link once it runs)
let stopReports = []; // why lanes of the running method stopped (one line per system)

function node(tag, attrs, children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") element.textContent = value;
    // a fixed text of the catalog: localize.js sets it again when the language changes
    else if (key === "i18n") element.textContent = t(element.dataset.i18n = value);
    else if (key === "hidden") element.hidden = Boolean(value);
    else element.setAttribute(key, value);
  }
  for (const child of children || []) element.appendChild(child);
  return element;
}

// -- the code box: CodeMirror, or a plain text box ---------------------------------------
// CodeMirror's bundle (static/vendor/editor.js, about 465 kB) is read when the editor is
// first opened: parsing it with the page took a tenth of the time to the first drawn
// dashboard. Until then a stand-in keeps the code.
function standInBox(text) {
  let value = text;
  return { standIn: true, get: () => value, set: (v) => { value = v; }, goToLine: () => {} };
}
let bundleLoaded = null; // the promise of CodeMirror's script (resolved, loaded or not)
function loadBundle() {
  const lazy = document.getElementById("il-editor-bundle");
  if (window.IntegratorLabCodeEditor || !lazy) return Promise.resolve();
  if (!bundleLoaded) {
    bundleLoaded = new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = lazy.dataset.url;
      script.onload = resolve;
      script.onerror = resolve; // the plain text box then
      document.head.appendChild(script);
    });
  }
  return bundleLoaded;
}
function openCodeBox() {
  if (!codeBox.standIn) return;
  loadBundle().then(() => {
    if (codeBox.standIn) codeBox = makeCodeBox(editorRefs.codeHost, codeBox.get());
  });
}
function makeCodeBox(host, text) {
  const api = window.IntegratorLabCodeEditor;
  if (api) {
    try {
      return api.create(host, text, () => {});
    } catch (error) {
      console.info(`Integrator Lab: the code editor failed (${error?.message ?? error})`);
    }
  }
  editorRefs.fallbackNote.hidden = false;
  const area = node("textarea", { class: "il-editor-textarea", spellcheck: "false",
                                  "aria-label": t("editor.code"), rows: "16" });
  area.value = text;
  host.appendChild(area);
  return {
    get: () => area.value,
    set: (value) => { area.value = value; },
    goToLine: (n) => {
      const lines = area.value.split("\n");
      const line = Math.min(Math.max(1, n), lines.length);
      const start = lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0);
      area.focus();
      area.setSelectionRange(start, start + lines[line - 1].length);
    },
  };
}

// -- the tableau grid and the splitting list ---------------------------------------------
function entryInput(label, value, entry) {
  return node("input", { type: "text", inputmode: "decimal", class: "il-editor-entry",
                         "aria-label": label, "data-entry": entry, value: String(value ?? 0) });
}

function renderTableau(a, b, c) {
  const stages = b.length;
  editorRefs.stages.value = String(stages);
  const rows = [];
  for (let i = 0; i < stages; i += 1) {
    const cells = [node("th", { scope: "row" }, [entryInput(`c[${i}]`, c[i], `c-${i}`)])];
    for (let j = 0; j < stages; j += 1) {
      const input = entryInput(`a[${i}][${j}]`, j < i ? a[i]?.[j] ?? 0 : 0, `a-${i}-${j}`);
      if (j >= i) input.disabled = true; // explicit: a is strictly lower triangular
      cells.push(node("td", {}, [input]));
    }
    rows.push(node("tr", {}, cells));
  }
  const weights = [node("th", { scope: "row", text: "b" })];
  for (let j = 0; j < stages; j += 1) {
    weights.push(node("td", {}, [entryInput(`b[${j}]`, b[j], `b-${j}`)]));
  }
  rows.push(node("tr", { class: "il-editor-weights" }, weights));
  const head = [node("th", { text: "c \\ a" })];
  for (let j = 0; j < stages; j += 1) head.push(node("th", { text: String(j + 1) }));
  editorRefs.grid.replaceChildren(node("thead", {}, [node("tr", {}, head)]),
    node("tbody", {}, rows));
}

// An entry as the core takes it: text, exact ("2/3", "0.75"), except a decimal of 13 or more
// significant digits, which is a float's digits (as Forest–Ruth's weights in the template):
// exactly, its digits would miss the order conditions by rounding; as a number, the core
// checks it with its tolerance for floats.
function entryValue(text) {
  const value = text.trim();
  const digits = value.replace(/e.*$/i, "").replace(/\D/g, "").replace(/^0+/, "");
  const decimal = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(value);
  return decimal && digits.length >= 13 ? Number(value) : value;
}

function readTableau() {
  const stages = Number(editorRefs.stages.value);
  const value = (entry) =>
    entryValue(editorRefs.grid.querySelector(`[data-entry="${entry}"]`).value);
  const a = [];
  const b = [];
  const c = [];
  for (let i = 0; i < stages; i += 1) {
    const row = [];
    for (let j = 0; j < stages; j += 1) row.push(j < i ? value(`a-${i}-${j}`) : 0);
    a.push(row);
    b.push(value(`b-${i}`));
    c.push(value(`c-${i}`));
  }
  return { a, b, c };
}

function resizeTableau() {
  const stages = Math.round(Number(editorRefs.stages.value));
  if (!(stages >= 1 && stages <= MAX_STAGES)) {
    showProblems([t("editor.stages.bad", { got: editorRefs.stages.value, max: MAX_STAGES })]);
    return;
  }
  const old = readTableau();
  const a = Array.from({ length: stages }, (_, i) =>
    Array.from({ length: stages }, (_, j) => old.a[i]?.[j] ?? 0));
  const b = Array.from({ length: stages }, (_, i) => old.b[i] ?? 0);
  const c = Array.from({ length: stages }, (_, i) => old.c[i] ?? 0);
  renderTableau(a, b, c);
}

function splittingRow(kind, weight) {
  const select = node("select", { "aria-label": t("editor.move"), class: "il-editor-move" },
    ["drift", "kick"].map((k) => node("option", { value: k, text: k })));
  select.value = kind === "kick" ? "kick" : "drift";
  const input = node("input", { type: "text", inputmode: "decimal", class: "il-editor-entry",
                                "aria-label": t("editor.weight"), value: String(weight ?? 0) });
  const remove = node("button", { type: "button", class: "il-editor-small", i18n: "editor.remove",
                                  "aria-label": t("editor.remove_step") });
  const row = node("li", {}, [select, input, remove]);
  remove.addEventListener("click", () => row.remove());
  return row;
}

function renderSplitting(sequence) {
  editorRefs.sequence.replaceChildren(...sequence.map(([kind, w]) => splittingRow(kind, w)));
}

function readSplitting() {
  return Array.from(editorRefs.sequence.children, (row) =>
    [row.querySelector("select").value, entryValue(row.querySelector("input").value)]);
}

// -- the definition in the editor ---------------------------------------------------------
function showKind(kind) {
  editorRefs.kind.value = kind;
  for (const k of KINDS) editorRefs[k].hidden = k !== kind;
}

function loadDefinition(definition) {
  const kind = definition.kind;
  showKind(kind);
  editorRefs.name.value = typeof definition.name === "string" ? definition.name : "";
  if (kind === "python") codeBox.set(String(definition.code ?? ""));
  else if (kind === "tableau") {
    const stages = Math.min(Array.isArray(definition.b) ? definition.b.length : 1, MAX_STAGES);
    const list = (x) => (Array.isArray(x) ? x : []);
    renderTableau(list(definition.a).map(list), list(definition.b).slice(0, stages),
      list(definition.c));
  } else if (kind === "splitting") {
    renderSplitting(list2(definition.sequence).slice(0, MAX_STEPS));
  }
}
function list2(x) {
  return (Array.isArray(x) ? x : []).map((step) => (Array.isArray(step) ? step : ["drift", 0]));
}

function currentDefinition() {
  const kind = editorRefs.kind.value;
  const name = editorRefs.name.value.trim();
  if (kind === "python") {
    return name ? { kind, name, code: codeBox.get() } : { kind, code: codeBox.get() };
  }
  if (kind === "tableau") return { kind, name, ...readTableau() };
  return { kind, name, sequence: readSplitting() };
}

// -- what the core says ---------------------------------------------------------------------
function showInfo(text) {
  editorRefs.info.textContent = text;
}
function showProblems(problems) {
  editorRefs.error.textContent = problems.join("\n");
  editorRefs.error.hidden = !problems.length;
  const line = problems.map((p) => /^line (\d+):/.exec(p)).find(Boolean);
  if (line && editorRefs.kind.value === "python") codeBox.goToLine(Number(line[1]));
}

function run(definition) {
  // user code ran in this worker: the built-ins (and the next code) get a clean interpreter
  if (userMethod.tainted) renewWorker();
  if (definition?.kind === "python") userMethod.tainted = true;
  sentId += 1;
  sentDefinition = definition;
  stopReports = [];
  userMethod.sending = true;
  userMethod.sentAt = performance.now();
  userMethod.answeredAt = null;
  userMethod.python = definition?.kind === "python";
  showProblems([]);
  showInfo(t(definition ? "editor.checking" : "editor.removing"));
  try {
    send({ type: "method", id: sentId, definition });
  } catch (error) { // a definition the browser cannot hand to the worker
    onReply({ id: sentId, method: null, problems: [String(error?.message ?? error)] });
  }
}

function onReply(reply) {
  if (reply.id !== sentId) return; // an older definition's answer
  userMethod.sending = false;
  userMethod.answeredAt = performance.now();
  userMethod.problems = reply.problems.slice();
  if (reply.problems.length) {
    showInfo(t("editor.fix"));
    showProblems(reply.problems);
    return; // the method that ran before goes on (the core changed nothing)
  }
  const method = reply.method;
  userMethod.name = method ? method.name : null;
  userMethod.info = method;
  userMethod.python = Boolean(method) && method.kind === "python";
  if (method && !userMethod.known.includes(method.name)) userMethod.known.push(method.name);
  applyView();
  showLegend(); // the user's method has a chip of its own, last
  editorRefs.remove.disabled = !method;
  if (!method) {
    showInfo(t("editor.none"));
    setFragment("");
    return;
  }
  // the order and the summary are the core's words (English)
  showInfo(t("editor.runs", { name: method.name, order: method.order_text,
                              summary: method.summary }));
  encodeMethod(sentDefinition).then(
    (text) => setFragment(text.length <= MAX_FRAGMENT_CHARS ? `${FRAGMENT_KEY}=${text}` : ""),
    () => setFragment(""));
}

function onStopped(system, name, at, reason) {
  const title = DECL[system] ? systemTitle(system) : system;
  const why = reason || t("editor.stopped.why");
  stopReports.push(t("editor.stopped",
    { system: title, name, at: Number(at.toPrecision(4)), why }));
  showProblems(stopReports);
}

function onReplaced(name, silentMs) {
  showLegend(); // the method no longer runs: its chip goes
  userMethod.replacedAt = performance.now();
  const what = name ? t("editor.your_method.named", { name }) : t("editor.your_method");
  const text = t("editor.hung", { what, seconds: (silentMs / 1000).toFixed(1) });
  showInfo(t("editor.not_running"));
  showProblems([text]);
  message(text);
  editorRefs.remove.disabled = true;
  applyView();
}

// -- the link: #method=... ------------------------------------------------------------------
async function encodeMethod(definition) {
  const bytes = new TextEncoder().encode(JSON.stringify(definition));
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const packed = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (const byte of packed) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function decodeMethod(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  const definition = JSON.parse(await inflateCapped(bytes));
  if (!definition || typeof definition !== "object" || !KINDS.includes(definition.kind)) {
    throw new Error(`expected a method of kind ${KINDS.join(", ")}`);
  }
  if (nesting(definition) > MAX_DEPTH) {
    throw new Error(t("editor.too_deep", { depth: MAX_DEPTH }));
  }
  return definition;
}

class TooLarge extends Error {}

/** deflate-raw `bytes` inflated as text, at most MAX_METHOD_BYTES of it (else TooLarge). */
async function inflateCapped(bytes) {
  const stream = new DecompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const feeding = (async () => {
    for (let i = 0; i < bytes.length; i += INFLATE_PIECE) {
      await writer.write(bytes.subarray(i, i + INFLATE_PIECE));
    }
    await writer.close();
  })();
  feeding.catch(() => {}); // a corrupt stream: the reader says so below
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_METHOD_BYTES) {
      reader.cancel().catch(() => {});
      throw new TooLarge(t("editor.too_big", { kb: MAX_METHOD_BYTES / 1024 }));
    }
    chunks.push(value);
  }
  await feeding;
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** How deep `value` nests (1 for a number or a string), without recursion. */
function nesting(value) {
  let deepest = 0;
  const stack = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop();
    deepest = Math.max(deepest, depth);
    if (depth > MAX_DEPTH) break;
    if (item && typeof item === "object") {
      for (const child of Object.values(item)) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

let linkBanner = null; // the note at the top about code from the link, until it runs
function methodFromLink() {
  const params = new URLSearchParams(location.hash.slice(1));
  const text = params.get(FRAGMENT_KEY);
  if (!text) return;
  if (text.length > MAX_FRAGMENT_CHARS) {
    message(t("editor.too_long", { chars: text.length }));
    setFragment("");
    return;
  }
  decodeMethod(text).then((definition) => {
    loadDefinition(definition);
    editorRefs.details.open = true;
    if (definition.kind === "python") {
      // code from a link runs only once the visitor has read it and asked for it
      userMethod.python = true;
      showInfo(t("editor.python_link"));
      editorRefs.run.classList.add("il-editor-attention");
      // said at the top too, where the visitor looks first (the editor is below the panels,
      // which keep the first screen): one button brings the code into view
      linkBanner = banner(t("editor.link_banner"), t("editor.link_banner.show"), () => {
        editorRefs.details.open = true;
        editorRefs.details.scrollIntoView({ block: "start" });
        editorRefs.run.focus({ preventScroll: true });
      });
    } else {
      run(definition); // a tableau or a splitting is data: it runs at once
    }
  }, (error) => {
    message(error instanceof TooLarge ? error.message
      : t("editor.unreadable", { error: error?.message ?? error }));
    setFragment("");
  });
}

// -- building the editor --------------------------------------------------------------------
export function initEditor() {
  const templates = data.methodTemplates || {};
  const kind = node("select", { id: "il-editor-kind", "aria-label": t("editor.kind") },
    KINDS.map((k) => node("option", { value: k, i18n: `editor.kind.${k}` })));
  const template = node("select", { id: "il-editor-template", "aria-label": t("editor.template") },
    [node("option", { value: "", i18n: "editor.template.choose" }),
     ...Object.entries(templates).map(([id, t]) => node("option", { value: id, text: t.title }))]);
  const name = node("input", { id: "il-editor-name", type: "text", maxlength: "40",
                               placeholder: "my-method", "aria-label": t("editor.name.label") });
  editorRefs.kind = kind;
  editorRefs.name = name;
  editorRefs.fallbackNote = node("p", { class: "il-editor-note", hidden: true,
    i18n: "editor.fallback" });
  const codeHost = node("div", { id: "il-editor-code", class: "il-editor-code" });
  editorRefs.codeHost = codeHost;
  editorRefs.python = node("div", { class: "il-editor-part" }, [
    node("p", { class: "il-editor-hint", i18n: "editor.python.hint" }),
    editorRefs.fallbackNote, codeHost]);
  editorRefs.stages = node("input", { id: "il-editor-stages", type: "number", min: "1",
                                      max: String(MAX_STAGES), value: "2" });
  editorRefs.grid = node("table", { class: "il-editor-grid", id: "il-editor-grid" });
  editorRefs.tableau = node("div", { class: "il-editor-part" }, [
    node("label", { class: "il-editor-label" }, [node("span", { i18n: "editor.stages" }),
                                                  document.createTextNode(" "), editorRefs.stages]),
    node("p", { class: "il-editor-hint", i18n: "editor.tableau.hint" }),
    editorRefs.grid]);
  editorRefs.sequence = node("ol", { class: "il-editor-sequence", id: "il-editor-sequence" });
  const addStep = node("button", { type: "button", class: "il-editor-small",
                                   i18n: "editor.add_step" });
  editorRefs.splitting = node("div", { class: "il-editor-part" }, [
    node("p", { class: "il-editor-hint", i18n: "editor.splitting.hint" }),
    editorRefs.sequence, addStep]);
  editorRefs.run = node("button", { type: "button", id: "il-editor-run",
                                    class: "il-editor-button", i18n: "editor.run" });
  editorRefs.remove = node("button", { type: "button", id: "il-editor-remove",
                                       class: "il-editor-button", i18n: "editor.remove" });
  editorRefs.remove.disabled = true;
  editorRefs.info = node("p", { id: "il-editor-info", class: "il-editor-info", role: "status",
                                text: t("editor.ready") });
  editorRefs.error = node("pre", { id: "il-editor-error", class: "il-editor-error",
                                   role: "alert", hidden: true });
  const summary = node("summary", { i18n: "editor.title" });
  editorRefs.details = node("details", { class: "il-editor-details" }, [
    summary,
    node("p", { class: "il-editor-hint", i18n: INTRO[window.integratorLabEarly?.code ?? ""] ??
      "editor.intro" }),
    node("div", { class: "il-editor-bar" }, [template, kind,
      node("label", { class: "il-editor-label" }, [node("span", { i18n: "editor.name" }),
                                                    document.createTextNode(" "), name])]),
    editorRefs.python, editorRefs.tableau, editorRefs.splitting,
    node("div", { class: "il-editor-actions" }, [editorRefs.run, editorRefs.remove]),
    editorRefs.info, editorRefs.error]);
  const section = node("section", { id: "il-editor", class: "il-editor",
                                    "aria-label": t("editor.title") }, [editorRefs.details]);
  document.getElementById("il-panels").after(section);
  section.hidden = state.embed;

  codeBox = standInBox("");
  editorRefs.details.addEventListener("toggle", () => {
    if (editorRefs.details.open) openCodeBox();
  });
  const first = templates["euler-code"]?.definition;
  if (first) codeBox.set(first.code);
  const ralston = templates.ralston?.definition;
  renderTableau(ralston?.a ?? [[0]], ralston?.b ?? [1], ralston?.c ?? [0]);
  renderSplitting(templates["forest-ruth"]?.definition?.sequence ?? [["drift", 1], ["kick", 1]]);
  showKind("python");
  if (first) name.value = first.name;

  kind.addEventListener("change", () => showKind(kind.value));
  template.addEventListener("change", () => {
    const chosen = templates[template.value];
    if (chosen) loadDefinition(chosen.definition);
    template.value = "";
  });
  editorRefs.stages.addEventListener("change", resizeTableau);
  addStep.addEventListener("click", () => {
    if (editorRefs.sequence.children.length < MAX_STEPS) {
      editorRefs.sequence.appendChild(splittingRow("drift", 0));
    }
  });
  editorRefs.run.addEventListener("click", () => {
    editorRefs.run.classList.remove("il-editor-attention");
    linkBanner?.remove(); // read and run: the note has done its job
    linkBanner = null;
    run(currentDefinition());
  });
  editorRefs.remove.addEventListener("click", () => run(null));
  methodHooks.reply = onReply;
  methodHooks.stopped = onStopped;
  methodHooks.replaced = onReplaced;
  methodFromLink();
}
