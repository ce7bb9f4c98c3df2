// What the page says of a value typed into a field (static/js/params.js: checkParam, and the
// wording of a refusal: expected, span, readableName) is what Python says (core
// Param.validate; views.i18n expected, span, param_name), in English and in Japanese, for
// every parameter of every system and every kind of typing (numbers, blanks, words, a decimal
// comma, "inf", "1_0", the ends of each range and just past them). params.js runs with the
// page data the build embeds (tests/js/param_cases.py) and the few browser globals it reads at
// import. Run by `node --test tests/js/` (make check, make test).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PYTHON = process.env.PYTHON || `${ROOT}.venv/bin/python`;
const truth = JSON.parse(execFileSync(PYTHON, [`${ROOT}tests/js/param_cases.py`], {
  cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28,
}));
// the page data as the build embeds it, and an English browser at a link with no `lang`
const pageData = JSON.stringify(truth.pageData);
globalThis.document = {
  getElementById: (id) => (id === "il-data" ? { textContent: pageData } : null),
};
globalThis.location = { search: "" };
Object.defineProperty(globalThis, "navigator", { value: { languages: ["en"] }, configurable: true });
const { checkParam, clampNoteText, expected, span, readableName, shortNumber } =
  await import("../../static/js/params.js");
const { setLanguage } = await import("../../static/js/i18n.js");
const { DECL } = await import("../../static/js/data.js");
const decl = (system, name) => DECL[system].params.find((p) => p.name === name);

test("every system's parameters are asked about, each with numbers kept and refused", () => {
  assert.equal(new Set(truth.cases.map((c) => c.system)).size, 3);
  for (const c of truth.cases.filter((c) => decl(c.system, c.name).kind !== "choice")) {
    assert.ok(c.typed.some(([, v]) => v !== null) && c.typed.some(([, v]) => v === null));
  }
});

test("a typed value is kept or refused as Param.validate keeps or refuses it", () => {
  for (const c of truth.cases) {
    const p = decl(c.system, c.name);
    for (const [raw, value] of c.typed) {
      const got = checkParam(p, raw);
      // === : the numbers equal (-0 typed is 0 to Python's int, -0 to JavaScript)
      assert.ok((got === undefined ? null : got) === value,
        `${c.system} ${c.name}: ${JSON.stringify(raw)}: ${got} != ${value}`);
    }
  }
});

for (const lang of ["en", "ja"]) {
  test(`a refusal's words in ${lang} are Python's: what is accepted, the range, the name`, () => {
    setLanguage(lang);
    for (const c of truth.cases) {
      const p = decl(c.system, c.name);
      const want = c.words[lang];
      assert.equal(expected(p), want.expected, `${c.system} ${c.name}`);
      if (p.kind !== "choice") assert.equal(span(p), want.span, `${c.system} ${c.name}`);
      assert.equal(readableName(p, c.system), want.name, `${c.system} ${c.name}`);
    }
    setLanguage("en");
  });
}

test("a number is written as Python's %g writes it", () => {
  const cases = [[0.5, "0.5"], [123456, "123456"], [1234567, "1.23457e+06"], [1e12, "1e+12"],
    [2.5e-5, "2.5e-05"], [0.0001, "0.0001"], [-3, "-3"], [1e-300, "1e-300"], [0.1 + 0.2, "0.3"],
    [999999.5, "1e+06"], [100, "100"]];
  for (const [x, want] of cases) assert.equal(shortNumber(x), want, String(x));
});

for (const lang of ["en", "ja"]) {
  test(`a drag past a range says in ${lang} what views.i18n.drag_note says`, () => {
    setLanguage(lang);
    assert.ok(truth.dragNotes.length >= 12);
    for (const c of truth.dragNotes) {
      const clamped = c.clamped.map(([name, value, set]) => [decl(c.system, name), value, set]);
      assert.equal(clampNoteText(c.system, clamped), c.note[lang]);
    }
  });
}
