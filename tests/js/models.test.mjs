// The page's models by name (static/js/models.js) under Node, against stand-ins for BokehJS's
// documents that count how often they are looked through: a name is found where a document
// has it, in a part held back, or once a model made with it joins a document; a name found
// nowhere costs one look through the documents, not one per question. Run by
// `node --test tests/js/` (make check, make test).

import { test } from "node:test";
import assert from "node:assert/strict";

class Model {
  constructor(attrs = {}) {
    Object.assign(this, attrs);
    this.document = null;
  }

  references() {
    return [this, ...(this.children ?? [])];
  }
}

// a document as BokehJS's: its models, and a count of every look through all of them
class Document {
  constructor(models = []) {
    this.models = new Set();
    this.looks = 0;
    for (const m of models) this.add(m);
  }

  add(model) {
    for (const m of model.references()) {
      m.document = this;
      this.models.add(m);
    }
  }

  remove(model) {
    for (const m of model.references()) {
      m.document = null;
      this.models.delete(m);
    }
  }

  get all_models() {
    this.looks += 1;
    return new Set(this.models);
  }

  get_model_by_name(name) {
    this.looks += 1;
    const named = [...this.models].filter((m) => m.name === name);
    if (named.length > 1) throw new Error(`Multiple models are named '${name}'`);
    return named[0] ?? null;
  }
}

const first = new Document([new Model({ name: "pendulum:energy" }), new Model({ name: "spring:energy" })]);
globalThis.Bokeh = { documents: [first], Models: { get: () => Model } };
const { findModel, model, newModel, holdModels, releaseModels } =
  await import("../../static/js/models.js");
const looks = () => globalThis.Bokeh.documents.reduce((sum, doc) => sum + doc.looks, 0);

test("a name in a document is found, and found again without a look", () => {
  const energy = findModel("pendulum:energy");
  assert.equal(energy.name, "pendulum:energy");
  const before = looks();
  assert.equal(findModel("pendulum:energy"), energy);
  assert.equal(model("spring:energy").name, "spring:energy");
  assert.equal(findModel("pendulum:energy"), energy);
  assert.ok(looks() - before <= 1, "one look at most: spring:energy was known from the first");
});

test("names found nowhere cost one look through the documents, not one each", () => {
  findModel("pendulum:energy"); // the documents' names, known
  const before = looks();
  for (let i = 0; i < 200; i += 1) assert.equal(findModel(`pendulum:line:loss:user-${i}`), null);
  assert.equal(looks() - before, 0);
  assert.throws(() => model("pendulum:line:loss:user-0"), /no Bokeh model named/);
});

test("a model made with a name is found once it joins a document, asked before or not", () => {
  assert.equal(findModel("cradle:line:error:mine"), null); // not made yet
  const line = newModel("GlyphRenderer", { name: "cradle:line:error:mine" });
  assert.equal(findModel("cradle:line:error:mine"), null); // made, in no document yet
  first.add(line);
  assert.equal(findModel("cradle:line:error:mine"), line);
});

test("a document drawn later has its names found", () => {
  assert.equal(findModel("cradle:phase"), null);
  const phase = new Model({ name: "cradle:phase" });
  globalThis.Bokeh.documents.push(new Document([phase]));
  assert.equal(findModel("cradle:phase"), phase);
});

test("a part held back is found meanwhile, and in its document once released", () => {
  // (documents.js: a document drawn with a part held back, the part put back later)
  const field = new Model({ name: "spring:param:mass" });
  const part = new Model({ name: "spring:fields", children: [field] });
  const doc = new Document([part]);
  doc.remove(part);
  holdModels(part);
  globalThis.Bokeh.documents.push(doc);
  assert.equal(findModel("spring:param:mass"), field); // in no document: held
  assert.equal(field.document, null);
  doc.add(part);
  releaseModels(part);
  assert.equal(findModel("spring:param:mass"), field);
  assert.equal(findModel("spring:fields"), part);
  assert.equal(field.document, doc);
});

test("a model that left its documents is no longer found", () => {
  const gone = new Model({ name: "pendulum:legend-style:kinetic" });
  first.add(gone);
  globalThis.Bokeh.documents.push(new Document()); // (the names are read again)
  assert.equal(findModel("pendulum:legend-style:kinetic"), gone);
  first.remove(gone);
  assert.equal(findModel("pendulum:legend-style:kinetic"), null);
});
