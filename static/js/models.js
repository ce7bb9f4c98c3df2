// Integrator Lab page: the Bokeh models of the drawn dashboard, by name, and changes made to
// them without echoing back to the worker.

// -- Bokeh models ------------------------------------------------------------------------
// A Bokeh document finds a model by name by looking at every model it has: the page asks
// for the same few hundred names again and again (every frame), so it remembers what it
// found, as long as the model is still part of a document.
const found = new Map();
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
  return null;
}
export function model(name) {
  const found = findModel(name);
  if (!found) throw new Error(`no Bokeh model named ${name}`);
  return found;
}
let silent = 0; // > 0 while the page sets widgets itself (no feedback to the worker)
export function quietly(fn) {
  silent += 1;
  try { fn(); } finally { silent -= 1; }
}
export function onChange(widget, property, fn) {
  widget.property(property).change.connect(() => { if (!silent) fn(widget[property]); });
}

export function newModel(type, attrs) {
  const cls = Bokeh.Models.get(type);
  return new cls(attrs || {});
}
