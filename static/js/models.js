// @ts-check
// Integrator Lab page: the Bokeh models of the drawn dashboard, by name, and changes made to
// them without echoing back to the worker.

// -- Bokeh models ------------------------------------------------------------------------
// A Bokeh document finds a model by name by looking at every model it has: the page asks
// for the same few hundred names again and again (every frame), so it remembers what it
// found, as long as the model is still part of a document. The models of a part not drawn
// yet (documents.js) are in no document meanwhile: they are found all the same.
/** @typedef {any} Model  a BokehJS model (BokehJS is not typed here) */
/** @type {Map<string, Model>} */
const found = new Map();
/** @type {Map<string, Model>} */
const held = new Map(); // name -> model, of the parts held back from their documents
/** @param {string} name  @returns {Model | null} */
export function findModel(name) {
  const known = found.get(name);
  if (known && known.document) return known;
  for (const doc of Bokeh.documents) {
    const model = doc.get_model_by_name(name);
    if (model) {
      found.set(name, model);
      return model;
    }
  }
  return held.get(name) ?? null;
}
/** @param {Model} root */
export function holdModels(root) {
  for (const m of root.references()) if (m.name) held.set(m.name, m);
}
/** @param {Model} root */
export function releaseModels(root) {
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
  return new cls(attrs || {});
}
