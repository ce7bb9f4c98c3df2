// @ts-check
// Integrator Lab page: the Bokeh models of the drawn dashboard, by name, and changes made to
// them without echoing back to the worker.

// -- Bokeh models ------------------------------------------------------------------------
// A Bokeh document finds a model by name by looking at every model it has: the page asks
// for the same few hundred names again and again (every frame), so it remembers what it
// found, as long as the model is still part of a document. The models of a part not drawn
// yet (documents.js) are in no document meanwhile: they are found all the same.
// It asks the documents once for all their names, not once per name: most of the names
// applyView asks for are lines not made yet (a user's method, a kind of line not shown), and
// looking at every model of every document for each of them took 1,000 looks at the first
// change after the page was drawn, 0.1 s of its thread (0.6 s on a CPU six times slower).
// The names are asked for again when a name may have come: a document drawn, a part held or
// released. A model made here with a name (newModel) is found by that name once it is in a
// document. (BokehJS makes no named models of its own.)
/** @typedef {any} Model  a BokehJS model (BokehJS is not typed here) */
/** @type {Map<string, Model>} */
const found = new Map();
/** @type {Map<string, Model>} */
const held = new Map(); // name -> model, of the parts held back from their documents
/** @type {Map<string, Model | null>} */
const names = new Map(); // name -> model, of every document (null: more than one)
let parts = 0; // parts held or released
let namesFor = ""; // `parts` and the documents when `names` was made
function documentNames() {
  const now = `${parts}:${Bokeh.documents.length}`;
  if (now !== namesFor) {
    names.clear();
    for (const doc of Bokeh.documents) {
      for (const m of doc.all_models) {
        if (m.name) names.set(m.name, names.has(m.name) ? null : m);
      }
    }
    namesFor = now;
  }
  return names;
}
/** @param {string} name  @returns {Model | null} */
export function findModel(name) {
  const known = found.get(name); // (a model made here: from its making on)
  if (known && known.document) return known;
  const part = held.get(name);
  if (part) return part;
  let model = documentNames().get(name);
  if (model === null) { // named more than once: as BokehJS finds it (it may say why not)
    for (const doc of Bokeh.documents) {
      model = doc.get_model_by_name(name);
      if (model) break;
    }
  }
  if (!model?.document) return null;
  found.set(name, model);
  return model;
}
/** @param {Model} root */
export function holdModels(root) {
  parts += 1;
  for (const m of root.references()) if (m.name) held.set(m.name, m);
}
/** @param {Model} root */
export function releaseModels(root) {
  parts += 1;
  for (const m of root.references()) if (held.get(m.name) === m) held.delete(m.name);
}
/** @param {string} name  @returns {Model} */
export function model(name) {
  const found = findModel(name);
  if (!found) throw new Error(`no Bokeh model named ${name}`);
  return found;
}
let silent = 0; // > 0 while the page sets widgets itself (no feedback to the worker)
/** @param {() => void} fn */
export function quietly(fn) {
  silent += 1;
  try { fn(); } finally { silent -= 1; }
}
/** @param {Model} widget  @param {string} property  @param {(value: any) => void} fn */
export function onChange(widget, property, fn) {
  widget.property(property).change.connect(() => { if (!silent) fn(widget[property]); });
}

/** @param {string} type  @param {Record<string, any>} [attrs]  @returns {Model} */
export function newModel(type, attrs) {
  const cls = Bokeh.Models.get(type);
  const model = new cls(attrs || {});
  if (attrs?.name) found.set(attrs.name, model); // found once it joins a document
  return model;
}
