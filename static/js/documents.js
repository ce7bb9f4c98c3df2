// Integrator Lab page: draws the dashboard's Bokeh documents (built at build time) into the
// page, with less in the first paint so that the dashboard is drawn, and moves, sooner:
// - the parts out of sight (a panel's parameter fields, below its plots) are drawn just after
//   the first paint;
// - a plot hidden until asked for (the phase plot) is drawn when it is first shown.
//
// BokehJS draws every root of a document when it embeds it, hidden or not, and draws a root
// added to a drawn document, or a child added to a drawn layout, when it comes. So what is
// drawn later is taken out of its document before the document is drawn and put back later;
// meanwhile its models are found by name all the same (models.js) and take every change.
// This uses BokehJS functions that its embedding API does not document:
// `Document.from_json` (through `Bokeh.require`), `embed.add_document_standalone` and
// `Document._recompute_all_models` (BokehJS 3.9, the range pinned in pyproject.toml). Where
// the first two are missing, everything is drawn at once, as `Bokeh.embed.embed_items` does.

import { findModel, holdModels, releaseModels } from "./models.js";

const heldParts = []; // { document, root }: put back after the first paint
const heldChildren = new Map(); // model name -> { layout, child, index }: put back when shown
let rest = null; // a promise: every part drawn
let allDrawn = false;

// whether every part of the dashboard is drawn (the page's status())
export const everyPartDrawn = () => allDrawn;

function documentClass() {
  try {
    const { Document } = Bokeh.require("document");
    if (typeof Document?.from_json === "function" &&
        typeof Bokeh.embed.add_document_standalone === "function") return Document;
  } catch { /* another BokehJS: draw everything at once */ }
  return null;
}

// Draws the roots of `item` (doc, roots {part: root id}) into the elements `elementId(part)`:
// the parts named in `later` once drawRest() runs, the models named in `whenShown` (children
// of a layout) once showHeld() asks for them.
export function drawDocument(docid, item, elementId, { later = [], whenShown = [] } = {}) {
  const parts = Object.entries(item.roots);
  const Document = later.length || whenShown.length ? documentClass() : null;
  if (!Document) {
    const roots = Object.fromEntries(parts.map(([part, id]) => [id, elementId(part)]));
    return Bokeh.embed.embed_items({ [docid]: item.doc },
      [{ docid, roots, root_ids: Object.keys(roots) }]);
  }
  const doc = Document.from_json(item.doc);
  for (const name of whenShown) {
    const child = doc.get_model_by_name(name);
    const layout = child && [...doc.all_models].find((m) => m.children?.includes(child));
    if (!layout) continue;
    holdModels(child);
    const index = layout.children.indexOf(child);
    layout.children = layout.children.filter((c) => c !== child);
    heldChildren.set(name, { document: doc, layout, child, index });
  }
  // BokehJS places the i-th root of the document into the i-th element: the parts drawn now
  // keep their places, those put back later come after them
  const drawnNow = parts.filter(([part]) => !later.includes(part));
  const drawnLater = parts.filter(([part]) => later.includes(part));
  for (const [, id] of drawnLater) {
    const root = doc.get_model_by_id(id);
    holdModels(root);
    doc.remove_root(root);
    heldParts.push({ document: doc, root });
  }
  const elements = [...drawnNow, ...drawnLater].map(
    ([part]) => document.getElementById(elementId(part)));
  return Bokeh.embed.add_document_standalone(doc, elements[0].parentElement, elements);
}

// The model called `name`, drawn: put back into its layout if it was held (drawDocument's
// `whenShown`); BokehJS draws it there now.
export function showHeld(name) {
  const held = heldChildren.get(name);
  if (!held) return findModel(name);
  heldChildren.delete(name);
  const children = held.layout.children.slice();
  children.splice(held.index, 0, held.child);
  held.layout.children = children;
  // BokehJS takes in the child itself at once, the models below it only at its next full
  // count (30 s later): count now, so that they belong to the document as they are drawn
  if (typeof held.document._recompute_all_models === "function") {
    held.document._recompute_all_models();
    releaseModels(held.child);
  }
  return held.child;
}

// Draws the parts held back, one per task (each is a few tens of milliseconds of BokehJS's
// layout: one at a time, the animation loses no more than a frame to each). The promise
// resolves once every one is drawn (their views exist); the first call starts it, once the
// dashboard is drawn.
export function drawRest() {
  if (rest) return rest;
  rest = new Promise((resolve) => {
    const next = () => {
      const held = heldParts.shift();
      if (!held) {
        allDrawn = true;
        performance.mark("il:all-drawn");
        resolve();
        return;
      }
      held.document.add_root(held.root);
      releaseModels(held.root);
      setTimeout(next, 0);
    };
    setTimeout(next, 0);
  });
  return rest;
}
