// ESLint for the hand-written JavaScript: the page (start.js, a classic script, and the ES
// modules of static/js/), its module worker, the one-file build's page shim and worker wrapper,
// the Panel server's page scripts and the Node scripts of the build and the tests. `make lint`
// runs it.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["static/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser, Bokeh: "readonly" } },
  },
  {
    // the page's modules (static/js/main.js and what it imports)
    files: ["static/js/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser, Bokeh: "readonly" } },
  },
  {
    files: ["static/**/*.mjs"],
    languageOptions: { sourceType: "module", globals: { ...globals.worker } },
  },
  {
    // the one-file build: the page shim (a classic script) and the wrapper of the worker
    files: ["web/site/js/page_shim.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser } },
  },
  {
    // the entry of the page's code editor bundle (web/site/editor.py runs esbuild on it)
    files: ["web/site/js/editor_entry.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["web/site/js/worker_wrapper.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.worker } },
  },
  {
    files: ["web/**/*.mjs"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
];
