// Integrator Lab page: the Bokeh models of the drawn dashboard, by name, and changes made to
// them without echoing back to the worker.

// -- Bokeh models ------------------------------------------------------------------------
export function findModel(name) {
  for (const doc of Bokeh.documents) {
    const found = doc.get_model_by_name(name);
    if (found) return found;
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
